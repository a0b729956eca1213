@testable import GatewayRuntime
@testable import Server
import Testing

/// The presence notice on `sb:notices`: what one node writes the others read back exactly, whatever the names hold,
/// and nothing else passes for one (nor does a presence notice pass for an offset notice, as an older node reads it).
@Suite struct RedisPresenceNoticeTests {
    @Test func aNoticeReadsBackWithNamesHoldingSpacesAndDigits() throws {
        let notice = RedisClusterBus.presenceNotice(node: "node a/1f", userId: "ann 2 3", connected: 3, away: 1)
        #expect(String(decoding: notice, as: UTF8.self) == "p 3 1 9 node a/1fann 2 3")
        let parsed = try #require(RedisClusterBus.parsePresence(notice))
        #expect(parsed.node == "node a/1f" && parsed.userId == "ann 2 3" && parsed.connected == 3 && parsed.away == 1)
        #expect(RedisClusterBus.parse(notice) == nil)
        let gone = try #require(RedisClusterBus.parsePresence(RedisClusterBus.presenceNotice(node: "b", userId: "ann", connected: 0, away: 0)))
        #expect(gone.connected == 0 && gone.away == 0)
    }

    @Test func malformedNoticesAreIgnored() {
        for text in ["hb", "*", "7 ann", "p", "p 1 0", "p 1 0 3 abc", "p 1 2 1 xann", "p -1 0 1 xann", "p x 0 1 xann", "p 1 0 0 ann"] {
            #expect(RedisClusterBus.parsePresence(Array(text.utf8)) == nil, "\(text)")
        }
    }
}
