import Foundation

/// A real PostgreSQL 15 server for tests: `initdb` in a fresh temp directory, listening only on a unix socket in that
/// directory (so no TCP port is taken and parallel test processes never collide), started and stopped with
/// `pg_ctl -w` (which itself waits until the server accepts connections, or fails). As root the server runs as the
/// `postgres` user through `runuser`, with the directory handed to that user (PostgreSQL refuses to run as root).
///
/// Tests share the process-wide `shared` cluster but never its data: each test asks for a database of its own
/// (`createDatabase()`), so parallel tests touch disjoint databases. The cluster is stopped and its directory removed
/// when the test process exits.
public final class PostgresCluster: @unchecked Sendable {   // immutable after init, except the counter under `lock`
    /// The PostgreSQL binaries (Debian's `postgresql-15`).
    public static let binaries = "/usr/lib/postgresql/15/bin"

    /// The directory holding the data directory, the socket and the server log.
    public let directory: String
    /// The socket directory (libpq's `host`).
    public let socketDirectory: String
    public let port = 5432
    private let dataDirectory: String
    private let lock = NSLock()
    private var databases = 0
    private var stopped = false

    /// One cluster for the whole test process, started on first use; throws (each time) if it could not start.
    public static func shared() throws -> PostgresCluster { try sharedCluster.get() }

    private static let sharedCluster: Result<PostgresCluster, Error> = {
        let result = Result { try PostgresCluster() }
        if case .success = result { atexit { try? PostgresCluster.sharedCluster.get().stopDetached() } }
        return result
    }()

    /// Creates and starts a new cluster (a few seconds: initdb writes the catalogue).
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString.prefix(8))").path
        dataDirectory = directory + "/data"
        socketDirectory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if Self.isRoot { try Self.run("/bin/chown", ["postgres:postgres", directory], log: nil) }
        let log = directory + "/setup.log"
        try Self.runAsPostgres(Self.binaries + "/initdb", ["-D", dataDirectory, "-U", "postgres", "-A", "trust", "-E", "UTF8",
                                                           "--no-sync", "--locale=C"], log: log)
        try startServer()
    }

    deinit { stop() }

    /// Stops the server (fast shutdown) and removes its directory. Idempotent.
    public func stop() {
        let first = lock.withLock { () -> Bool in defer { stopped = true }; return !stopped }
        guard first else { return }
        try? Self.runAsPostgres(Self.binaries + "/pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "stop"], log: nil)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// At process exit: hands the stop and the clean-up to a detached shell and returns at once. Waiting here (with
    /// Foundation's `Process`) crashed the exiting process while other threads were being torn down.
    func stopDetached() {
        let first = lock.withLock { () -> Bool in defer { stopped = true }; return !stopped }
        guard first else { return }
        let asPostgres = Self.isRoot ? "/usr/sbin/runuser -u postgres -- " : ""
        let script = "(\(asPostgres)\(Self.binaries)/pg_ctl -D '\(dataDirectory)' -m immediate -w stop; rm -rf '\(directory)') >/dev/null 2>&1"
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, 0x80)   // POSIX_SPAWN_SETSID (glibc): outlives the test process's group
        let words: [String] = ["/bin/sh", "-c", script]
        let argv = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        _ = posix_spawn(&pid, "/bin/sh", nil, &attributes, argv, environ)
    }

    /// Restarts the server (fast shutdown: every open connection is dropped) and returns once it accepts connections
    /// again. For tests that own their cluster (`PostgresCluster()`), never on `shared()`.
    public func restart() throws {
        try Self.runAsPostgres(Self.binaries + "/pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "restart"],
                               log: directory + "/setup.log")
    }

    /// Stops the server (fast shutdown: open connections are dropped) and keeps its data; `startServer()` starts it
    /// again. For tests that own their cluster, never on `shared()`.
    public func stopServer() throws {
        try Self.runAsPostgres(Self.binaries + "/pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "stop"],
                               log: directory + "/setup.log")
    }

    /// Starts a server stopped by `stopServer()` and returns once it accepts connections.
    public func startServer() throws {
        try Self.runAsPostgres(Self.binaries + "/pg_ctl", [
            "-D", dataDirectory, "-l", directory + "/server.log", "-w", "-t", "60",
            "-o", "-c listen_addresses='' -k \(socketDirectory) -p \(port) -c fsync=off -c max_connections=200", "start",
        ], log: directory + "/setup.log")
    }

    /// A libpq URL for `database` on this cluster, as the superuser `postgres`.
    public func url(database: String) -> String {
        "postgresql:///\(database)?host=\(socketDirectory)&port=\(port)&user=postgres"
    }

    /// Creates a new, empty database only the caller uses and returns its URL.
    public func createDatabase() throws -> String {
        let name = lock.withLock { () -> String in
            databases += 1
            return "test_\(getpid())_\(databases)"
        }
        try Self.run(Self.binaries + "/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url(database: "postgres"),
                                                 "-c", "CREATE DATABASE \(name)"], log: nil)
        return url(database: name)
    }

    /// The server's log so far (for a failing test's message).
    public var serverLog: String { (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? "" }

    static var isRoot: Bool { getuid() == 0 }

    /// Runs `tool` as the `postgres` user when we are root, through a shell that first closes every descriptor above
    /// 2: the server `pg_ctl` starts outlives the call and must not keep the test process's sockets or pipes open.
    private static func runAsPostgres(_ tool: String, _ arguments: [String], log: String?) throws {
        let closeInherited = "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; exec \"$@\""
        let command = (isRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [tool] + arguments
        try run("/bin/bash", ["-c", closeInherited, "bash"] + command, log: log)
    }

    /// Runs a tool to completion; a non-zero exit throws with the end of its output. Output goes to a file, not a
    /// pipe: the server started by `pg_ctl` inherits the descriptors, so a pipe would never reach end-of-file.
    private static func run(_ tool: String, _ arguments: [String], log: String?) throws {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("pg-out-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        try? output.close()
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        if let log {
            let previous = FileManager.default.contents(atPath: log) ?? Data()
            _ = FileManager.default.createFile(atPath: log, contents: previous + data)
        }
        guard process.terminationStatus == 0 else {
            let text = String(decoding: data, as: UTF8.self).split(separator: "\n").suffix(4).joined(separator: " | ")
            throw PostgresClusterError(description: "\((tool as NSString).lastPathComponent) failed (exit \(process.terminationStatus)): \(text)")
        }
    }
}

/// A step of starting or using the test cluster failed; names the tool and quotes its output.
public struct PostgresClusterError: Error, CustomStringConvertible {
    public let description: String
}

/// A path in the temp directory that nothing uses (for "nothing listens there" tests).
public struct TemporaryPath {
    public let path: String
    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID().uuidString.prefix(8))").path
    }
}
