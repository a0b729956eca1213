import Foundation
import Glibc
import Testing

/// The JavaScript client and the `/demo` page in headless Chromium against the real `switchboard` executable:
/// scripts/web_demo_test.py starts both, drives the page over the DevTools protocol and checks the DOM after each flow
/// (setup, presence, messages, approvals, handoff, the node view, reconnect after kill -9 and restart, a screenshot).
/// Chromium is required (CI installs it): a missing browser fails this test, it does not skip it.
@Suite struct WebDemoBrowserTests {
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The test virtual environment's Python when scripts/test created one, else `python3` from PATH.
    static var python: String {
        let venv = root.appendingPathComponent(".build/test-venv/bin/python3").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3"
    }

    static func chromium() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/chromium"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    @Test(.timeLimit(.minutes(5))) func demoAndClientInHeadlessChromium() throws {
        try #require(FileManager.default.isExecutableFile(atPath: GatewayCrashTests.executable), "build the switchboard executable first")
        guard let chromium = Self.chromium() else {
            Issue.record("chromium is not installed: this test needs Debian's chromium package (.ci/run installs it: apt-get install chromium)")
            return
        }
        let (status, text) = try TLSEndToEndTests.run("/usr/bin/env", [
            Self.python, Self.root.appendingPathComponent("scripts/web_demo_test.py").path,
            "--switchboard", GatewayCrashTests.executable, "--chromium", chromium])
        #expect(status == 0, "scripts/web_demo_test.py failed:\n\(text)")
        let summary = text.split(separator: "\n").last { $0.hasPrefix("web: ") }.map(String.init) ?? "no summary line"
        #expect(summary.hasPrefix("web: ") && summary.hasSuffix(" passed, 0 failed") && !summary.hasPrefix("web: 0 "), "\(summary)\n\(text)")
        print(summary)
    }
}
