import Testing
@testable import WebSocketDeflate

@Suite struct ServerNegotiationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var offers: [String]
        var settings = PerMessageDeflateSettings()
        var response: String
        var parameters: PerMessageDeflateParameters
        var testDescription: String { offers.joined(separator: " | ") }
    }

    typealias P = PerMessageDeflateParameters
    static let pmd = "permessage-deflate"
    /// Autobahn's PerMessageDeflateOffer always carries these two (accept no-context-takeover / max-window-bits).
    static let autobahnBase = "permessage-deflate; client_no_context_takeover; client_max_window_bits"

    static let accepted: [Case] = [
        Case(offers: [pmd], response: pmd, parameters: P()),
        // Autobahn 12.x / 13.1
        Case(offers: [autobahnBase], response: "permessage-deflate; client_no_context_takeover; client_max_window_bits=15",
             parameters: P(clientNoContextTakeover: true)),
        // 13.2
        Case(offers: [autobahnBase + "; server_no_context_takeover"],
             response: "permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits=15",
             parameters: P(serverNoContextTakeover: true, clientNoContextTakeover: true)),
        // 13.3 / 13.4: the server must answer with the requested cap and compress with it.
        Case(offers: [autobahnBase + "; server_max_window_bits=8"],
             response: "permessage-deflate; client_no_context_takeover; server_max_window_bits=8; client_max_window_bits=15",
             parameters: P(clientNoContextTakeover: true, serverMaxWindowBits: 8)),
        Case(offers: [autobahnBase + "; server_max_window_bits=15"],
             response: "permessage-deflate; client_no_context_takeover; server_max_window_bits=15; client_max_window_bits=15",
             parameters: P(clientNoContextTakeover: true, serverMaxWindowBits: 15)),
        // 13.5 / 13.6
        Case(offers: [autobahnBase + "; server_no_context_takeover; server_max_window_bits=8"],
             response: "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=8; client_max_window_bits=15",
             parameters: P(serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 8)),
        // 13.7: three offers in one header; the first acceptable one wins.
        Case(offers: [autobahnBase + "; server_no_context_takeover; server_max_window_bits=8, " + autobahnBase + "; server_no_context_takeover, " + autobahnBase],
             response: "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=8; client_max_window_bits=15",
             parameters: P(serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 8)),
        // Client window: bare = supported (we answer with our cap), a value is an upper bound.
        Case(offers: ["permessage-deflate; client_max_window_bits=10"], response: "permessage-deflate; client_max_window_bits=10",
             parameters: P(clientMaxWindowBits: 10)),
        Case(offers: ["permessage-deflate; client_max_window_bits=12"], settings: .init(maxClientWindowBits: 9),
             response: "permessage-deflate; client_max_window_bits=9", parameters: P(clientMaxWindowBits: 9)),
        Case(offers: ["permessage-deflate; client_max_window_bits"], settings: .init(maxClientWindowBits: 11),
             response: "permessage-deflate; client_max_window_bits=11", parameters: P(clientMaxWindowBits: 11)),
        // Not offered: never sent, and the client may use 15 whatever our preference.
        Case(offers: [pmd], settings: .init(maxClientWindowBits: 9), response: pmd, parameters: P()),
        // Server cap from settings: announced even unasked, and it lowers a larger request.
        Case(offers: [pmd], settings: .init(maxServerWindowBits: 10), response: "permessage-deflate; server_max_window_bits=10",
             parameters: P(serverMaxWindowBits: 10)),
        Case(offers: ["permessage-deflate; server_max_window_bits=12"], settings: .init(maxServerWindowBits: 10),
             response: "permessage-deflate; server_max_window_bits=10", parameters: P(serverMaxWindowBits: 10)),
        Case(offers: ["permessage-deflate; server_max_window_bits=9"], settings: .init(maxServerWindowBits: 10),
             response: "permessage-deflate; server_max_window_bits=9", parameters: P(serverMaxWindowBits: 9)),
        // Forced flags.
        Case(offers: [pmd], settings: .init(serverNoContextTakeover: true), response: "permessage-deflate; server_no_context_takeover",
             parameters: P(serverNoContextTakeover: true)),
        Case(offers: [pmd], settings: .init(clientNoContextTakeover: true), response: "permessage-deflate; client_no_context_takeover",
             parameters: P(clientNoContextTakeover: true)),
        // Syntax: quoted values, case, whitespace, empty list elements, other extensions, several headers.
        Case(offers: ["permessage-deflate; server_max_window_bits=\"10\""], response: "permessage-deflate; server_max_window_bits=10",
             parameters: P(serverMaxWindowBits: 10)),
        Case(offers: ["PerMessage-Deflate ;\tServer_No_Context_Takeover ; client_max_window_bits = 9"],
             response: "permessage-deflate; server_no_context_takeover; client_max_window_bits=9",
             parameters: P(serverNoContextTakeover: true, clientMaxWindowBits: 9)),
        Case(offers: [" , x-webkit-deflate-frame; max_window_bits=10 ,, permessage-deflate"], response: pmd, parameters: P()),
        Case(offers: ["foo", "bar; a=\"x,y\"", "permessage-deflate; server_max_window_bits=11"],
             response: "permessage-deflate; server_max_window_bits=11", parameters: P(serverMaxWindowBits: 11)),
    ]

    @Test(arguments: accepted)
    func acceptsOffer(_ testCase: Case) throws {
        let result = try #require(PerMessageDeflateNegotiation.negotiate(offers: testCase.offers, settings: testCase.settings))
        #expect(result.responseHeader == testCase.response)
        #expect(result.parameters == testCase.parameters)
    }

    static let malformed: [String] = [
        "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        "permessage-deflate; client_max_window_bits; client_max_window_bits=10",
        "permessage-deflate; unknown_parameter",
        "permessage-deflate; server_max_window_bits",
        "permessage-deflate; server_max_window_bits=7",
        "permessage-deflate; server_max_window_bits=16",
        "permessage-deflate; server_max_window_bits=08",
        "permessage-deflate; client_max_window_bits=010",
        "permessage-deflate; server_max_window_bits=+9",
        "permessage-deflate; client_max_window_bits=0x9",
        "permessage-deflate; client_max_window_bits=\"\"",
        "permessage-deflate; client_max_window_bits=\" 9\"",
        "permessage-deflate; client_max_window_bits=",
        "permessage-deflate; server_no_context_takeover=1",
        "permessage-deflate; client_no_context_takeover=\"\"",
        "permessage-deflate; ;",
        "permessage-deflate; server_max_window_bits=\"10",
        "permessage-deflate; client_max_window_bits=\"10, permessage-deflate\"",
        "permessage-deflate x",
    ]

    @Test(arguments: malformed)
    func declinesMalformedOfferAndTakesTheNextOne(_ offer: String) throws {
        #expect(PerMessageDeflateNegotiation.negotiate(offers: [offer], settings: .init()) == nil)
        // A following offer, in another header, is still considered.
        let next = try #require(PerMessageDeflateNegotiation.negotiate(
            offers: [offer, "permessage-deflate; server_max_window_bits=12"], settings: .init()))
        #expect(next.parameters == P(serverMaxWindowBits: 12))
    }

    @Test func declinesWhenDisabledOrNothingOffered() {
        #expect(PerMessageDeflateNegotiation.negotiate(offers: [Self.pmd], settings: .init(enabled: false)) == nil)
        #expect(PerMessageDeflateNegotiation.negotiate(offers: [], settings: .init()) == nil)
        #expect(PerMessageDeflateNegotiation.negotiate(offers: ["x-webkit-deflate-frame", ""], settings: .init()) == nil)
    }

    @Test func outOfRangeSettingsAreClamped() throws {
        let result = try #require(PerMessageDeflateNegotiation.negotiate(
            offers: ["permessage-deflate; client_max_window_bits"], settings: .init(maxServerWindowBits: 4, maxClientWindowBits: 99)))
        #expect(result.parameters == P(serverMaxWindowBits: 9, clientMaxWindowBits: 15))
    }

    @Test func quotedStringWithEscapesParses() {
        let elements = ExtensionHeaderParser.parse("a; p=\"q\\\"x\", b")
        #expect(elements.map(\.name) == ["a", "b"])
        #expect(elements.first?.isMalformed == true, "q\"x is not a token once unquoted (RFC 7692 §7.1)")
        #expect(elements.last?.isMalformed == false)
        let token = ExtensionHeaderParser.parse("a; p=\"1\\2\"")
        #expect(token.first?.parameters.first?.value == "12")
        #expect(token.first?.isMalformed == false)
    }
}
