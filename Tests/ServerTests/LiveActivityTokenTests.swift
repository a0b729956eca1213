import Foundation
import Gateway
import Storage
import Testing

/// A device's Live Activity tokens are bounded: each update token belongs to an existing session of the device's
/// user, every Live Activity token has a bounded length, and a device keeps a bounded number of update tokens.
@Suite struct LiveActivityTokenTests {
    /// The Live Activity update tokens stored for `userId`, as "session token", sorted (read from the database file).
    static func storedUpdateTokens(_ server: RelationshipServer, of userId: String) throws -> [String] {
        let store = try SQLiteGatewayStore(options: SQLiteStoreOptions(path: server.directory.appendingPathComponent("gateway.db").path))
        defer { store.close() }
        return try store.loadSnapshot().pushTokens.filter { $0.userId == userId && $0.kind == "liveActivityUpdate" }
            .map { "\($0.sessionId) \($0.token)" }.sorted()
    }

    static func register(_ socket: GatewaySocket, kind: String = "liveActivityUpdate", token: String, session: String?) throws -> [String: Any] {
        try socket.command(#""type":"push_register","kind":"\#(kind)","token":"\#(token)""# + (session.map { #","sessionId":"\#($0)""# } ?? ""))
    }

    @Test func anUpdateTokenNeedsAnExistingSessionOfTheCallerAndABoundedLength() throws {
        let server = try RelationshipServer()
        let ann = try server.register("ann-device")
        let bob = try server.register("bob-device")
        #expect(try server.http("POST", "/v1/sessions", #"{"userId":"\#(ann.userId)","sessionId":"ann-run"}"#).0 == 201)
        #expect(try server.http("POST", "/v1/sessions", #"{"userId":"\#(bob.userId)","sessionId":"bob-run"}"#).0 == 201)
        let a = try server.socket(token: ann.token)
        #expect(errorCode(try Self.register(a, token: "la-ghost", session: "no-such-session")) == "session_not_found")
        #expect(errorCode(try Self.register(a, token: "la-bob", session: "bob-run")) == "session_not_found")   // bob's
        let long = String(repeating: "a", count: 257)
        #expect(errorCode(try Self.register(a, token: long, session: "ann-run")) == "invalid_field")
        #expect(errorCode(try Self.register(a, kind: "liveActivityStart", token: long, session: nil)) == "invalid_field")
        #expect(try Self.register(a, token: String(repeating: "a", count: 256), session: "ann-run")["ok"] as? Bool == true)
        #expect(try Self.register(a, kind: "webhook", token: "https://app.example/" + long, session: nil)["ok"] as? Bool == true)
        #expect(try Self.storedUpdateTokens(server, of: ann.userId) == ["ann-run " + String(repeating: "a", count: 256)])
        #expect(try Self.storedUpdateTokens(server, of: bob.userId).isEmpty)
    }

    @Test func aDeviceKeepsTheNewestUpdateTokensUpToItsLimit() throws {
        var settings = GatewaySettings()
        settings.liveActivityTokensPerDevice = 3
        let server = try RelationshipServer(settings: settings)
        let ann = try server.register("ann-device")
        for run in 1...4 {
            #expect(try server.http("POST", "/v1/sessions", #"{"userId":"\#(ann.userId)","sessionId":"run\#(run)"}"#).0 == 201)
        }
        let a = try server.socket(token: ann.token)
        for run in 1...3 { #expect(try Self.register(a, token: "la\(run)", session: "run\(run)")["ok"] as? Bool == true) }
        // Replacing a session's own token takes no other's place.
        #expect(try Self.register(a, token: "la3b", session: "run3")["ok"] as? Bool == true)
        #expect(try Self.storedUpdateTokens(server, of: ann.userId) == ["run1 la1", "run2 la2", "run3 la3b"])
        // A fourth session's token replaces the one registered longest ago.
        #expect(try Self.register(a, token: "la4", session: "run4")["ok"] as? Bool == true)
        #expect(try Self.storedUpdateTokens(server, of: ann.userId) == ["run2 la2", "run3 la3b", "run4 la4"])
        // After a restart the device still holds three.
        try server.restart()
        let again = try server.socket(token: ann.token)
        #expect(try Self.register(again, token: "la1b", session: "run1")["ok"] as? Bool == true)
        #expect(try Self.storedUpdateTokens(server, of: ann.userId) == ["run1 la1b", "run3 la3b", "run4 la4"])
    }
}
