import Testing
@testable import TLS

@Suite struct ALPNProtocolListTests {
    @Test func encodesLengthPrefixedNames() throws {
        let list = try ALPNProtocolList(["h2", "http/1.1"])
        #expect(list.wireFormat == [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8))
        #expect(try ALPNProtocolList([]).wireFormat.isEmpty)
    }

    @Test func rejectsEmptyAndOverlongNames() {
        #expect(throws: TLSError.self) { try ALPNProtocolList(["h2", ""]) }
        #expect(throws: TLSError.self) { try ALPNProtocolList([String(repeating: "a", count: 256)]) }
        #expect((try? ALPNProtocolList([String(repeating: "a", count: 255)])) != nil)
    }

    @Test(arguments: [
        (["h2", "http/1.1"], ["http/1.1", "h2"], "h2"),
        (["http/1.1"], ["h2", "http/1.1"], "http/1.1"),
        (["h2"], ["http/1.1"], nil),
        (["http/1.1"], ["http/1.10", "http/1."], nil),
    ] as [([String], [String], String?)])
    func selectsFirstServerPreferenceTheClientOffers(server: [String], client: [String], expected: String?) throws {
        let list = try ALPNProtocolList(server)
        let offered = try ALPNProtocolList(client).wireFormat
        let chosen = offered.withUnsafeBufferPointer { buffer in
            list.select(from: buffer).map { String(decoding: buffer[$0], as: UTF8.self) }
        }
        #expect(chosen == expected)
    }

    @Test(arguments: [
        [UInt8](),
        [5, 0x68, 0x32],                 // length runs past the end
        [0, 2, 0x68, 0x32],              // zero-length name (RFC 7301 §3.1 forbids it)
        [2, 0x68, 0x32, 9, 0x68],        // valid entry followed by a truncated one
    ])
    func malformedOfferSelectsNothing(offered: [UInt8]) throws {
        let list = try ALPNProtocolList(["h2"])
        let chosen = offered.withUnsafeBufferPointer { list.select(from: $0) }
        #expect(chosen == nil)
    }
}
