import Foundation
import SwitchboardClient
import Testing

/// Every command and event of docs/PROTOCOL.md's tables has a typed counterpart in both clients. The doc is the list:
/// a command or event added there without a Swift method/case, a JS method or a TypeScript declaration fails here.
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

    /// client.js's `commandMethods` (wire type → method) and the declarations in client.d.ts.
    static func javaScriptSurface() throws -> (methods: [String: String], declared: Set<String>, events: Set<String>) {
        let module = try file("Sources/GatewayRuntime/Web/assets/client.js")
        let table = try #require(module.firstMatch(of: #/export const commandMethods = Object\.freeze\(\{([^}]*)\}\)/#)).output.1
        var methods: [String: String] = [:]
        for match in table.matches(of: #/([a-z_]+): '([A-Za-z]+)'/#) { methods[String(match.output.1)] = String(match.output.2) }
        let declarations = try file("Sources/GatewayRuntime/Web/assets/client.d.ts")
        let classBody = try #require(declarations.firstMatch(of: #/export declare class SwitchboardClient \{([\s\S]*?)\n\}/#)).output.1
        let declared = Set(classBody.matches(of: #/\n  ([A-Za-z]+)\(/#).map { String($0.output.1) })
        // Server events in EventMap; `welcome` and `resume` reach their handlers as lifecycle events (LifecycleMap).
        var events: Set<String> = []
        for map in declarations.matches(of: #/export interface (?:EventMap|LifecycleMap) \{([\s\S]*?)\n\}/#) {
            events.formUnion(map.output.1.matches(of: #/\n  ([A-Za-z]+): /#).map { String($0.output.1) })
        }
        return (methods, declared, events)
    }

    @Test func everyDocumentedCommandHasAJavaScriptMethodAndADeclaration() throws {
        let documented = try Self.documented("Commands").subtracting(Self.sentByTheConnection)
        let (methods, declared, _) = try Self.javaScriptSurface()
        #expect(documented.subtracting(methods.keys).sorted() == [], "documented commands missing from client.js's commandMethods")
        #expect(Set(methods.keys).subtracting(documented).sorted() == [], "commandMethods lists commands docs/PROTOCOL.md does not")
        let undeclared = methods.filter { !declared.contains($0.value) }.map { "\($0.key) → \($0.value)" }.sorted()
        #expect(undeclared == [], "client.js methods without a declaration in client.d.ts")
        // Each method really exists in the module (the browser check also calls each one and reads the frame it sends).
        let module = try Self.file("Sources/GatewayRuntime/Web/assets/client.js")
        for method in Set(methods.values) {
            #expect(module.contains("\n  \(method)(") || module.contains("\n  async \(method)("), "client.js has no method \(method)")
        }
    }

    @Test func everyDocumentedEventHasATypeScriptDeclaration() throws {
        let documented = try Self.documented("Events")
        let (_, _, events) = try Self.javaScriptSurface()
        let missing = documented.filter { !events.contains(Self.camel($0)) }.sorted()
        #expect(missing == [], "documented events without an EventMap entry in client.d.ts (camelCase names)")
    }
}
