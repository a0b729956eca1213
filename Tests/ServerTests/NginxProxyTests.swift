import Foundation
import Gateway
@testable import GatewayRuntime
import Glibc
@testable import Server
import Testing

/// The committed `config/nginx/switchboard.conf`, run by Debian's nginx in front of two real nodes (NginxFixture):
/// WebSocket upgrades and the server API pass through it, least_conn spreads the sockets, a `kill -9`ed node's
/// clients reconnect to the survivor, and the client's address reaches the node in `X-Forwarded-For`.
@Suite(.serialized) struct NginxProxyTests {
    @Test(.enabled(if: NginxFixture.available, "nginx is not installed at /usr/sbin/nginx (apt-get install nginx)"),
          .timeLimit(.minutes(2)))
    func upgradesPassThroughNginxAndSpreadOverBothNodes() throws {
        let cluster = try NginxFixture()
        let clients = try (0..<6).map { try cluster.connect(user: "user\($0)", device: "device\($0)") }
        // A command and its reply cross the proxy in both directions.
        let reply = try clients[0].command("connect_code", timeout: 10)
        #expect(GatewayJSON.string(reply, "result", "code")?.count == 6, "\(reply)")

        // least_conn: each new socket went to the node with fewer, so both hold half.
        let counts = try Self.eventually(seconds: 10) {
            let counts = try (0..<2).map { try cluster.connectedDevices(onNode: $0) }
            return counts.reduce(0, +) == clients.count ? counts : nil
        }
        #expect(counts == [3, 3])

        #expect(try GatewayHTTP.request(port: cluster.port, "GET", "/healthz", key: nil).status == 200)
        #expect(try GatewayHTTP.request(port: cluster.port, "GET", "/metrics", key: nil).status == 404)
        // The server API goes through (a user created on whichever node nginx picked).
        #expect(try GatewayHTTP.request(port: cluster.port, "POST", "/v1/users", ["userId": "kim"]).status == 201)
        // The body limit is the nodes' (1 MiB): one byte more is refused by nginx with the nodes' JSON error;
        // exactly 1 MiB reaches a node (which refuses it as JSON for what it is, not for its size).
        let tooLarge = try GatewayHTTP.request(port: cluster.port, "POST", "/v1/users", String(repeating: "x", count: 1_048_577))
        #expect(tooLarge.status == 413)
        #expect(tooLarge.errorCode == "body_too_large")
        #expect(GatewayJSON.int(tooLarge.json, "error", "status") == 413)
        let atLimit = try GatewayHTTP.request(port: cluster.port, "POST", "/v1/users", String(repeating: "x", count: 1_048_576))
        #expect(atLimit.status == 400, "\(atLimit)")
        #expect(atLimit.errorCode != nil && atLimit.errorCode != "body_too_large")
    }

