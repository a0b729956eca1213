import Metrics
import Synchronization

/// Counters of the hub, written on the hub thread (relaxed atomics) and read by `/metrics` from any thread.
public final class GatewayMetrics: Sendable {
    public let eventsCommitted = Atomic<Int>(0)
    public let commitFailures = Atomic<Int>(0)
    public let connectedDevices = Atomic<Int>(0)
    public let onlineUsers = Atomic<Int>(0)
    public let pendingApprovals = Atomic<Int>(0)
    public let approvalsResolved = Atomic<Int>(0)
    public let approvalsTimedOut = Atomic<Int>(0)
    public let messagesSent = Atomic<Int>(0)
    public let commands = Atomic<Int>(0)
    public let commandErrors = Atomic<Int>(0)
    /// Commits handed to (or waiting for) the store whose result has not come back yet.
    public let commitsInFlight = Atomic<Int>(0)
    /// Commands the hub started and has not answered yet (store reads and commits in progress).
    public let commandsInFlight = Atomic<Int>(0)
    /// Commands refused with `overloaded` before reaching the hub.
    public let commandsRefused = Atomic<Int>(0)
    /// A batch handed to the store until the hub learns it is durable (µs): batching wait, the transaction, the hop back.
    public let commitSeconds = Histogram(bounds: Histogram.latencyBounds, unitsPerSecond: 1_000_000)
    /// An approval's creation until a device's answer is stored (ms, the hub's clock); timeouts are not in it.
    public let approvalAnswerSeconds = Histogram(bounds: [0.5, 1, 2.5, 5, 10, 15, 30, 60, 120, 300, 600], unitsPerSecond: 1_000)
    /// Resumes answered (`resume` events sent), and those of them that said `recovered: false`.
    public let resumes = Counter()
    public let resumesUnrecovered = Counter()
    /// Cross-node delivery: notices heard on the cluster bus, re-reads done while it was down, and whether it is up.
    public let clusterNotices = Counter()
    public let clusterRechecks = Counter()
    public let clusterBusUp = Atomic<Int>(0)
    /// Users loaded on demand (GatewayHub+Loading): users read from the store, change notices heard from other nodes,
    /// idle users forgotten.
    public let userReads = Atomic<Int>(0)
    public let userChangeNotices = Counter()
    public let usersEvicted = Atomic<Int>(0)
    /// Background presence pushes this node did not send because another node claimed them (sent them) first.
    public let presencePushesClaimedElsewhere = Counter()

    public init() {}

    /// Prometheus text exposition of these counters.
    public func render() -> String {
        let rows: [(String, String, String, Int)] = [
            ("switchboard_gateway_events_committed_total", "counter", "Events appended to users' durable logs.", eventsCommitted.load(ordering: .relaxed)),
            ("switchboard_gateway_commit_failures_total", "counter", "Store batches that failed (their changes were not delivered).", commitFailures.load(ordering: .relaxed)),
            ("switchboard_gateway_connected_devices", "gauge", "Authenticated devices connected to this node.", connectedDevices.load(ordering: .relaxed)),
            ("switchboard_gateway_online_users", "gauge", "Users with at least one connected device.", onlineUsers.load(ordering: .relaxed)),
            ("switchboard_gateway_pending_approvals", "gauge", "Approval requests waiting for an answer.", pendingApprovals.load(ordering: .relaxed)),
            ("switchboard_gateway_approvals_resolved_total", "counter", "Approval requests answered by a device.", approvalsResolved.load(ordering: .relaxed)),
            ("switchboard_gateway_approvals_timed_out_total", "counter", "Approval requests that timed out without an answer (missed approvals).", approvalsTimedOut.load(ordering: .relaxed)),
            ("switchboard_gateway_messages_sent_total", "counter", "Direct messages stored and delivered.", messagesSent.load(ordering: .relaxed)),
            ("switchboard_gateway_commands_total", "counter", "Client commands handled.", commands.load(ordering: .relaxed)),
            ("switchboard_gateway_command_errors_total", "counter", "Client commands answered with an error.", commandErrors.load(ordering: .relaxed)),
            ("switchboard_gateway_commits_in_flight", "gauge", "Store batches not yet reported durable.", commitsInFlight.load(ordering: .relaxed)),
            ("switchboard_gateway_commands_in_flight", "gauge", "Commands started by the hub and not yet answered.", commandsInFlight.load(ordering: .relaxed)),
            ("switchboard_gateway_commands_refused_total", "counter", "Commands refused with overloaded (the node was at its queue bound).", commandsRefused.load(ordering: .relaxed)),
        ]
        var out = PrometheusText()
        for row in rows { out.single(row.0, row.1, row.2, row.3) }
        out.single("switchboard_gateway_resumes_total", "counter", "Resumes answered (a resume event sent to a reconnecting device).",
                   resumes.value)
        out.single("switchboard_gateway_resumes_unrecovered_total", "counter",
                   "Resumes that answered recovered:false (missed events no longer all available); recovery rate = 1 - this / resumes.",
                   resumesUnrecovered.value)
        out.single("switchboard_cluster_notices_total", "counter", "Notices (a user's log grew) heard on the cluster bus.", clusterNotices.value)
        out.single("switchboard_cluster_rechecks_total", "counter",
                   "Re-reads of every connected user's log because the cluster bus was down.", clusterRechecks.value)
        out.single("switchboard_cluster_bus_up", "gauge", "1 while the cluster bus (Redis) delivers notices to this node.",
                   clusterBusUp.load(ordering: .relaxed))
        out.single("switchboard_gateway_user_reads_total", "counter",
                   "Users' records read from the store because this node did not hold a user it needed.", userReads.load(ordering: .relaxed))
        out.single("switchboard_cluster_user_changes_total", "counter",
                   "Notices from other nodes that a user's records changed (a held user is then forgotten or read again).", userChangeNotices.value)
        out.single("switchboard_gateway_users_evicted_total", "counter",
                   "Idle users forgotten because more than the cache bound were held.", usersEvicted.load(ordering: .relaxed))
        out.single("switchboard_cluster_presence_pushes_claimed_elsewhere_total", "counter",
                   "Background presence pushes not sent here because another node claimed them first.",
                   presencePushesClaimedElsewhere.value)
        out.histogram("switchboard_gateway_commit_seconds", "Store batches, from queued by the hub to reported durable to it.", commitSeconds)
        out.histogram("switchboard_gateway_approval_answer_seconds", "Approval requests, from created to a device's answer stored.",
                      approvalAnswerSeconds)
        return out.text
    }
}
