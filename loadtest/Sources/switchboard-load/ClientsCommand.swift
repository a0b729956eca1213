import ArgumentParser
import EventLoop
import Foundation
import Glibc

/// `clients`: the Swift client library (`SwitchboardClient`) under load, with connections cut on purpose.
struct ClientsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients",
        abstract: "SwitchboardClient instances messaging their partners while their connections are cut.",
        discussion: """
            --clients/2 pairs of users are made contacts through the server API; each user runs one \
            SwitchboardClient (the library apps use: queue, resends with clientMessageId, backoff, resume, acks) \
            and sends --messages numbered messages to its partner, one every --send-interval s. With --cut-every S \
            every client's connection is dropped every S s (staggered), as a lost network would drop it. Verified: \
            every accepted message reaches the partner exactly once and in order; exit status 1 otherwise. Prints \
            one summary line (and JSON with --json).
            Example: switchboard-load clients --url ws://127.0.0.1:7420/v1/ws --jwt-secret S --api-key K \
            --clients 20 --messages 100 --cut-every 0.5
            """)

    @Option(help: "The gateway's WebSocket endpoint: ws://host:port/v1/ws (wss:// needs --api-url, and a certificate the system CA store trusts).")
    var url = "ws://127.0.0.1:7420/v1/ws"

    @OptionGroup var gateway: GatewayOptions

    @Option(help: "Clients (users) in total; an even number, two per pair.")
    var clients = 20

    @Option(help: "Messages each client sends to its partner.")
    var messages = 50

    @Option(help: "Seconds between one client's sends.")
    var sendInterval = 0.01

    @Option(help: "Seconds between cuts of each client's connection (default: never cut).")
    var cutEvery: Double?

    @Option(help: "Seconds to wait after the last send for outstanding deliveries before counting them lost.")
    var drainTimeout = 10.0

    @Option(help: "Write the figures as JSON to this file.")
    var json: String?

    func validate() throws {
        guard clients >= 2, clients % 2 == 0, clients <= 10_000 else { throw ValidationError("--clients must be even, 2 … 10000") }
        guard messages >= 1 else { throw ValidationError("--messages must be at least 1") }
        guard sendInterval >= 0, drainTimeout >= 0 else { throw ValidationError("--send-interval and --drain-timeout must not be negative") }
        if let cutEvery, cutEvery < 0.05 { throw ValidationError("--cut-every must be at least 0.05 s") }
    }

    func run() throws {
        let common = try CommonOptions.parse(["--url", url])
        let environment = try GatewayEnvironment(options: gateway, common: common)
        let users = (0..<clients).map { "\(environment.runID)-c\($0)" }
        try Self.makeContacts(users, environment: environment)
        let minter = environment.minter
        let load = ClientsLoad(
            settings: .init(url: url, pairs: clients / 2, messagesPerClient: messages, sendInterval: sendInterval,
                            cutEvery: cutEvery, drainTimeout: drainTimeout),
            token: { minter.token(userId: $0, deviceId: "\($0)-dev", clientType: "ios") },
            users: users)
        let result = Self.wait { await load.run() }
        print(Self.summary(result))
        if let json { try Self.json(result).write(toFile: json, atomically: true, encoding: .utf8) }
        if !result.passed { throw ExitCode(1) }
    }

    /// Creates the users and makes each pair (0–1, 2–3 …) contacts through the server API.
    static func makeContacts(_ users: [String], environment: GatewayEnvironment) throws {
        let api = APIClient(address: environment.apiAddress, hostHeader: environment.apiHostHeader, apiKey: environment.apiKey)
        func call(_ path: String, _ body: String) throws {
            let response: APIClient.Response
            do { response = try api.send("POST", path, json: body) } catch { throw LoadTestError.usage("server API \(path): \(error.kind)") }
            guard response.status == 200 else {
                throw LoadTestError.usage("server API \(path) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
            }
        }
        for user in users { try call("/v1/users", #"{"userId":"\#(user)"}"#) }
        for pair in stride(from: 0, to: users.count, by: 2) {
            try call("/v1/contacts", #"{"userA":"\#(users[pair])","userB":"\#(users[pair + 1])"}"#)
        }
    }

    /// Runs async work from this synchronous command and waits for it.
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Task {
            box.value = await work()
            done.signal()
        }
        done.wait()
        return box.value!
    }

    static func summary(_ r: ClientsLoad.Result) -> String {
        "clients: \(r.clients) clients, \(r.sent) sent, \(r.delivered) delivered, \(r.lost) lost, "
            + "\(r.duplicatedOrReordered) duplicated or reordered, \(r.failedSends) failed sends, \(r.cuts) cuts, "
            + "\(r.reconnects) reconnects in \(String(format: "%.1f", r.seconds)) s — \(r.passed ? "passed" : "FAILED")"
    }

    static func json(_ r: ClientsLoad.Result) -> String {
        #"{"scenario":"clients","clients":\#(r.clients),"sent":\#(r.sent),"delivered":\#(r.delivered),"lost":\#(r.lost),"#
            + #""duplicatedOrReordered":\#(r.duplicatedOrReordered),"failedSends":\#(r.failedSends),"cuts":\#(r.cuts),"#
            + #""reconnects":\#(r.reconnects),"seconds":\#(r.seconds),"passed":\#(r.passed)}"# + "\n"
    }
}

/// Carries the result out of the task to the waiting thread.
/// `@unchecked Sendable`: written once before the semaphore is signalled, read once after it.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
