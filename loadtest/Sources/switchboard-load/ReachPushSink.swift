import HTTP1
import JSON
import Logging
import Server
import Synchronization

/// The `reach` scenario's push receiver: an HTTP server the gateway's webhook provider (`push.webhook_url`) posts
/// every push to (docs/PUSH.md, "The webhook provider"). Each POST is answered 200 and recorded with its arrival time;
/// the workload takes the records on its loop (``take()``). Signatures are not checked: the sink is the operator's
/// own endpoint in a benchmark, and what is measured is which push arrives when.
///
/// Runs on its own loop thread; `Sendable` through the `Mutex`.
final class ReachPushSink: HTTPApplication, Sendable {
    /// One push as the webhook body describes it.
    struct Push: Equatable {
        /// The registered token (the harness registers each device's id).
        var target: String
        /// The event type (`message`, …).
        var type: String
        /// `ids.messageId` for message pushes, else `collapseId`; what the workload matches an event by.
        var key: String?
        /// `webhook-id`: the same on every retry of one push, different for every push.
        var webhookId: String
        /// `MonotonicClock.nanoseconds()` at arrival.
        var at: UInt64
    }

    private let received = Mutex<[Push]>([])
    private let unreadable = Atomic<Int>(0)

    /// Pushes whose body was not a webhook push (counted as errors by the workload).
    var unreadableCount: Int { unreadable.load(ordering: .relaxed) }

    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) -> Bool {
        guard request.head.method == "POST" else { return false }
        let at = MonotonicClock.nanoseconds()
        if case .object(let body)? = try? JSONValue.parse(request.body), let target = body["target"]?.stringValue,
            let type = body["type"]?.stringValue
        {
            var key = body["collapseId"]?.stringValue
            if case .object(let ids)? = body["ids"], let messageId = ids["messageId"]?.stringValue { key = messageId }
            let push = Push(
                target: target, type: type, key: key, webhookId: request.head.headers["webhook-id"] ?? "", at: at)
            received.withLock { $0.append(push) }
        } else {
            unreadable.add(1, ordering: .relaxed)
        }
        respond(
            HTTPResponse(
                status: 200, headers: HTTPHeaders([("content-type", "application/json")]), body: Array("{}".utf8)))
        return true
    }

    /// The pushes received since the last call, in arrival order.
    func take() -> [Push] {
        received.withLock { pushes in
            defer { pushes.removeAll(keepingCapacity: true) }
            return pushes
        }
    }

    /// Starts a one-loop HTTP server for this sink on `host:port`.
    static func start(host: String, port: UInt16) throws -> (sink: ReachPushSink, server: Server) {
        let sink = ReachPushSink()
        var settings = ServerSettings()
        settings.listen = .init(host: host, port: port)
        settings.eventLoops = 1
        settings.metricsEnabled = false
        let server = try Server(
            settings: settings, application: nil, httpApplication: sink, logger: Logger(label: "reach-push-sink"))
        try server.start()
        return (sink, server)
    }
}
