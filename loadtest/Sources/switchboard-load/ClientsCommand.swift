import ArgumentParser
import EventLoop
import Foundation
import Glibc
import JSON
import Synchronization

/// `clients`: the Swift client library (`SwitchboardClient`) under load, with connections cut on purpose.
struct ClientsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients",
        abstract: "SwitchboardClient instances messaging their partners while their connections are cut.",
        discussion: """
            --clients/2 pairs of users are made contacts through the server API; each user runs one \
            SwitchboardClient (the library apps use: queue, resends with clientMessageId, backoff, resume, acks) \
            and sends --messages numbered messages to its partner, one started every --send-interval s with at most \
            --window unanswered (pipelined in order; 1: each waits for the previous reply). With --cut-every S \
            every client's connection is dropped every S s (staggered), as a lost network would drop it. Verified: \
            every accepted message reaches the partner exactly once and in order; exit status 1 otherwise. Prints \
            one summary line (and JSON with --json). A refusal marked retryable (storage_failed, overloaded) is \
            sent again under the same clientMessageId with a backoff (50 ms doubling to 1 s, for up to --retry-for s) \
            and counted by code. For fault injection (scripts/chaos): --stop-file ends the sending when the file \
            appears, --progress writes the running figures every 100 ms, and --setup-only / --skip-setup with a \
            fixed --run-id create the users and contacts in a separate run (e.g. before a second node starts).
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

    @Option(help: "Seconds between the starts of one client's sends.")
    var sendInterval = 0.01

    @Option(help: "Sends one client may have unanswered at once (pipelined, in order; 1: each waits for the previous reply).")
    var window = 1

    @Option(help: "Seconds between cuts of each client's connection (default: never cut).")
    var cutEvery: Double?

    @Option(help: "Seconds to wait after the last send for outstanding deliveries before counting them lost.")
    var drainTimeout = 10.0

    @Option(help: "Write the figures as JSON to this file.")
    var json: String?

    @Option(help: "Stop sending once this file exists (the remaining messages are not sent).")
    var stopFile: String?

    @Option(help: "Append a JSON line of running figures to this file every 100 ms (Unix time t, acknowledged, delivered, connected, errors, partnerOffline).")
    var progress: String?

    @Option(help: "Seconds one message is retried after retryable refusals (storage_failed, overloaded) before it counts as failed.")
    var retryFor = 60.0

    @Option(help: "The users' id prefix (default: a fresh one per run); the same in a --setup-only run and the --skip-setup run after it.")
    var runId: String?

    @Flag(help: "Only create the users and make them contacts, then exit.")
    var setupOnly = false

    @Flag(help: "Do not create users or contacts: a --setup-only run with the same --run-id did.")
    var skipSetup = false

    func validate() throws {
        guard clients >= 2, clients % 2 == 0, clients <= 10_000 else { throw ValidationError("--clients must be even, 2 … 10000") }
        guard messages >= 1 else { throw ValidationError("--messages must be at least 1") }
        guard sendInterval >= 0, drainTimeout >= 0 else { throw ValidationError("--send-interval and --drain-timeout must not be negative") }
        if let cutEvery, cutEvery < 0.05 { throw ValidationError("--cut-every must be at least 0.05 s") }
        guard (1...256).contains(window) else { throw ValidationError("--window must be 1 … 256") }
        guard retryFor >= 0 else { throw ValidationError("--retry-for must not be negative") }
        guard !(setupOnly && skipSetup) else { throw ValidationError("--setup-only and --skip-setup exclude each other") }
        if skipSetup && runId == nil { throw ValidationError("--skip-setup needs the --run-id of the --setup-only run") }
    }

    func run() throws {
        let common = try CommonOptions.parse(["--url", url])
        let environment = try GatewayEnvironment(options: gateway, common: common)
        let users = (0..<clients).map { "\(runId ?? environment.runID)-c\($0)" }
        if !skipSetup { try Self.makeContacts(users, environment: environment) }
        if setupOnly { return print("clients: \(users.count) users made contacts in pairs (run id \(runId ?? environment.runID))") }
        let minter = environment.minter
        let load = ClientsLoad(
            settings: .init(url: url, pairs: clients / 2, messagesPerClient: messages, sendInterval: sendInterval,
                            cutEvery: cutEvery, drainTimeout: drainTimeout, stopFile: stopFile, progressFile: progress,
                            retryFor: retryFor, window: window),
            token: { minter.token(userId: $0, deviceId: "\($0)-dev", clientType: "ios") },
            users: users)
        let result = Self.wait { await load.run() }
        print(Self.summary(result))
        for line in result.lossDetails.prefix(20) { print("clients: lost: \(line)") }
        for line in result.orderDetails.prefix(20) { print("clients: out of order: \(line)") }
        for (reason, count) in result.refusalReasons.sorted(by: { $0.value > $1.value }).prefix(10) { print("clients: refused \(count)×: \(reason)") }
        if let json { try Self.json(result).write(toFile: json, atomically: true, encoding: .utf8) }
        if !result.passed { throw ExitCode(1) }
    }

    /// Creates the users and makes each pair (0–1, 2–3 …) contacts through the server API.
    static func makeContacts(_ users: [String], environment: GatewayEnvironment) throws {
        let api = APIClient(address: environment.apiAddress, hostHeader: environment.apiHostHeader, apiKey: environment.apiKey)
        func call(_ path: String, _ body: String) throws {
            let response: APIClient.Response
            do { response = try api.send("POST", path, json: body) } catch { throw LoadTestError.usage("server API \(path): \(error.kind)") }
            guard (200..<300).contains(response.status) else {   // 201 for a new user, 200 for a known one
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
            let value = await work()
            box.value.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return box.value.withLock { $0! }
    }

    static func summary(_ r: ClientsLoad.Result) -> String {
        let errors = r.errors.isEmpty ? "no refusals" : r.errors.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        return "clients: \(r.clients) clients, \(r.sent) sent, \(r.acknowledged) acknowledged, \(r.delivered) delivered (\(r.events) events), \(r.lost) lost, "
            + "\(r.duplicatedOrReordered) duplicated or reordered, \(r.failedSends) failed sends (\(errors)), \(r.cuts) cuts, "
            + "\(r.reconnects) reconnects (longest \(String(format: "%.2f", r.longestReconnect)) s), "
            + "\(r.partnerOffline) partner-offline events in \(String(format: "%.1f", r.seconds)) s — \(r.passed ? "passed" : "FAILED")"
    }

    static func json(_ r: ClientsLoad.Result) -> String {
        let errors = r.errors.sorted { $0.key < $1.key }.map { "\(JSONString.quoted($0.key)):\($0.value)" }.joined(separator: ",")
        return #"{"scenario":"clients","clients":\#(r.clients),"sent":\#(r.sent),"acknowledged":\#(r.acknowledged),"#
            + #""delivered":\#(r.delivered),"events":\#(r.events),"lost":\#(r.lost),"#
            + #""duplicatedOrReordered":\#(r.duplicatedOrReordered),"failedSends":\#(r.failedSends),"cuts":\#(r.cuts),"#
            + #""reconnects":\#(r.reconnects),"longestReconnect":\#(r.longestReconnect),"errors":{\#(errors)},"#
            + #""partnerOffline":\#(r.partnerOffline),"seconds":\#(r.seconds),"passed":\#(r.passed)}"# + "\n"
    }
}

/// Carries the result out of the task to the waiting thread.
private final class ResultBox<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
}
