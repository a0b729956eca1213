import Foundation
import SwitchboardClient
import Testing

/// The Swift client's account and device lifecycle calls (`AccountLifecycle`) against a real in-process gateway: a
/// revoked device's client stops with 4011 while the other goes on, a foreign device id is refused, and deleting
/// the account stops the last client with 4010 and refuses its token from then on.
@Suite struct ClientLifecycleTests {
    static func stoppedCode(_ events: [ClientEvent]) -> UInt16? {
        for event in events {
            if case .connection(.stopped(.refused(.closed(let code)))) = event { return code }
        }
        return nil
    }

    @Test(.timeLimit(.minutes(1))) func revokingADeviceAndDeletingTheAccountStopTheirClients() async throws {
        let server = try GatewayTestServer()
        let gateway = "http://127.0.0.1:\(server.port)"
        for user in ["ann", "bob"] { #expect(try server.api("POST", "/v1/users", ["userId": user]).status == 201) }
        let phoneToken = GatewayTestServer.token(user: "ann", device: "ann-phone")
        let phone = TestDevice(port: { server.port }, user: "ann", device: "ann-phone")
        let laptop = TestDevice(port: { server.port }, user: "ann", device: "ann-laptop")
        let bob = TestDevice(port: { server.port }, user: "bob", device: "bob-phone")
        for device in [phone, laptop, bob] {
            await device.start()
            try await device.waitConnected()
        }

        await #expect {
            try await AccountLifecycle.revokeDevice("bob-phone", gateway: gateway, token: phoneToken)
        } throws: {
            ClientTypedSurfaceTests.code($0) == "not_found"
        }
        try await AccountLifecycle.revokeDevice("ann-laptop", gateway: gateway, token: phoneToken)
        try await laptop.waitFor("the laptop stops with 4011") { Self.stoppedCode($0) == 4011 }
        #expect(try await phone.client.pendingApprovals().badge == 0)  // the phone goes on

        try await AccountLifecycle.deleteAccount(gateway: "ws://127.0.0.1:\(server.port)/v1/ws", token: phoneToken)
        try await phone.waitFor("the phone stops with 4010") { Self.stoppedCode($0) == 4010 }
        await #expect {
            try await AccountLifecycle.deleteAccount(gateway: gateway, token: phoneToken)
        } throws: {
            ClientTypedSurfaceTests.code($0) == "token_revoked"
        }
        #expect(Self.stoppedCode(bob.events) == nil)
        for device in [phone, laptop, bob] { await device.stop() }
    }

    /// The JS module and its declarations expose the same two calls and close codes (the module is driven against a
    /// gateway in the browser suites; here its surface is read as ClientSurfaceTests reads the commands).
    @Test func theJSClientAndItsDeclarationsExposeTheSameCalls() throws {
        let module = try ClientSurfaceTests.file("Sources/GatewayRuntime/Web/assets/client.js")
        let declarations = try ClientSurfaceTests.file("Sources/GatewayRuntime/Web/assets/client.d.ts")
        for name in ["deleteAccount", "revokeDevice"] {
            #expect(module.contains("export async function \(name)(baseUrl, token"), "client.js has no \(name)")
            #expect(
                declarations.contains("export declare function \(name)(baseUrl: string, token: string"),
                "client.d.ts has no \(name)")
        }
        for code in ["accountDeleted: 4010", "deviceRevoked: 4011"] {
            #expect(
                module.contains(code) && declarations.contains(code.replacingOccurrences(of: ",", with: ";")), "\(code)"
            )
        }
        #expect(
            module.contains("'/v1/users/me'")
                && module.contains("`/v1/users/me/devices/${encodeURIComponent(deviceId)}`"))
    }
}
