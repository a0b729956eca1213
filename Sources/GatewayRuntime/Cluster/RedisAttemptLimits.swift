import Foundation
import Gateway
import Logging
import Redis
import Synchronization

/// The guessing limits counted in Redis for every node together (docs/CLUSTER.md, "Rate limits across nodes").
///
/// Each counter is a sorted set `sb:limit:<key>` of attempt times (score: Unix ms; member: a unique attempt id), and
/// one Lua script decides an attempt exactly as `AttemptLimiter` does — drop entries that left the sliding window,
/// refuse while any counter lacks room for the attempt's weight (with the longest wait), else count under every counter — atomically, so two
/// nodes deciding at once cannot both take the last place. Each set expires one window after its last entry, so Redis
/// holds at most `limit` members per live key (fewer for weighted attempts). A restarted Redis has forgotten its counters: that forgives attempts,
/// never refuses one.
///
/// One thread of its own with one blocking hiredis connection, so the hub never waits on Redis: requests queue, the
/// thread sends all queued ones in one round trip and calls their completions. While Redis cannot be reached,
/// requests are answered nil at once (the node decides alone) and a reconnect is tried at most every `retryMs`.
public final class RedisAttemptLimits: SharedAttemptLimits {
    static let keyPrefix = "sb:limit:"

    /// KEYS: the counters; ARGV: now, window, 1 to count (0 to ask), the attempt's id, its weight, then each counter's
    /// limit. An attempt is one member `<id>*<weight>` (a member without `*` weighs 1); a counter's use is the sum of
    /// its members' weights, so the script reads the whole set (at most `limit` members).
    /// Returns {0, 0} when allowed, else {index of the counter with the longest wait (1-based), wait in ms}.
    static let script = """
        local now = tonumber(ARGV[1])
        local window = tonumber(ARGV[2])
        local weight = tonumber(ARGV[5])
        local function weightOf(member) return tonumber(string.match(member, '%*(%d+)$') or '1') end
        local full, wait = 0, 0
        for i, key in ipairs(KEYS) do
          redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
          local limit = tonumber(ARGV[5 + i])
          local entries = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
          local used = 0
          for k = 1, #entries, 2 do used = used + weightOf(entries[k]) end
          if used + weight > limit then
            local freeAt = now + window
            if weight <= limit then
              local freed = 0
              for k = 1, #entries, 2 do
                freed = freed + weightOf(entries[k])
                if freed >= used + weight - limit then freeAt = tonumber(entries[k + 1]) + window; break end
              end
            end
            local w = math.max(1, freeAt - now)
            if w > wait then full, wait = i, w end
          end
        end
        if full > 0 then return {full, wait} end
        if ARGV[3] == '1' then
          for _, key in ipairs(KEYS) do
            redis.call('ZADD', key, now, ARGV[4] .. '*' .. weight)
            redis.call('PEXPIRE', key, window)
          end
        end
        return {0, 0}
        """

    private struct Request {
        var attempt: AttemptLimiter.Attempt
        var windowMs: Int64
        var now: Int64
        var completion: @Sendable (AttemptLimiter.Decision?) -> Void
    }

    private let endpoint: RedisEndpoint
    private let logger: Logger
    private let timeoutMs: Int
    private let retryMs: Int
    /// Unique per process: attempt ids are `<tag>:<sequence>`, so two nodes' attempts at the same millisecond are
    /// two entries.
    private let tag = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    private let queue = Mutex<(requests: [Request], stopped: Bool)>(([], false))
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the adapter's thread. `timeoutMs` bounds connecting and each round trip; `retryMs` is the least time
    /// between reconnect attempts while Redis is unreachable.
    public init(endpoint: RedisEndpoint, logger: Logger, timeoutMs: Int = 1000, retryMs: Int = 1000) {
        self.endpoint = endpoint
        self.logger = logger
        self.timeoutMs = timeoutMs
        self.retryMs = retryMs
        Thread.detachNewThread { [self] in run(); finished.signal() }
    }

    public func decide(_ attempt: AttemptLimiter.Attempt, windowMs: Int64, now: Int64,
                       completion: @escaping @Sendable (AttemptLimiter.Decision?) -> Void) {
        let stopped = queue.withLock { queue in
            if !queue.stopped { queue.requests.append(Request(attempt: attempt, windowMs: windowMs, now: now, completion: completion)) }
            return queue.stopped
        }
        if stopped { return completion(nil) }
        wake.signal()
    }

    /// Stops the thread once (later calls return at once).
    public func stop() {
        let first = queue.withLock { queue in defer { queue.stopped = true }; return !queue.stopped }
        guard first else { return }
        wake.signal()
        finished.wait()
    }

    private func run() {
        var connection: RedisConnection?
        var retryAt = ContinuousClock.now
        var down = false
        var sequence = 0
        while true {
            wake.wait()
            let (requests, stopped) = queue.withLock { queue in defer { queue.requests = [] }; return (queue.requests, queue.stopped) }
            if stopped {
                for request in requests { request.completion(nil) }
                return
            }
            guard !requests.isEmpty else { continue }
            var decisions: [AttemptLimiter.Decision?] = Array(repeating: nil, count: requests.count)
            if connection != nil || ContinuousClock.now >= retryAt {
                do {
                    if connection == nil {
                        connection = try endpoint.connect(timeoutMs: timeoutMs)
                        if down { logger.notice("rate limits: counting in Redis again") }
                        down = false
                    }
                    let commands = requests.map { request -> [[UInt8]] in
                        sequence += 1
                        return Self.command(request, id: "\(tag):\(sequence)")
                    }
                    let replies = try connection?.pipeline(commands) ?? []
                    decisions = zip(requests, replies).map { Self.decision($1, $0.attempt.counters) }
                } catch {
                    if !down { logger.warning("rate limits: Redis unreachable, counting per node: \(error)") }
                    down = true
                    connection = nil
                    retryAt = ContinuousClock.now + .milliseconds(retryMs)
                }
            }
            for (request, decision) in zip(requests, decisions) { request.completion(decision) }
        }
    }

    private static func command(_ request: Request, id: String) -> [[UInt8]] {
        let counters = request.attempt.counters
        var isCount = false
        if case .count = request.attempt { isCount = true }
        let arguments = ["EVAL", script, String(counters.count)] + counters.map { keyPrefix + $0.key }
            + [String(request.now), String(request.windowMs), isCount ? "1" : "0", id, String(max(1, request.attempt.weight))]
            + counters.map { String($0.limit) }
        return arguments.map { Array($0.utf8) }
    }

    /// The script's `{index, wait}` as a decision; nil for anything else (then the node decides alone).
    static func decision(_ reply: RedisReply, _ counters: [AttemptLimiter.Counter]) -> AttemptLimiter.Decision? {
        guard case .array(let parts) = reply, parts.count == 2,
              case .integer(let index) = parts[0], case .integer(let wait) = parts[1] else { return nil }
        if index == 0 { return .allowed }
        guard index >= 1 && Int(index) <= counters.count else { return nil }
        return .refused(key: counters[Int(index) - 1].key, retryAfterMs: wait)
    }
}
