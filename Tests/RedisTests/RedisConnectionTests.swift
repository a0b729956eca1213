import Foundation
import Redis
import Synchronization
import Testing
import TestSupport

/// The hiredis client against a real `redis-server` started per test.
@Suite struct RedisConnectionTests {
    let server: RedisServer

    init() throws {
        signal(SIGPIPE, SIG_IGN)   // as the server does: a write to a dead Redis must fail, not kill the process
        server = try RedisServer { path in (try? RedisConnection(.unix(path: path), timeoutMs: 500)) != nil }
    }

    func connect() throws -> RedisConnection { try RedisConnection(.unix(path: server.socketPath)) }

    @Test func commandsRoundTripBinarySafeValuesAndErrorRepliesThrow() throws {
        let redis = try connect()
        let value: [UInt8] = [0, 13, 10, 255, 36]   // NUL, CRLF, a byte that is not UTF-8, "$"
        #expect(try redis.command([Array("SET".utf8), Array("k".utf8), value]) == .status("OK"))
        #expect(try redis.command(["GET", "k"]) == .bulk(value))
        #expect(try redis.command(["GET", "missing"]) == .null)
        #expect(try redis.command(["INCR", "n"]) == .integer(1))
        let error = #expect(throws: RedisError.self) { try redis.command(["INCR", "k"]) }
        #expect(error?.message.contains("not an integer") == true)
        #expect(try redis.command(["PING"]) == .status("PONG"))     // still usable after an error reply
    }

    @Test func aSubscriberReceivesEveryMessagePublishedToItsChannelsInOrder() throws {
        let subscriber = try connect()
        try subscriber.subscribe(["sb:u:ann", "sb:u:bob"])
        let publisher = try connect()
        #expect(try publisher.publish("sb:u:ann", Array("1".utf8)) == 1)
        #expect(try publisher.publish("sb:u:carol", Array("x".utf8)) == 0)   // nobody listens
        #expect(try publisher.publish("sb:u:bob", [0, 1, 2]) == 1)
        #expect(try publisher.publish("sb:u:ann", Array("2".utf8)) == 1)
        let received = try (0..<3).map { _ in try subscriber.nextMessage() }
        #expect(received.map(\.channel) == ["sb:u:ann", "sb:u:bob", "sb:u:ann"])
        #expect(received.map(\.message) == [Array("1".utf8), [0, 1, 2], Array("2".utf8)])
    }

    @Test func aPipelineSendsEveryCommandAndReadsEveryReplyInOrder() throws {
        let redis = try connect()
        let commands = (0..<500).map { [Array("RPUSH".utf8), Array("list".utf8), Array("v\($0)".utf8)] }
        #expect(try redis.pipeline(commands) == (1...500).map { .integer(Int64($0)) })
        // An error reply in the middle throws after every reply was read: the connection is still in step.
        let mixed = [["SET", "s", "x"], ["INCR", "s"], ["GET", "s"]].map { $0.map { Array($0.utf8) } }
        #expect(throws: RedisError.self) { try redis.pipeline(mixed) }
        #expect(try redis.command(["LLEN", "list"]) == .integer(500))
    }

    @Test func aStoppedServerFailsCallsInsteadOfHanging() throws {
        let redis = try connect()
        server.stop()
        #expect(throws: RedisError.self) { try redis.command(["PING"]) }
        #expect(throws: RedisError.self) { try RedisConnection(.unix(path: server.socketPath), timeoutMs: 500) }
    }
}
