import Synchronization

/// A Prometheus histogram with fixed bucket bounds. Observing is lock-free and allocation-free (one bucket search over
/// a handful of bounds and two relaxed atomic adds), so it can sit on a hot path; rendering reads the cells from any
/// thread. A scrape racing an observation may see the bucket before the sum: harmless for rates over scrapes.
///
/// Values are observed as integers in `unitsPerSecond` (microseconds for latencies measured on a monotonic clock,
/// milliseconds for the domain's wall clock) and rendered in seconds, as Prometheus names them.
public final class Histogram: Sendable {
    /// Upper bounds, in seconds, ascending (the implicit `+Inf` bucket is not listed).
    public let bounds: [Double]
    public let unitsPerSecond: Int
    private let limits: [Int]
    /// One cell per bound plus `+Inf`; not cumulative (made cumulative when rendered).
    private let cells: [Cell]
    private let sum = Cell()

    public init(bounds: [Double], unitsPerSecond: Int) {
        precondition(!bounds.isEmpty && zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "bounds must ascend")
        self.bounds = bounds
        self.unitsPerSecond = unitsPerSecond
        limits = bounds.map { Int(($0 * Double(unitsPerSecond)).rounded()) }
        cells = (0...bounds.count).map { _ in Cell() }
    }

    /// Records one value (negative values, from a clock step, count as 0).
    @inline(__always)
    public func observe(_ value: Int) {
        let v = max(0, value)
        var i = 0
        while i < limits.count && v > limits[i] { i += 1 }
        cells[i].value.add(1, ordering: .relaxed)
        sum.value.add(v, ordering: .relaxed)
    }

    /// Observations so far.
    public var count: Int { cells.reduce(0) { $0 + $1.value.load(ordering: .relaxed) } }

    /// Cumulative counts per bound (the last is `+Inf`, i.e. `count`) and the sum in units.
    public func snapshot() -> (cumulative: [Int], sum: Int) {
        var running = 0
        let cumulative = cells.map { cell in
            running += cell.value.load(ordering: .relaxed)
            return running
        }
        return (cumulative, sum.value.load(ordering: .relaxed))
    }

    /// The latency bounds used for commit and delivery latencies: 0.5 ms to 10 s.
    public static let latencyBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
}

/// A counter cell on its own heap object, so a fixed array of them can be shared (Atomic is not copyable).
final class Cell: Sendable {
    let value = Atomic<Int>(0)
}

/// A monotonically increasing count (Prometheus `counter`): a relaxed atomic add, from any thread.
public final class Counter: Sendable {
    private let cell = Cell()
    public init() {}
    @inline(__always)
    public func increment(by n: Int = 1) { cell.value.add(n, ordering: .relaxed) }
    public var value: Int { cell.value.load(ordering: .relaxed) }
}
