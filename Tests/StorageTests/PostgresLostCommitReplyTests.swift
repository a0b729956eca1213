import Foundation
import Gateway
import Synchronization
import Testing
@testable import Storage

/// A commit whose reply is lost: the link to PostgreSQL breaks after the server committed and before its answer
/// reached the node. The writer asks the server what became of the transaction (`pg_xact_status`) after
/// reconnecting, so a stored batch is reported as stored, and one whose COMMIT never arrived as failed. The link is
/// broken by a unix-socket proxy between the store and the test's real PostgreSQL.
@Suite struct PostgresLostCommitReplyTests {
    /// Forwards PostgreSQL's socket; once armed, acts on the next `COMMIT` the client sends: `.dropReply` forwards
    /// it, waits for the server's answer (the commit happened) and closes both sides without passing it on;
    /// `.swallow` closes both sides without forwarding it (the server rolls the transaction back).
    final class CommitBreaker: @unchecked Sendable {   // the listening socket is set once in init
        enum Mode: Int { case off = 0, dropReply, swallow }
        let directory: String
        let mode = Atomic<Int>(0)
        /// Commits the proxy broke so far.
        let breaks = Atomic<Int>(0)
        private let listener: Int32
        /// One connection's "drop the server's next answer".
        final class Flag: Sendable { let value = Atomic<Bool>(false) }

        init(target: String, port: Int) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("pgproxy-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            self.listener = listener
            guard Self.withAddress(directory + "/.s.PGSQL.\(port)", { bind(listener, $0, $1) }) == 0, listen(listener, 16) == 0 else {
                throw StorageError("proxy: cannot listen (errno \(errno))")
            }
            Thread.detachNewThread { [self] in
                while true {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else { return }
                    let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
                    guard Self.withAddress(target, { connect(server, $0, $1) }) == 0 else { close(client); close(server); continue }
                    let dropNextReply = Flag()
                    Thread.detachNewThread { [self] in pump(from: client, to: server, dropNextReply: dropNextReply) }
                    Thread.detachNewThread { [self] in pumpReplies(from: server, to: client, drop: dropNextReply) }
                }
            }
        }

        /// Client to server: watches for `COMMIT` while armed.
        private func pump(from client: Int32, to server: Int32, dropNextReply: Flag) {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = read(client, &buffer, buffer.count)
                guard n > 0 else { break }
                let chunk = Array(buffer[0..<n])
                if chunk.firstRange(of: Array("COMMIT".utf8)) != nil, let armed = Mode(rawValue: mode.exchange(0, ordering: .sequentiallyConsistent)),
                   armed != .off {
                    if armed == .swallow {
                        breaks.add(1, ordering: .sequentiallyConsistent)
                        break
                    }
                    dropNextReply.value.store(true, ordering: .sequentiallyConsistent)   // before the server can answer
                }
                guard Glibc.write(server, chunk, n) == n else { break }
            }
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
        }

        /// Server to client: drops the answer to an armed `COMMIT` and breaks the link instead.
        private func pumpReplies(from server: Int32, to client: Int32, drop: Flag) {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = read(server, &buffer, buffer.count)
                guard n > 0 else { break }
                if drop.value.load(ordering: .sequentiallyConsistent) {
                    breaks.add(1, ordering: .sequentiallyConsistent)
                    break
                }
                guard Glibc.write(client, buffer, n) == n else { break }
            }
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
            close(client)
            close(server)
        }

        private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
            }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }

        deinit {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    func user(_ id: String) -> [StoreWrite] { [.upsertUser(UserRecord(id: id, hexCode: id, createdAt: 1))] }

    func write(_ store: PostgresGatewayStore, _ batch: [StoreWrite]) -> String? {
        let result = Recorder<String?>()
        store.write(batches: [batch]) { errors in result.record(errors.first.flatMap { $0.map { "\($0)" } }) }
        return result.wait(for: 1).first ?? "no answer"
    }

    @Test func aCommitWhoseReplyWasLostIsReportedStoredAndOneThatNeverArrivedFailed() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase()
        let breaker = try CommitBreaker(target: cluster.socketDirectory + "/.s.PGSQL.\(cluster.port)", port: cluster.port)
        let store = try PostgresGatewayStore(options: PostgresStoreOptions(url: url.replacingOccurrences(
            of: "host=\(cluster.socketDirectory)", with: "host=\(breaker.directory)")))
        defer { store.close() }
        let direct = try PostgresDatabase(options: PostgresStoreOptions(url: url))
        defer { direct.close() }
        func stored(_ id: String) throws -> Bool { try direct.int64("SELECT count(*) FROM users WHERE id = $1", [id]) == 1 }

        #expect(write(store, user("before")) == nil)
        breaker.mode.store(CommitBreaker.Mode.dropReply.rawValue, ordering: .sequentiallyConsistent)
        #expect(write(store, user("reply-lost")) == nil)          // stored, and reported so
        #expect(breaker.breaks.load(ordering: .sequentiallyConsistent) == 1)
        #expect(try stored("reply-lost"))

        breaker.mode.store(CommitBreaker.Mode.swallow.rawValue, ordering: .sequentiallyConsistent)
        let failure = write(store, user("never-committed"))
        #expect(failure != nil, "a COMMIT the server never got must not be reported as stored")
        #expect(breaker.breaks.load(ordering: .sequentiallyConsistent) == 2)
        #expect(try !stored("never-committed"))

        #expect(write(store, user("after")) == nil)               // the writer reconnected
        #expect(try stored("before") && stored("after"))
    }
}
