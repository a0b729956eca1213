import Glibc
import Metrics
import Storage

extension GatewayRuntime {
    /// Event delivery latency (summed over the I/O loops), outbox depth and database size, read at scrape time.
    static func storageAndDeliveryMetrics(store: any DurableGatewayStore, endpoint: GatewayEndpoint) -> String {
        var out = PrometheusText()
        out.histogram("switchboard_gateway_event_delivery_seconds",
                      "Committed events, from the hub learning they are durable to queued on the device's socket (written before the loop sleeps).",
                      series: [("", endpoint.deliveryHistograms)])
        if let depth = try? store.pendingPushJobs() {
            out.single("switchboard_push_outbox_depth", "gauge", "Push jobs waiting to be sent (due or backing off).", depth)
        }
        if let (depth, oldest) = try? store.pendingBackendWebhooks() {
            out.single("switchboard_backend_webhook_outbox_depth", "gauge",
                       "Backend webhook jobs (approvals, invites, presence) waiting to be sent, due or backing off; counted in the push outbox depth too.",
                       depth)
            // Unix ms against the wall clock the jobs were stamped with; 0 with nothing pending.
            let age = oldest.map { max(0, Int(time(nil)) * 1_000 - Int($0)) / 1_000 } ?? 0
            out.single("switchboard_backend_webhook_oldest_pending_seconds", "gauge",
                       "Age of the oldest backend webhook job still waiting to be sent (0 when none): how far behind the backend is.", age)
        }
        out.single("switchboard_gateway_replay_backlog_bytes", "gauge",
                   "Bytes of resume replays (the part being sent) and of frames waiting behind them, held for sockets beyond their outbound queues.",
                   endpoint.replayBacklogBytes.load(ordering: .relaxed))
        out.single("switchboard_store_database_bytes", "gauge", "The database's size in bytes (SQLite: the file plus its write-ahead log; PostgreSQL: pg_database_size).",
                   store.databaseBytes())
        return out.text
    }
}
