import Glibc

/// The parent side of `--workers W`: re-executes this program W times with `--worker-index i` appended to the same
/// arguments, reads each worker's JSON lines from a pipe on its stdout (stderr is shared with ours), and merges
/// their progress and final `LoadStats`. Main thread only.
final class WorkerPool: LoadSource {
    private struct Worker {
        var pid: pid_t
        var fd: Int32
        var buffer: [UInt8] = []
        var progress = ProgressSnapshot()
        var result: LoadStats?
        var failure: String?
        var exited = false
    }

    private let arguments: [String]
    private let count: Int
    private var workers: [Worker] = []

    /// `arguments` are the command-line arguments after the program name (subcommand first).
    init(arguments: [String], count: Int) {
        self.arguments = arguments
        self.count = count
    }

    func start() throws(LoadTestError) {
        let executable = Self.ownExecutable()
        for index in 0..<count {
            var pipeFDs: [Int32] = [0, 0]
            guard pipe(&pipeFDs) == 0 else { throw .runtime("pipe failed for worker \(index)") }
            // Close-on-exec, so later workers do not inherit this pipe and keep it open (no EOF); dup2 onto the
            // worker's stdout clears the flag there.
            _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
            let argv = [executable] + arguments + ["--worker-index", String(index)]
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
            var cArgs = argv.map { strdup($0) } + [nil]
            var pid = pid_t()
            let rc = posix_spawn(&pid, executable, &actions, nil, &cArgs, environ)
            posix_spawn_file_actions_destroy(&actions)
            for pointer in cArgs { free(pointer) }
            close(pipeFDs[1])
            guard rc == 0 else {
                close(pipeFDs[0])
                throw .runtime("cannot start worker \(index) (\(executable)): errno \(rc)")
            }
            _ = fcntlNonBlocking(pipeFDs[0])
            workers.append(Worker(pid: pid, fd: pipeFDs[0]))
        }
    }

    func poll() -> ProgressSnapshot {
        for index in workers.indices { drain(&workers[index]) }
        return workers.reduce(ProgressSnapshot()) { total, worker in
            var progress = worker.progress
            progress.finished = worker.exited ? 1 : 0
            return total + progress
        }
    }

    var isFinished: Bool {
        workers.allSatisfy(\.exited)
    }

    func finish() throws(LoadTestError) -> LoadStats {
        var merged = LoadStats()
        for index in workers.indices {
            if !workers[index].exited {
                kill(workers[index].pid, SIGTERM)
                while !workers[index].exited { drain(&workers[index]); MonotonicClock.sleep(nanoseconds: 10_000_000) }
            }
            let worker = workers[index]
            if let failure = worker.failure {
                throw .runtime(failure)
            }
            guard let result = worker.result else {
                merged.count(error: "worker_died")
                continue
            }
            merged.merge(result)
        }
        return merged
    }

    /// Reads what the worker wrote, handles complete lines, and reaps it at end of file.
    private func drain(_ worker: inout Worker) {
        guard !worker.exited else { return }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(worker.fd, $0.baseAddress, $0.count) }
            if n > 0 {
                worker.buffer.append(contentsOf: chunk[0..<n])
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n == 0 {
                close(worker.fd)
                var status: Int32 = 0
                waitpid(worker.pid, &status, 0)
                worker.exited = true
            }
            break
        }
        while let newline = worker.buffer.firstIndex(of: 0x0A) {
            let line = worker.buffer[..<newline]
            switch WorkerMessage.decode(line: line) {
            case .progress(let progress): worker.progress = progress
            case .result(let stats): worker.result = stats
            case .failure(let message): worker.failure = message
            case nil: break  // not ours (a stray print); ignore rather than fail the run
            }
            worker.buffer.removeFirst(newline + 1)
        }
    }

    /// This program's path, so workers run exactly the same binary.
    private static func ownExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func fcntlNonBlocking(_ fd: Int32) -> Int32 {
        let flags = fcntl(fd, F_GETFL)
        return fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }
}
