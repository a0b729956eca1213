import Metrics

/// How long pushes took to reach their provider, by provider, and how many were given up (dead letters).
///
/// Latency runs from the job's creation (committed with its event) to the provider accepting it, retries included:
/// what a user waits for a notification. The 5 s bucket gives the share of pushes under 5 s
/// (`…_bucket{le="5"} / …_count`), the apps' own measure.
final class PushLatencyMetrics: Sendable {
    static let providers = ["apns", "fcm", "webhook"]
    static let bounds: [Double] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]
    private let byProvider: [String: Histogram]
    /// Jobs that will never be sent (retries exhausted, token invalid with no fallback, request refused).
    let deadLetters = Counter()

    init() {
        byProvider = Dictionary(uniqueKeysWithValues: Self.providers.map { ($0, Histogram(bounds: Self.bounds, unitsPerSecond: 1_000)) })
    }

    /// A delivered job, `afterMs` after it was created (the hub's wall clock, in ms).
    func delivered(provider: String, afterMs: Int64) {
        byProvider[provider]?.observe(Int(afterMs))
    }

    func render() -> String {
        var out = PrometheusText()
        out.histogram("switchboard_push_delivery_seconds",
                      "Push jobs, from created (with their event) to accepted by the provider, retries included, by provider.",
                      series: Self.providers.map { ("provider=\"\($0)\"", [byProvider[$0]!]) })
        out.single("switchboard_push_dead_letters_total", "counter",
                   "Push jobs given up (retries exhausted, invalid token without fallback, refused by the provider).", deadLetters.value)
        return out.text
    }
}
