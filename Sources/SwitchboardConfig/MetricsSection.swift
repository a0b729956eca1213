/// The `[metrics]` section: the gateway's metrics endpoint.
public struct MetricsSection: Sendable, Equatable {
    /// `metrics.enabled`: serve the metrics endpoint (path and format are the server's choice).
    public var enabled: Bool = true

    /// The embedded defaults.
    public init() {}
}
