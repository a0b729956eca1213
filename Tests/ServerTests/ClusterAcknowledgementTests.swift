import Foundation
@testable import Gateway
@testable import GatewayRuntime
import Storage
import Testing

/// The acknowledgement deadline across nodes (real PostgreSQL and Redis): node A commits a message for bob, whose
/// devices are connected to node B; when A's deadline fires it reads the devices' stored acknowledgements, so a
/// device that acknowledged on B is not pushed and one that did not is.
@Suite struct ClusterAcknowledgementTests {
    @Test func anAckOnAnotherNodeStopsThePushAndAMissingOneDoesNot() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let delay: (inout GatewayRuntime.Options) -> Void = { $0.settings.pushAckDelayMs = 3_000 }
        let a = try cluster.addNode(configure: delay)
        try GatewayMessagingTests.makeUsers(a)
        let b = try cluster.addNode(configure: delay)
        try cluster.waitForBus(up: true)
        var devices: [GatewayTestClient] = []
        for name in ["bob-phone", "bob-tablet"] {
            let device = try b.connect(user: "bob", device: name)
            #expect(
                try device.command("push_register", ["kind": "webhook", "token": "https://receiver.test/\(name)"])["ok"]
                    as? Bool == true)
            devices.append(device)
        }
        try ClusterDeliveryTests.waitUntil(timeout: 30, "A counts bob's devices on B") {
            ClusterPresencePushTests.bobsDevices(as: a) == 2
        }
        // A must know the tokens registered through B before it decides whom to push.
        try ClusterDeliveryTests.waitUntil(timeout: 30, "A knows bob's tokens") {
            ClusterPresencePushTests.onHub(a) { $0.pushTokens.devices(of: "bob").count == 2 }
        }

        let alice = try a.connect(user: "alice", device: "alice-phone")
        #expect(try alice.command("send_message", ["to": "bob", "text": "one"])["ok"] as? Bool == true)
        let event = try devices[0].next("message", timeout: 10)
        #expect(
            try devices[0].command("ack", ["offset": try #require(GatewayJSON.int(event, "offset"))])["ok"] as? Bool
                == true)

        let reader = try PostgresGatewayStore(options: PostgresStoreOptions(url: cluster.url))
        defer { reader.close() }
        try ClusterDeliveryTests.waitUntil(timeout: 30, "A pushes the device that did not acknowledge") {
            (try? ClusterPresencePushTests.jobs("message", in: reader))?.isEmpty == false
        }
        // Both devices' deadlines fired together: one job, for the tablet only.
        #expect(try ClusterPresencePushTests.jobs("message", in: reader).map(\.deviceId) == ["bob-tablet"])
    }
}
