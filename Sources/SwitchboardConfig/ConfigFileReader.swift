#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a configuration file into a `String` with plain POSIX calls (no Foundation).
///
/// Blocking; called once at start-up, before any event loop runs.
enum ConfigFileReader {
    /// A config file is a few kilobytes; a megabyte means the wrong file was named.
    static let maximumBytes = 1 << 20

    /// The file's text. Throws a ``ConfigError`` without key for I/O errors, files over
    /// ``maximumBytes`` and invalid UTF-8 (with the line of the first bad byte).
    static func read(path: String) throws(ConfigError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, "cannot open: \(lastErrorText())") }
        defer { _ = close(descriptor) }

        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(path, "cannot read: \(lastErrorText())")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maximumBytes {
                throw failure(path, "file is larger than \(maximumBytes) bytes; is it the right file?")
            }
        }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        throw ConfigError(file: path, line: lineOfFirstInvalidUTF8(bytes), key: nil, message: "file is not valid UTF-8")
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.read(descriptor, buffer, count)
        #else
        return Darwin.read(descriptor, buffer, count)
        #endif
    }

    private static func failure(_ path: String, _ message: String) -> ConfigError {
        ConfigError(file: path, line: nil, key: nil, message: message)
    }

    private static func lastErrorText() -> String {
        String(cString: strerror(errno))
    }

    static func lineOfFirstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var line = 1
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1 && encoded.first == UInt8(ascii: "\n") { line += 1 }
            case .error:
                return line
            case .emptyInput:
                return line
            }
        }
    }
}
