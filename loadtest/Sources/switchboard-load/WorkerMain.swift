import Glibc

/// The worker side of `--workers`: this process was re-executed by the parent with `--worker-index i`. It runs its
/// share of the connections on its own loops and reports to the parent over stdout as JSON lines (`WorkerMessage`);
/// it never prints the human report and never writes report files. Main thread only.
enum WorkerMain {
    /// Runs worker `index` of `options.workers`; returns when its loops are done.
    static func run(index: Int, options: CommonOptions, scenario: any Scenario, settings: ClientSettings) {
        // The parent going away must end the worker, not kill it mid-write with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let share = RunPlan.share(of: options.connections, part: index, parts: options.workers)
        do {
            try ResourceLimits.ensureDescriptors(for: share.count, workers: options.workers)
        } catch {
            emit(.failure("worker \(index): \(error)"))
            return
        }
        let load = InProcessLoad(
            scenario: scenario, settings: settings, connections: share.count,
            connectsPerSecond: options.rate * Double(share.count) / Double(options.connections), loops: options.loops,
            holdSeconds: options.duration, drainTimeoutSeconds: options.drainTimeout,
            firstConnectionIndex: share.offset, seed: 0xC0FF_EE00 &+ UInt64(index) &* 0x1_0000_0001,
            maxInFlight: options.inFlight == 0
                ? 0 : max(1, RunPlan.share(of: options.inFlight, part: index, parts: options.workers).count))
        do {
            try load.start()
        } catch {
            emit(.failure("worker \(index): \(error)"))
            return
        }
        while !load.isFinished {
            MonotonicClock.sleep(nanoseconds: 250_000_000)
            guard emit(.progress(load.poll())) else { break }  // parent gone: stop early
        }
        do {
            emit(.result(try load.finish()))
        } catch {
            emit(.failure("worker \(index): \(error)"))
        }
    }

    /// Writes one message line to stdout; false when the parent no longer reads.
    @discardableResult
    private static func emit(_ message: WorkerMessage) -> Bool {
        let line = message.encodedLine()
        var written = 0
        while written < line.count {
            let n = line[written...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            written += n
        }
        return true
    }
}
