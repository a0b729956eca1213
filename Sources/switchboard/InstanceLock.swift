import Glibc

/// One process per database: an exclusive `flock` on `<database>.lock`, held (by keeping the descriptor open) until
/// the process exits, when the kernel releases it even after a crash or `kill -9`. A second `serve` or `migrate` on
/// the same database fails at once instead of running beside the first with its own view of the data. (A separate
/// file because SQLite's own POSIX locks on the database are dropped when any descriptor of it closes.)
struct InstanceLock {
    struct Held: Error, CustomStringConvertible { let description: String }

    let path: String
    private let fd: Int32

    /// Takes the lock or throws naming the database and, when known, the process that holds it.
    init(database: String) throws {
        path = database + ".lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Held(description: "cannot open the lock file \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let owner = Self.readOwner(fd)
            close(fd)
            throw Held(description: "another switchboard process\(owner.map { " (pid \($0))" } ?? "") is using the database "
                + "\(database) (lock file \(path)); stop it first, or give this one its own storage.path")
        }
        // The owner's pid, for the message above and for operators; the lock itself is the flock, not this text.
        _ = ftruncate(fd, 0)
        let text = "\(getpid())\n"
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    private static func readOwner(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 31, 0) }
        guard n > 0 else { return nil }
        return Int32(String(decoding: buffer[..<n].filter { (48...57).contains($0) }, as: UTF8.self))
    }
}
