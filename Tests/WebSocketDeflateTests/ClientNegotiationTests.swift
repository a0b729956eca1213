import Testing
@testable import WebSocketDeflate

@Suite struct ClientNegotiationTests {
    typealias N = PerMessageDeflateNegotiation
    typealias P = PerMessageDeflateParameters

    @Test func offerStrings() {
        #expect(N.clientOffer() == "permessage-deflate; client_max_window_bits")
        #expect(N.clientOffer(clientMaxWindowBits: 10, clientNoContextTakeover: true, serverNoContextTakeover: true, serverMaxWindowBits: 12)
            == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=12; client_max_window_bits=10")
        #expect(N.clientOffer(clientMaxWindowBits: 3, serverMaxWindowBits: 40)
            == "permessage-deflate; server_max_window_bits=15; client_max_window_bits=8")
    }

    static let offerShapes: [String] = [
        N.clientOffer(),
        N.clientOffer(clientMaxWindowBits: 9),
        N.clientOffer(clientNoContextTakeover: true),
        N.clientOffer(serverNoContextTakeover: true),
        N.clientOffer(clientMaxWindowBits: 8, clientNoContextTakeover: true, serverNoContextTakeover: true, serverMaxWindowBits: 8),
        "permessage-deflate",
        "permessage-deflate; server_max_window_bits=8, permessage-deflate",
    ]

    @Test(arguments: offerShapes, [PerMessageDeflateSettings(), .init(maxServerWindowBits: 10, serverNoContextTakeover: true, maxClientWindowBits: 9)])
    func bothEndsAgree(offer: String, settings: PerMessageDeflateSettings) throws {
        let (response, serverSide) = try #require(N.negotiate(offers: [offer], settings: settings))
        #expect(try N.acceptServerResponse(response, offer: offer) == serverSide)
    }

    @Test func acceptsWhatTheServerMayAddOrOmit() throws {
        let offer = N.clientOffer(clientMaxWindowBits: 10, clientNoContextTakeover: true)
        // The server may omit client_max_window_bits and client_no_context_takeover: we keep our own limits.
        #expect(try N.acceptServerResponse("permessage-deflate", offer: offer) == P(clientNoContextTakeover: true, clientMaxWindowBits: 10))
        // It may lower our window and add server-side restrictions we did not ask for.
        #expect(try N.acceptServerResponse("permessage-deflate; client_max_window_bits=9; server_no_context_takeover; server_max_window_bits=11", offer: offer)
            == P(serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 11, clientMaxWindowBits: 9))
        // Quoted values are fine in responses too.
        #expect(try N.acceptServerResponse("permessage-deflate; server_max_window_bits=\"9\"", offer: "permessage-deflate")
            == P(serverMaxWindowBits: 9))
    }

    static let rejected: [(response: String, offer: String)] = [
        ("permessage-deflate; client_max_window_bits=10", "permessage-deflate"),  // not offered
        ("permessage-deflate; client_max_window_bits=11", N.clientOffer(clientMaxWindowBits: 10)),  // larger than offered
        ("permessage-deflate; client_max_window_bits", N.clientOffer()),  // a response needs a value
        ("permessage-deflate", N.clientOffer(serverMaxWindowBits: 10)),  // requested cap not answered
        ("permessage-deflate; server_max_window_bits=11", N.clientOffer(serverMaxWindowBits: 10)),
        ("permessage-deflate", N.clientOffer(serverNoContextTakeover: true)),
        ("permessage-deflate; server_max_window_bits=7", N.clientOffer()),
        ("permessage-deflate; server_no_context_takeover; server_no_context_takeover", N.clientOffer()),
        ("permessage-deflate; mystery", N.clientOffer()),
        ("permessage-deflate, permessage-deflate", N.clientOffer()),
        ("x-webkit-deflate-frame", N.clientOffer()),
        ("", N.clientOffer()),
        ("permessage-deflate", "x-other"),  // nothing valid was offered
    ]

    @Test(arguments: 0..<rejected.count)
    func rejectsResponsesThatDoNotMatch(index: Int) {
        let (response, offer) = Self.rejected[index]
        #expect(throws: PerMessageDeflateError.self, "\(response) for \(offer)") {
            try N.acceptServerResponse(response, offer: offer)
        }
    }

    @Test func matchesAnyOfSeveralOffers() throws {
        // Only the second offer allows a missing server_max_window_bits.
        let offer = "permessage-deflate; server_max_window_bits=9, permessage-deflate; client_max_window_bits"
        #expect(try N.acceptServerResponse("permessage-deflate; client_max_window_bits=12", offer: offer) == P(clientMaxWindowBits: 12))
    }
}
