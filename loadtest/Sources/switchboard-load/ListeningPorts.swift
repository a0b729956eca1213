import Foundation
import Glibc
import Metrics

/// The TCP ports a process listens on, from /proc: its socket descriptors (/proc/PID/fd → `socket:[inode]`) matched
/// against the listening sockets of its network namespace (/proc/PID/net/tcp and tcp6, state 0A). `--server-pid` uses
/// it to refuse a process that serves nothing (a shell's PID would otherwise be "measured" at 0 CPU seconds).
enum ListeningPorts {
    /// Inode → local port of every listening socket in a /proc/net/tcp(6) table.
    static func listening(inTable text: String) -> [UInt64: Int] {
        var found: [UInt64: Int] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, fields[3] == "0A", let colon = fields[1].lastIndex(of: ":"),
                  let port = Int(fields[1][fields[1].index(after: colon)...], radix: 16), let inode = UInt64(fields[9]) else { continue }
            found[inode] = port
        }
        return found
    }

    /// The socket inode a /proc/PID/fd link names (`socket:[12345]`), nil for anything else.
    static func socketInode(link: String) -> UInt64? {
        guard link.hasPrefix("socket:["), link.hasSuffix("]") else { return nil }
        return UInt64(link.dropFirst(8).dropLast())
    }

    /// The process's listening TCP ports, sorted; nil when its descriptors cannot be read (another user's process).
    static func of(pid: Int32) -> [Int]? {
        let tables = ["tcp", "tcp6"].compactMap { ProcFile.read("/proc/\(pid)/net/\($0)", limit: 16 << 20) }
        let sockets = tables.reduce(into: [UInt64: Int]()) { $0.merge(listening(inTable: $1)) { a, _ in a } }
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        let ports = fds.compactMap { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")).flatMap(socketInode).flatMap { sockets[$0] }
        }
        return Array(Set(ports)).sorted()
    }

    /// The process's name (/proc/PID/comm), or "?".
    static func name(pid: Int32) -> String {
        ProcFile.read("/proc/\(pid)/comm")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }
}
