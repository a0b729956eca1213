import CHiredis
import Glibc

/// A Redis reply, copied out of hiredis's reply object.
public enum RedisReply: Sendable, Equatable {
    case status(String)
    case error(String)
    case integer(Int64)
    case bulk([UInt8])
    case null
    case array([RedisReply])

    /// A bulk or status reply as UTF-8 text.
    public var text: String? {
        switch self {
        case .bulk(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }
}

/// A failure talking to Redis: the connection (refused, broken, timed out) or an error reply.
public struct RedisError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "RedisError: \(message)" }
}

/// Where a Redis server listens.
public enum RedisAddress: Sendable, Equatable {
    case tcp(host: String, port: Int)
    case unix(path: String)
}

/// One blocking hiredis connection: commands with binary-safe arguments, publish, and subscriber mode.
///
/// Every call blocks the calling thread until Redis answered (or `timeoutMs` passed): use it on a thread of its own,
/// never on an event loop. Not thread-safe: one thread at a time. A connection that entered subscriber mode
/// (`subscribe`) only reads messages from then on, as Redis requires.
///
/// hiredis writes with `write(2)`, so a write to a server that went away raises SIGPIPE: the process must ignore
/// SIGPIPE (`Server` does at start; the tests do in their suite), then the write fails with a `RedisError`.
public final class RedisConnection {
    private var context: UnsafeMutablePointer<redisContext>?

    /// Connects within `timeoutMs`; the same bound then applies to every read and write (0 = block forever), unless
    /// `readTimeoutMs` sets another one for them (a subscriber waits longer for messages than for a connection).
    public init(_ address: RedisAddress, timeoutMs: Int = 2000, readTimeoutMs: Int? = nil) throws(RedisError) {
        let timeout = timeval(tv_sec: timeoutMs / 1000, tv_usec: (timeoutMs % 1000) * 1000)
        let readTimeoutMs = readTimeoutMs ?? timeoutMs
        let readTimeout = timeval(tv_sec: readTimeoutMs / 1000, tv_usec: (readTimeoutMs % 1000) * 1000)
        let handle: UnsafeMutablePointer<redisContext>?
        switch address {
        case .tcp(let host, let port): handle = redisConnectWithTimeout(host, Int32(port), timeout)
        case .unix(let path): handle = redisConnectUnixWithTimeout(path, timeout)
        }
        guard let handle else { throw RedisError("cannot connect to Redis: out of memory") }
        if handle.pointee.err != 0 {
            let text = Self.errorText(handle)
            redisFree(handle)
            throw RedisError("cannot connect to Redis at \(address): \(text)")
        }
        if readTimeoutMs > 0 { redisSetTimeout(handle, readTimeout) }
        context = handle
    }

    deinit { close() }

    /// The socket, for `shutdown(2)` from another thread to wake a reader blocked in `nextMessage` (which then
    /// throws); -1 once closed.
    public var fileDescriptor: Int32 { context.map { Int32($0.pointee.fd) } ?? -1 }

    /// Closes the connection. Idempotent.
    public func close() {
        if let context { redisFree(context) }
        context = nil
    }

    /// Sends one command (`["SET", "k", "v"]`) and returns its reply; an error reply throws.
    @discardableResult
    public func command(_ arguments: [String]) throws(RedisError) -> RedisReply {
        try command(arguments.map { Array($0.utf8) })
    }

    /// Sends one command whose arguments are raw bytes.
    @discardableResult
    public func command(_ arguments: [[UInt8]]) throws(RedisError) -> RedisReply {
        guard let context else { throw RedisError("the connection is closed") }
        let raw = Self.withArgv(arguments) { argc, argv, lengths in redisCommandArgv(context, argc, argv, lengths) }
        return try take(raw)
    }

