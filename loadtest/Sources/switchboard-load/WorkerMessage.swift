import Foundation

/// One line a worker writes to its stdout pipe for the parent: JSON, newline-terminated.
/// Workers send `progress` every 250 ms and exactly one `result` (or `failure`) at the end.
enum WorkerMessage: Codable, Sendable {
    case progress(ProgressSnapshot)
    case result(LoadStats)
    case failure(String)

    /// The message as one JSON line (ending in "\n").
    func encodedLine() -> [UInt8] {
        let encoder = JSONEncoder()
        var bytes = (try? encoder.encode(self)).map { [UInt8]($0) } ?? Array(#"{"failure":{"_0":"encode"}}"#.utf8)
        bytes.append(0x0A)
        return bytes
    }

    /// Parses one line (without its newline); nil for anything that is not a message.
    static func decode(line: ArraySlice<UInt8>) -> WorkerMessage? {
        try? JSONDecoder().decode(WorkerMessage.self, from: Data(line))
    }
}
