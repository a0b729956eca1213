/// Where the load comes from, as the coordinator sees it: loops in this process (`InProcessLoad`) or worker
/// processes (`WorkerPool`). Used from the main thread only.
protocol LoadSource: AnyObject {
    /// Starts generating load.
    func start() throws(LoadTestError)
    /// Current totals for the progress line; cheap, call as often as needed.
    func poll() -> ProgressSnapshot
    /// True once every part has finished all its phases.
    var isFinished: Bool { get }
    /// The merged measurements; call once `isFinished` (or to give up: parts still running are stopped and the
    /// result covers what finished).
    func finish() throws(LoadTestError) -> LoadStats
}