    @Test(.enabled(if: NginxFixture.available, "nginx is not installed at /usr/sbin/nginx (apt-get install nginx)"),
          .timeLimit(.minutes(2)))
    func afterKill9OfANodeItsClientsReconnectAndTheSurvivorServesLongPollsAndSeesClientAddresses() throws {
        let cluster = try NginxFixture()
        // Connect one at a time and see which node's count rises, so each client's node is known.
        var clients: [(client: GatewayTestClient, user: String, device: String, node: Int)] = []
        var counts = [0, 0]
        for i in 0..<6 {
            let (user, device) = ("user\(i)", "device\(i)")
            let client = try cluster.connect(user: user, device: device)
            let now = try Self.eventually(seconds: 10) {
                let now = try (0..<2).map { try cluster.connectedDevices(onNode: $0) }
                return now.reduce(0, +) == i + 1 ? now : nil
            }
            clients.append((client, user, device, now[0] > counts[0] ? 0 : 1))
            counts = now
        }
        let victims = clients.filter { $0.node == 0 }
        let survivors = clients.filter { $0.node == 1 }
        try #require(!victims.isEmpty && !survivors.isEmpty, "least_conn put every socket on one node")

        cluster.killNode(0)
        // nginx ends the sockets whose node died; the others are untouched.
        for victim in victims {
            #expect(Self.peerCloses(victim.client.raw.fd, within: 10), "\(victim.device)'s socket stayed open")
        }
        for survivor in survivors {
            let reply = try survivor.client.command("connect_code", timeout: 10)
            #expect(GatewayJSON.string(reply, "result", "code") != nil, "\(reply)")
        }
        // Reconnecting through nginx lands on the survivor at the first attempt: the dead node refuses the
        // connection, and nginx passes the upgrade on (proxy_next_upstream error).
        var reconnected: [GatewayTestClient] = []
        for victim in victims {
            reconnected.append(try cluster.connect(user: victim.user, device: victim.device))
        }
        let survivorCount = try Self.eventually(seconds: 10) {
            let count = try cluster.connectedDevices(onNode: 1)
            return count == clients.count ? count : nil
        }
        #expect(survivorCount == clients.count)

        // A long-poll held by the survivor passes through nginx and ends the moment a device (itself behind nginx)
        // answers.
        let owner = survivors[0]
        let api = { (method: String, path: String, body: [String: Any]) in try GatewayHTTP.request(port: cluster.port, method, path, body) }
        #expect(try api("POST", "/v1/sessions", ["userId": owner.user, "sessionId": "s1", "title": "Build"]).status == 201)
        let created = try api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "make", "timeoutSeconds": 60])
        let id = try #require(GatewayJSON.string(created.json, "requestId"), "\(created)")
        _ = try owner.client.next(timeout: 10) { $0["type"] as? String == "approval_request" }
        let port = cluster.port
        let poll = BackgroundCall { try? GatewayHTTP.request(port: port, "GET", "/v1/approvals/\(id)?wait=30", timeoutSeconds: 40) }
        #expect(poll.wait(seconds: 0.3) == nil, "the long-poll ended before anything was decided")
        let approved = try owner.client.command("approve", ["requestId": id], timeout: 10)
        #expect(GatewayJSON.string(approved, "result", "state") == "approved", "\(approved)")
        let answer = try #require(poll.wait(seconds: 20) ?? nil, "the long-poll did not return")
        #expect(answer.status == 200)
        #expect(GatewayJSON.string(answer.json, "state") == "approved")

        // X-Forwarded-For: a client at 127.0.0.2 uses up its registrations on the survivor; one at 127.0.0.3 is not
        // affected. Were the address lost on the way (nginx not appending it, the node not trusting nginx), both
        // would be nginx's 127.0.0.1 and share one allowance.
        let allowance = GatewaySettings().registrationsPerAddressPerHour
        func register(_ index: Int, from source: String) throws -> GatewayHTTP.Response {
            try GatewayHTTP.request(port: cluster.port, "POST", "/v1/devices/register",
                                    ["deviceToken": "device-secret-\(source)-\(index)", "platform": "ios"], key: nil, source: source)
        }
        var accepted = 0
        var refusal: GatewayHTTP.Response?
        for index in 0...allowance {
            let response = try register(index, from: "127.0.0.2")
            if response.status != 201 {
                refusal = response
                break
            }
            accepted += 1
        }
        #expect(accepted == allowance)
        #expect(refusal?.status == 429)
        #expect(refusal?.errorCode == "rate_limited")
        let other = try register(0, from: "127.0.0.3")
        #expect(other.status == 201, "\(other)")
    }

    @Test(.enabled(if: NginxFixture.available, "nginx is not installed at /usr/sbin/nginx (apt-get install nginx)"),
          .timeLimit(.minutes(2)))
    func upgradesADrainingNodeRefusesGoToTheOtherNode() throws {
        let cluster = try NginxFixture(lingeringDrain: true)
        // Two sockets on each node; node 0's stay open while it drains (they never answer its close frame).
        let clients = try (0..<4).map { try cluster.connect(user: "user\($0)", device: "device\($0)") }
        #expect(try Self.eventually(seconds: 10) {
            let counts = try (0..<2).map { try cluster.connectedDevices(onNode: $0) }
            return counts.reduce(0, +) == clients.count ? counts : nil
        } == [2, 2])

        cluster.stopNode(0)
        _ = try Self.eventually(seconds: 10) {
            try? GatewayHTTP.request(port: cluster.nodes[0].port, "GET", "/readyz", key: nil).status == 503 ? true : nil
        }
        let status503 = "switchboard_http_responses_total{status=\"503\"}"
        let refusedBefore = try cluster.metric(status503, onNode: 0) ?? 0   // the /readyz answers above
        // least_conn offers node 0 the next sockets (it has fewer once node 1 takes one); its 503 makes nginx try
        // node 1 (proxy_next_upstream http_503), so every upgrade succeeds, all on node 1.
        let later = try (4..<8).map { try cluster.connect(user: "user\($0)", device: "device\($0)") }
        #expect(try Self.eventually(seconds: 10) {
            let count = try cluster.connectedDevices(onNode: 1)
            return count == 2 + later.count ? count : nil
        } == 2 + later.count)
        let refused = try cluster.metric(status503, onNode: 0) ?? 0
        #expect(refused > refusedBefore, "nginx never offered the draining node an upgrade, so the retry was not exercised")
    }

    /// Calls `probe` every 20 ms until it returns a value, for at most `seconds`.
    static func eventually<T>(seconds: Double, _ probe: () throws -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let value = try probe() { return value }
            guard Date() < deadline else { throw TestFailure("condition not met within \(seconds) s") }
            usleep(20_000)
        }
    }

    /// True once the peer closes `fd` (end of stream or reset) within `seconds`; bytes arriving meanwhile are read
    /// and dropped.
    static func peerCloses(_ fd: Int32, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return false }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { return true }
        }
    }
}
