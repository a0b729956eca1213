import Foundation

/// A real `redis-server` for one test: its own temp directory, a unix socket there and no TCP port (so parallel tests
/// never collide), no persistence. Stopped (SIGTERM, then waited for) and its directory removed on `stop()` or deinit.
public final class RedisServer: @unchecked Sendable {   // immutable after init, except `stopped` under `lock`
    public let directory: String
    /// The socket clients connect to.
    public let socketPath: String
    private var pid: pid_t = 0
    private let lock = NSLock()
    private var stopped = false

    /// Starts the server and returns once it accepts connections (`ready` is polled by connecting, at most 10 s).
    /// Spawned with posix_spawn and reaped with waitpid here, so `stop()` knows the process is gone. `existing`:
    /// restart on the socket of a server stopped with `stop(keepingDirectory: true)`; a fresh directory when nil.
    public init(reusing existing: String? = nil, ready: (String) -> Bool) throws {
        self.directory = existing ?? FileManager.default.temporaryDirectory.appendingPathComponent("redis-\(UUID().uuidString.prefix(8))").path
        socketPath = directory + "/redis.sock"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let arguments = ["/usr/bin/redis-server", "--port", "0", "--unixsocket", socketPath, "--unixsocketperm", "700",
                         "--save", "", "--appendonly", "no", "--dir", directory, "--logfile", directory + "/redis.log"]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let rc = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard rc == 0 else { throw PostgresClusterError(description: "cannot start redis-server: errno \(rc)") }
        let deadline = Date().addingTimeInterval(10)
        while !ready(socketPath) {
            var status: Int32 = 0
            let exited = waitpid(pid, &status, WNOHANG) == pid
            guard !exited, Date() < deadline else {
                if exited { pid = 0 }
                let log = (try? String(contentsOfFile: directory + "/redis.log", encoding: .utf8)) ?? ""
                stop()
                throw PostgresClusterError(description: "redis-server did not start: \(log.split(separator: "\n").suffix(3).joined(separator: " | "))")
            }
            usleep(10_000)
        }
    }

    deinit { stop() }

    /// Stops the server (SIGKILL: it keeps nothing, and a child spawned from a test thread inherits that thread's
    /// blocked signals, SIGTERM among them), waits for it, and removes its directory unless `keepingDirectory`
    /// (a server started on it again serves the same socket path). Idempotent.
    public func stop(keepingDirectory: Bool = false) {
        let first = lock.withLock { () -> Bool in defer { stopped = true }; return !stopped }
        guard first else { return }
        if pid > 0 {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
        if !keepingDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }
}
