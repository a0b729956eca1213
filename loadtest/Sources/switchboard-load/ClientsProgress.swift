import Foundation
import JSON

/// The `clients` scenario's running figures, one JSON line every 100 ms appended to a file, so a script that injects
/// faults meanwhile (scripts/chaos) can tell from the timeline when each fault hit and when service came back:
///
///     {"t":1764000000.123,"acknowledged":1200,"delivered":1187,"events":2374,"connected":100,"errors":{"storage_failed":3},"partnerOffline":0}
///
/// `t` is Unix time in seconds (the clock other processes share); counts are totals since the start: `delivered`
/// distinct messages from partners, `events` every `message` event the devices received (their own copies too).
final class ClientsProgress: Sendable {
    private let task: Task<Void, Never>

    init(path: String, devices: [ClientsLoad.Device]) {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = FileHandle(forWritingAtPath: path)
        task = Task {
            while !Task.isCancelled {
                handle?.write(Data(Self.line(devices).utf8))
                try? await Task.sleep(for: .milliseconds(100))
            }
            handle?.write(Data(Self.line(devices).utf8))
            try? handle?.close()
        }
    }

    /// Writes the last line and closes the file.
    func stop() async {
        task.cancel()
        await task.value
    }

    static func line(_ devices: [ClientsLoad.Device]) -> String {
        var (acknowledged, delivered, events, connected, partnerOffline) = (0, 0, 0, 0, 0)
        var errors: [String: Int] = [:]
        for device in devices {
            let running = device.running
            acknowledged += running.acknowledged
            delivered += running.delivered
            events += running.events
            partnerOffline += running.partnerOffline
            errors.merge(running.errors, uniquingKeysWith: +)
            if device.isConnected { connected += 1 }
        }
        let errorList = errors.sorted { $0.key < $1.key }.map { "\(JSONString.quoted($0.key)):\($0.value)" }.joined(separator: ",")
        let t = String(format: "%.3f", Date().timeIntervalSince1970)
        return #"{"t":\#(t),"acknowledged":\#(acknowledged),"delivered":\#(delivered),"events":\#(events),"connected":\#(connected),"#
            + #""errors":{\#(errorList)},"partnerOffline":\#(partnerOffline)}"# + "\n"
    }

}
