import Testing
@testable import switchboard_load

/// `--node-url`: connections go to `--url` (node 0) and the other nodes by their session's `node`, modulo the count,
/// and a gateway device's node is its user's index plus its slot, so a user's two devices are on different nodes.
struct NodeSpreadTests {
    @Test func nodesAreChosenModuloTheirCountWithTheUrlAsNodeZero() throws {
        let settings = try ClientSettings(
            target: TargetURL(parsing: "ws://127.0.0.1:7001/v1/ws"), sourceAddresses: [], insecure: false, caFile: nil,
            deflate: false, maxMessageBytes: 1 << 16,
            otherNodes: [TargetURL(parsing: "ws://127.0.0.1:7002/v1/ws"), TargetURL(parsing: "ws://127.0.0.1:7003/v1/ws")])
        #expect((0..<7).map { Int(settings.node($0).target.port) } == [7001, 7002, 7003, 7001, 7002, 7003, 7001])
        #expect(settings.node(2).address.description == settings.otherNodes[1].address.description)
        let single = try ClientSettings(
            target: TargetURL(parsing: "ws://127.0.0.1:7001/"), sourceAddresses: [], insecure: false, caFile: nil,
            deflate: false, maxMessageBytes: 1 << 16)
        #expect((0..<3).map { Int(single.node($0).target.port) } == [7001, 7001, 7001])
    }

    @Test func optionsParseEveryNodeUrlAndRefuseAMalformedOne() throws {
        let options = try CommonOptions.parse(["--url", "ws://127.0.0.1:7001/", "--node-url", "ws://127.0.0.1:7002/",
                                               "--node-url", "ws://127.0.0.1:7003/"])
        #expect(options.nodeUrl == ["ws://127.0.0.1:7002/", "ws://127.0.0.1:7003/"])
        #expect(throws: (any Error).self) { try CommonOptions.parse(["--node-url", "http://127.0.0.1:7002/"]) }
    }
}
