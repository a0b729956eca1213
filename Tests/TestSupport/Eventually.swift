import Foundation

/// Polls `condition` every `interval` seconds until it holds or `seconds` have passed, and checks it once more at
/// the deadline; returns whether it held. For state another process or thread reaches without telling the test (a
/// server that becomes ready, a process that exits, a counter that grows); `condition` throws to stop early (say,
/// the process it waits for has died).
@discardableResult
public func eventually(
    within seconds: Double = 10,
    every interval: Double = 0.01,
    _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(UInt32(interval * 1_000_000))
    }
    return try condition()
}
