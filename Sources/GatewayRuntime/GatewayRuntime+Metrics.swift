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
        out.single("switchboard_store_database_bytes", "gauge", "The database's size in bytes (SQLite: the file plus its write-ahead log; PostgreSQL: pg_database_size).",
                   store.databaseBytes())
        return out.text
    }
}
