import Glibc

/// Reads small text files such as /proc/PID/stat and /proc/sys/... entries. Stateless; safe from any thread.
public enum ProcFile {
    /// The whole file as text (at most `limit` bytes), or nil when it cannot be opened.
    public static func read(_ path: String, limit: Int = 64 * 1024) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value of a "Key:   123 kB" line of /proc/PID/status, in the file's unit.
    public static func statusField(_ name: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.dropFirst(name.count + 1).filter { $0.isNumber }
            return Int(digits)
        }
        return nil
    }
}
