import Foundation
import GatewayProtocol
@testable import GatewayRuntime
@testable import Server
import Testing

/// Deleting a user and revoking a device on one node close the sockets another node holds (two nodes on one
/// PostgreSQL database and one `redis-server`, started by the test): the change notice makes that node read the user
/// again, and the revocation it reads closes them.
@Suite struct ClusterLifecycleTests {
    @Test func aDeviceOnTheOtherNodeIsClosedByARevocationAndThenByTheDeletion() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let a = try cluster.addNode()
        #expect(try a.api("POST", "/v1/users", ["userId": "ann"]).status == 201)
        // A pending approval of hers, created before node B starts: B loads it at start, as every node holds them.
        #expect(try a.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "run1"]).status == 201)
        #expect(try a.api("POST", "/v1/sessions/run1/approvals", ["toolName": "shell", "summary": "ls"]).status == 201)
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        #expect(GatewayJSON.int(try b.api("GET", "/v1/users/ann/approvals").json, "badge") == 1)
        let phoneOnA = try AccountLifecycleTests.connect(
            a, AccountLifecycleTests.token(user: "ann", device: "ann-phone"))
        let tabletToken = AccountLifecycleTests.token(user: "ann", device: "ann-tablet")
        let tabletOnB = try AccountLifecycleTests.connect(b, tabletToken)
        let deskOnB = try AccountLifecycleTests.connect(b, AccountLifecycleTests.token(user: "ann", device: "ann-desk"))

        // Revoked through node A, the tablet connected to node B closes; the desk beside it stays.
        // Node B stores the tablet's row just after its welcome: until then node A answers 404 (nothing revoked).
        try ClusterDeliveryTests.waitUntil(timeout: 10, "node A revokes the tablet node B registered") {
            (try? a.api("DELETE", "/v1/users/ann/devices/ann-tablet"))?.status == 200
        }
        #expect(try tabletOnB.closeCode(timeout: 10) == GatewayCloseCode.deviceRevoked)
        #expect(try AccountLifecycleTests.refusedClose(b, tabletToken) == GatewayCloseCode.deviceRevoked)
        #expect(try deskOnB.command("approvals_pending")["ok"] as? Bool == true)

        // Deleted through node A, her devices on both nodes close, and B drops her approval.
        #expect(try a.api("DELETE", "/v1/users/ann").status == 200)
        #expect(try phoneOnA.closeCode() == GatewayCloseCode.accountDeleted)
        #expect(try deskOnB.closeCode(timeout: 10) == GatewayCloseCode.accountDeleted)
        #expect(try b.api("GET", "/v1/users/ann").status == 404)
        #expect(GatewayJSON.int(try b.api("GET", "/v1/users/ann/approvals").json, "badge") == 0)
    }
}
