import Foundation
import SwitchboardClient
import Testing

/// Every command and event of docs/PROTOCOL.md's tables has a typed counterpart in the Swift client. The doc is the
/// list: a command or event added there without a Swift method or case fails here.
@Suite struct ClientSurfaceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func file(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The wire types in the first column of every table under a `## <heading>…` of docs/PROTOCOL.md. A cell like
    /// `` `friend_request_accept` / `_reject` `` names two: a suffix replaces the first name's last `_part`.
    static func documented(_ heading: String) throws -> Set<String> {
        var names: Set<String> = []
        var inSection = false
        for line in try file("docs/PROTOCOL.md").split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") {
                inSection = line.hasPrefix("## \(heading)")
                continue
            }
            guard inSection, line.hasPrefix("| `") else { continue }
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            var first: String?
            for match in cell.matches(of: #/`([a-z_]+)`/#) {
                let name = String(match.output.1)
                if name.hasPrefix("_"), let base = first, let cut = base.lastIndex(of: "_") {
                    names.insert(String(base[..<cut]) + name)
                } else {
                    first = first ?? name
                    names.insert(name)
                }
            }
        }
        return names
    }

    static func camel(_ wire: String) -> String {
        let parts = wire.split(separator: "_")
        return parts.first.map(String.init)! + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The Swift client authenticates on the upgrade (`?token=`), the JS client with `auth`: both at the connection
    /// level, never as an app's call. `ack` is sent by both once an event is handled.
    static let sentByTheConnection: Set<String> = ["auth", "ack"]

    @Test func theDocumentsTablesAreRead() throws {
        let commands = try Self.documented("Commands")
        let events = try Self.documented("Events")
        // Spot checks of both parts of the page and of the suffix rule: a parser that reads nothing fails here.
        for name in ["send_message", "approve", "deny", "friend_request_reject", "contact_resume", "blocks", "discover", "invite_redeem"] {
            #expect(commands.contains(name), "\(name) not read from the commands tables: \(commands.sorted())")
        }
        for name in ["welcome", "approval_timeout", "friend_request_cancelled", "contact_removed", "user_unblocked", "invite_created"] {
            #expect(events.contains(name), "\(name) not read from the events tables: \(events.sorted())")
        }
        #expect(commands.count >= 40 && events.count >= 30, "\(commands.count) commands, \(events.count) events")
    }

    @Test func everyDocumentedCommandHasASwiftMethod() throws {
        let documented = try Self.documented("Commands").subtracting(["auth"])
        let typed = Set(ClientCommandKind.allCases.map(\.rawValue))
        #expect(documented.subtracting(typed).sorted() == [], "documented commands without a typed Swift call")
        #expect(typed.subtracting(documented).sorted() == [], "ClientCommandKind lists commands docs/PROTOCOL.md does not")
    }

    @Test func everyDocumentedEventHasASwiftCase() throws {
        let documented = try Self.documented("Events")
        let typed = Set(ClientEventKind.allCases.map(\.rawValue))
        #expect(documented.subtracting(typed).sorted() == [], "documented events that would arrive as .other")
        #expect(typed.subtracting(documented).sorted() == [], "ClientEventKind lists events docs/PROTOCOL.md does not")
    }
}
