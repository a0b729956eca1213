import EventLoop
import Foundation
import Glibc
import SwitchboardClient
import Testing
import TestSupport
@testable import switchboard_load

/// The `clients` scenario: `SwitchboardClient`s against the real `switchboard` executable with their connections cut,
/// and its verifier on hand-made deliveries (so a loss or a duplicate cannot pass).
@Suite struct ClientsScenarioTests {
    @Test(.timeLimit(.minutes(1))) func clientsWithCutConnectionsDeliverEveryMessageOnce() async throws {
        let gateway = try GatewayExecutable()
        defer { gateway.stop() }
        let result = try await Self.run(
            on: gateway,
            .init(
                url: gateway.url, pairs: 3, messagesPerClient: 40, sendInterval: 0.01, cutEvery: 0.15, drainTimeout: 15)
        )
        #expect(result.clients == 6)
        #expect(result.sent == 240 && result.failedSends == 0)
        #expect(result.delivered == 240)
        #expect(result.lost == 0 && result.duplicatedOrReordered == 0)
        #expect(result.cuts > 0 && result.reconnects > 0, "the connections must have been cut: \(result)")
        #expect(result.passed)
        #expect(ClientsCommand.summary(result).hasSuffix("passed"))
    }

    @Test(.timeLimit(.minutes(1))) func pipelinedClientsWithCutConnectionsDeliverEveryMessageOnceInOrder() async throws
    {
        let gateway = try GatewayExecutable()
        defer { gateway.stop() }
        let result = try await Self.run(
            on: gateway,
            .init(
                url: gateway.url, pairs: 2, messagesPerClient: 150, sendInterval: 0, cutEvery: 0.2, drainTimeout: 15,
                window: 16))
        #expect(result.sent == 600 && result.failedSends == 0)
        #expect(result.delivered == 600 && result.lost == 0 && result.duplicatedOrReordered == 0)
        #expect(result.events >= 600, "each message reaches the recipient and the sender's own device: \(result)")
        #expect(result.cuts > 0 && result.reconnects > 0, "the connections must have been cut: \(result)")
        #expect(result.passed)
    }

    /// Makes `settings.pairs` pairs of contacts on `gateway` and runs the scenario against it.
    static func run(on gateway: GatewayExecutable, _ settings: ClientsLoad.Settings) async throws -> ClientsLoad.Result
    {
        let environment = try GatewayEnvironment(
            options: GatewayOptions.parse([
                "--jwt-secret", GatewayExecutable.secret, "--api-key", GatewayExecutable.apiKey
            ]),
            common: CommonOptions.parse(["--url", gateway.url]))
        let users = (0..<settings.pairs * 2).map { "\(environment.runID)-c\($0)" }
        try ClientsCommand.makeContacts(users, environment: environment)
        let minter = environment.minter
        return await ClientsLoad(
            settings: settings, token: { minter.token(userId: $0, deviceId: "\($0)-dev", clientType: "ios") },
            users: users
        ).run()
    }

    @Test func theVerifierCountsLossesAndDuplicates() {
        let device = ClientsLoad.Device(user: "a", partner: "b")
        func message(_ text: String, from: String = "b") -> ClientEvent {
            .message(MessageData(messageId: 1, from: from, to: "a", text: text, sentAt: 0, fromDisplayName: nil))
        }
        for text in ["1", "2", "2", "4", "1"] { device.handle(message(text)) }
        device.handle(message("3", from: "c"))  // not the partner: ignored
        var result = ClientsLoad.Result(clients: 1, sent: 6)
        device.add(to: &result, expected: Set(1...6), retried: [])
        #expect(result.delivered == 3)  // 1, 2, 4
        #expect(result.duplicatedOrReordered == 2)  // the second 2, the late 1
        #expect(result.lost == 3)  // 3 skipped, 5 and 6 never came
        #expect(!result.passed)
        #expect(result.events == 6)  // every message event, the unrelated one too
    }

    @Test func onlyARetriedNumberMayArriveLate() {
        // 3 was refused retryably and sent again: it may land after 4 and 5.
        let retriedLate = PipelinedDeliveryCheck(received: [1, 2, 4, 5, 3, 6], accepted: Set(1...6), retried: [3])
        #expect(retriedLate.delivered == 6 && retriedLate.lost == 0 && retriedLate.duplicatedOrReordered == 0)
        #expect(retriedLate.firstOutOfOrder == nil && retriedLate.firstMissing == nil)
        // 3 was not retried: arriving after 4 is a reordering; 5 twice is a duplicate; 6 never came.
        let broken = PipelinedDeliveryCheck(received: [1, 2, 4, 3, 5, 5], accepted: Set(1...6), retried: [])
        #expect(
            broken.delivered == 5 && broken.duplicatedOrReordered == 2 && broken.lost == 1 && broken.firstMissing == 6)
        #expect(broken.firstOutOfOrder?.number == 3 && broken.firstOutOfOrder?.after == 4)
        // A number never accepted (refused for good, its commit's reply lost) may arrive; it is not counted delivered.
        let extra = PipelinedDeliveryCheck(received: [1, 2, 3], accepted: [1, 2], retried: [])
        #expect(extra.delivered == 2 && extra.lost == 0 && extra.duplicatedOrReordered == 0)
    }
}

/// `switchboard serve` (built beside this test binary) with a fresh database, on a free loopback port.
struct GatewayExecutable {
    static let secret = "clients-scenario-secret-0123456789"
    static let apiKey = "clients-scenario-api-key-0123456789"
    let process: Process
    let port: UInt16
    let directory: String
    var url: String { "ws://127.0.0.1:\(port)/v1/ws" }

    /// `extraSections`: whole TOML sections appended to the configuration (e.g. `[push]` for a push receiver).
    init(extraSections: String = "") throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: SwitchboardServe.executable),
            "build the switchboard executable first")
        directory = NSTemporaryDirectory() + "clients-scenario-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try freeLoopbackPort()
        process = try SwitchboardServe.start(
            directory: directory, port: port, secret: Self.secret, apiKey: Self.apiKey, extraSections: extraSections)
        let address = try SocketAddress.resolve(host: "127.0.0.1", port: port)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let api = APIClient(
                address: address, hostHeader: "127.0.0.1:\(port)", apiKey: Self.apiKey, timeoutSeconds: 1)
            if let ready = try? api.send("GET", "/readyz"), ready.status == 200 { return }
            guard process.isRunning else {
                throw LoadTestError.usage("switchboard exited with \(process.terminationStatus)")
            }
            usleep(20_000)
        }
        stop()
        throw LoadTestError.usage("switchboard did not answer /readyz within 10 s")
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
