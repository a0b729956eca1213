import Foundation

/// A helper process (a Python fake provider, a tool) that did not come up: names the script and quotes the end of its
/// standard error, so a missing Python package reads as such in the one test that needed it.
public struct FixtureStartFailure: Error, CustomStringConvertible {
    public let description: String

    public init(script: String, stderrFile: String) {
        let stderr = (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? ""
        let tail = stderr.split(separator: "\n").suffix(3).joined(separator: " | ")
        var message = "\(script) did not start"
        if !tail.isEmpty { message += ": \(tail)" }
        if stderr.contains("ModuleNotFoundError") || stderr.contains("No module named") {
            message += " — the tests' Python packages are missing: run scripts/test, or put them on PATH with "
                + "PATH=\"$(scripts/test-venv):$PATH\" swift test …"
        }
        description = message
    }
}
