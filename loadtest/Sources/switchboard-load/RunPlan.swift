/// What one loop driver must do: its share of the connections and of the connect rate, and the phase lengths.
/// Immutable and `Sendable`: built on the main thread, handed to a loop.
struct RunPlan: Sendable {
    let scenario: any Scenario
    let settings: ClientSettings
    /// Connections this loop opens.
    let connections: Int
    /// Connects per second this loop starts (its share of `--rate`).
    let connectsPerSecond: Double
    /// Hold/measure phase after the ramp, in milliseconds (`--duration`).
    let holdMilliseconds: UInt64
    /// How long the drain phase waits for in-flight messages before counting them lost.
    let drainTimeoutMilliseconds: UInt64
    /// Global index of this loop's first connection (across workers and loops), so source addresses rotate evenly.
    let firstConnectionIndex: Int
    /// Seed for masking keys and handshake nonces (differs per loop and worker).
    let seed: UInt64
    /// Most connection attempts of this loop in flight at once (its share of `--in-flight`); 0 = no cap.
    var maxInFlight = 0

    /// Splits `total` into `parts` nearly equal shares (the first ones get the remainder).
    static func share(of total: Int, part: Int, parts: Int) -> (count: Int, offset: Int) {
        let base = total / parts
        let extra = total % parts
        let count = base + (part < extra ? 1 : 0)
        let offset = part * base + min(part, extra)
        return (count, offset)
    }
}