    /// Sends every command in one write and then reads their replies (one round trip for all); the first error reply
    /// throws, after every reply was read, so the connection stays usable.
    @discardableResult
    public func pipeline(_ commands: [[[UInt8]]]) throws(RedisError) -> [RedisReply] {
        guard let context else { throw RedisError("the connection is closed") }
        for arguments in commands {
            let status = Self.withArgv(arguments) { argc, argv, lengths in redisAppendCommandArgv(context, argc, argv, lengths) }
            guard status == REDIS_OK else { throw RedisError("Redis: cannot queue a command: \(Self.errorText(context))") }
        }
        var replies: [RedisReply] = []
        var firstError: RedisError?
        for _ in commands {
            do { replies.append(try nextReply()) } catch {
                if context.pointee.err != 0 { throw error }   // the connection failed: nothing more to read
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
        return replies
    }

    /// Calls `body` with C copies of `arguments` (hiredis takes pointers and lengths: binary-safe).
    private static func withArgv<R>(_ arguments: [[UInt8]],
                                    _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>?, [Int]) -> R) -> R {
        let copies = arguments.map { bytes -> UnsafeMutablePointer<CChar> in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, bytes.count))
            bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: bytes.count) }
            }
            return copy
        }
        defer { copies.forEach { $0.deallocate() } }
        var pointers = copies.map { UnsafePointer<CChar>?($0) }
        let lengths = arguments.map { $0.count }
        return pointers.withUnsafeMutableBufferPointer { argv in body(Int32(arguments.count), argv.baseAddress, lengths) }
    }

    /// `PUBLISH channel message`; returns how many subscribers received it.
    @discardableResult
    public func publish(_ channel: String, _ message: [UInt8]) throws(RedisError) -> Int {
        guard case .integer(let receivers) = try command([Array("PUBLISH".utf8), Array(channel.utf8), message]) else {
            throw RedisError("PUBLISH: unexpected reply")
        }
        return Int(receivers)
    }

    /// `SUBSCRIBE channels…`; returns once Redis confirmed every channel. The connection then only reads messages.
    public func subscribe(_ channels: [String]) throws(RedisError) {
        guard !channels.isEmpty else { return }
        try command(["SUBSCRIBE"] + channels)   // the first confirmation
        for _ in 1..<channels.count { _ = try nextReply() }
    }

    /// Blocks until the next published message on a subscribed channel (or the timeout: a `RedisError`).
    public func nextMessage() throws(RedisError) -> (channel: String, message: [UInt8]) {
        while true {
            guard case .array(let parts) = try nextReply(), parts.count == 3, parts[0].text == "message",
                  let channel = parts[1].text, case .bulk(let message) = parts[2] else { continue }  // (un)subscribe confirmations
            return (channel, message)
        }
    }

    private func nextReply() throws(RedisError) -> RedisReply {
        guard let context else { throw RedisError("the connection is closed") }
        var raw: UnsafeMutableRawPointer?
        guard redisGetReply(context, &raw) == REDIS_OK else {
            throw RedisError("Redis connection failed: \(Self.errorText(context))")
        }
        return try take(raw)
    }

    /// Converts and frees a reply; nil means the connection failed.
    private func take(_ raw: UnsafeMutableRawPointer?) throws(RedisError) -> RedisReply {
        guard let raw else { throw RedisError("Redis connection failed: \(context.map(Self.errorText) ?? "closed")") }
        defer { freeReplyObject(raw) }
        let reply = Self.convert(raw.assumingMemoryBound(to: redisReply.self))
        if case .error(let text) = reply { throw RedisError(text) }
        return reply
    }

    private static func convert(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let r = reply.pointee
        let bytes = r.str.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(r.len))) } ?? []
        switch r.type {
        case REDIS_REPLY_STATUS: return .status(String(decoding: bytes, as: UTF8.self))
        case REDIS_REPLY_ERROR: return .error(String(decoding: bytes, as: UTF8.self))
        case REDIS_REPLY_INTEGER: return .integer(Int64(r.integer))
        case REDIS_REPLY_STRING: return .bulk(bytes)
        case REDIS_REPLY_ARRAY: return .array((0..<Int(r.elements)).compactMap { r.element[$0].map(convert) })
        default: return .null
        }
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
