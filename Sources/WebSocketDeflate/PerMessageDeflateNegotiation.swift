/// permessage-deflate extension negotiation (RFC 7692 §5, §7.1) for both ends. Pure functions, thread-safe.
///
/// `server_max_window_bits=8`: zlib refuses a raw deflate window of 256 bytes (since 1.2.9 `deflateInit2`
/// with -8 fails; with the zlib wrapper it silently uses 9). Reference servers differ: some decline such
/// offers, others compress with 9 bits anyway. We ACCEPT the offer, answer `server_max_window_bits=8` and
/// compress with a 9-bit zlib window, which is still correct for the peer: zlib never emits a match distance
/// beyond `MAX_DIST = window size - MIN_LOOKAHEAD (262)`, i.e. 512 - 262 = 250 < 256 bytes, so every stream it
/// produces is valid for a 256-byte inflate window (the tests inflate such output with an 8-bit inflater).
/// Accepting keeps compression on for Autobahn 13.3.x/13.5.x instead of merely "UNIMPLEMENTED".
public enum PerMessageDeflateNegotiation {
    /// Server side. `offers` holds the raw values of every `Sec-WebSocket-Extensions` request header, in
    /// order. Walks the offered elements in order and accepts the first valid permessage-deflate offer.
    /// Returns the response header value and the agreed parameters, or nil when no offer is acceptable
    /// (the connection continues without compression). Malformed, duplicate or unknown parameters make that
    /// one offer unacceptable (RFC 7692 §5.1: decline), never an error. Quoted values are handled.
    /// The response holds only parameters a server may send: `client_max_window_bits` only when offered.
    public static func negotiate(
        offers: [String], settings: PerMessageDeflateSettings
    ) -> (responseHeader: String, parameters: PerMessageDeflateParameters)? {
        guard settings.enabled else { return nil }
        for header in offers {
            for element in ExtensionHeaderParser.parse(header) where element.name == DeflateParameterSet.extensionName {
                guard let offer = DeflateParameterSet(element, isOffer: true) else { continue }
                return accept(offer, settings: settings)
            }
        }
        return nil
    }

    private static func accept(
        _ offer: DeflateParameterSet, settings: PerMessageDeflateSettings
    ) -> (responseHeader: String, parameters: PerMessageDeflateParameters) {
        var response = DeflateParameterSet()
        // RFC 7692 §7.1.1: either flag may be added by the server; echoing the client's hint of
        // client_no_context_takeover lets the inflater free its zlib state after every message.
        response.serverNoContextTakeover = offer.serverNoContextTakeover || settings.serverNoContextTakeover
        response.clientNoContextTakeover = offer.clientNoContextTakeover || settings.clientNoContextTakeover

        // RFC 7692 §7.1.2.1: reply with a value <= the offered one; without an offer we may still announce
        // a smaller window. The configured cap is 9...15 (zlib cannot allocate an 8-bit raw deflate window).
        let serverCap = min(max(settings.maxServerWindowBits, 9), 15)
        let serverBits = min(offer.serverMaxWindowBits ?? 15, serverCap)
        if offer.serverMaxWindowBits != nil || serverBits < 15 { response.serverMaxWindowBits = serverBits }

        // RFC 7692 §7.1.2.2: only when offered; then any value <= the offered one (or <= 15 if bare).
        let clientCap = min(max(settings.maxClientWindowBits, 8), 15)
        let clientBits: Int
        switch offer.clientMaxWindowBits {
        case .absent:
            clientBits = 15
        case .supported:
            clientBits = clientCap
            response.clientMaxWindowBits = .bits(clientBits)
        case .bits(let offered):
            clientBits = min(offered, clientCap)
            response.clientMaxWindowBits = .bits(clientBits)
        }

        let parameters = PerMessageDeflateParameters(
            serverNoContextTakeover: response.serverNoContextTakeover,
            clientNoContextTakeover: response.clientNoContextTakeover,
            serverMaxWindowBits: serverBits,
            clientMaxWindowBits: clientBits)
        return (response.headerValue, parameters)
    }

    /// Client side: the `Sec-WebSocket-Extensions` value to send. `clientMaxWindowBits` nil offers a bare
    /// `client_max_window_bits` (we can compress with any window the server picks); window values are
    /// clamped to 8...15. `serverMaxWindowBits` asks the server for a smaller window.
    public static func clientOffer(
        clientMaxWindowBits: Int? = nil,
        clientNoContextTakeover: Bool = false,
        serverNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int? = nil
    ) -> String {
        let range = DeflateParameterSet.windowBitsRange
        var offer = DeflateParameterSet()
        offer.clientNoContextTakeover = clientNoContextTakeover
        offer.serverNoContextTakeover = serverNoContextTakeover
        offer.serverMaxWindowBits = serverMaxWindowBits.map { min(max($0, range.lowerBound), range.upperBound) }
        offer.clientMaxWindowBits = clientMaxWindowBits.map { .bits(min(max($0, range.lowerBound), range.upperBound)) } ?? .supported
        return offer.headerValue
    }

    /// Client side: validates the server's `Sec-WebSocket-Extensions` response against `offer` (the value
    /// we sent, possibly several comma-separated offers) and returns the agreed parameters.
    /// Throws when the response is malformed, names anything but exactly one permessage-deflate, or carries a
    /// parameter the server may not send for any of our offers (RFC 7692 §7.1); the client must then fail
    /// the connection. A missing response header means "declined" and must not be passed here.
    public static func acceptServerResponse(_ header: String, offer: String) throws(PerMessageDeflateError) -> PerMessageDeflateParameters {
        let offers = ExtensionHeaderParser.parse(offer).compactMap { DeflateParameterSet($0, isOffer: true) }
        guard !offers.isEmpty else { throw PerMessageDeflateError(message: "the offer holds no valid permessage-deflate") }
        let elements = ExtensionHeaderParser.parse(header)
        guard elements.count == 1 else {
            throw PerMessageDeflateError(message: "expected exactly one extension in the response, got \(elements.count)")
        }
        guard elements[0].name == DeflateParameterSet.extensionName else {
            throw PerMessageDeflateError(message: "the server accepted an extension we did not offer: \(elements[0].name)")
        }
        guard let response = DeflateParameterSet(elements[0], isOffer: false) else {
            throw PerMessageDeflateError(message: "malformed permessage-deflate response: \(header)")
        }
        var firstError: PerMessageDeflateError?
        for candidate in offers {
            do {
                return try match(response, to: candidate)
            } catch {
                firstError = firstError ?? error
            }
        }
        throw firstError ?? PerMessageDeflateError(message: "no offer matches")
    }

    private static func match(_ response: DeflateParameterSet, to offer: DeflateParameterSet) throws(PerMessageDeflateError) -> PerMessageDeflateParameters {
        // RFC 7692 §7.1.1.1: if we asked, the server must agree.
        if offer.serverNoContextTakeover && !response.serverNoContextTakeover {
            throw PerMessageDeflateError(message: "server_no_context_takeover was requested but not accepted")
        }
        // RFC 7692 §7.1.2.1: requested -> must be answered with a value <= ours.
        if let requested = offer.serverMaxWindowBits {
            guard let answered = response.serverMaxWindowBits, answered <= requested else {
                throw PerMessageDeflateError(message: "server_max_window_bits must be answered with at most \(requested)")
            }
        }
        // RFC 7692 §7.1.2.2: never sent unless offered; never larger than offered.
        let clientBits: Int
        switch (offer.clientMaxWindowBits, response.clientMaxWindowBits) {
        case (.absent, .absent):
            clientBits = 15
        case (.absent, _):
            throw PerMessageDeflateError(message: "client_max_window_bits in the response was not offered")
        case (.supported, .bits(let answered)):
            clientBits = answered
        case (.bits(let offered), .bits(let answered)):
            guard answered <= offered else {
                throw PerMessageDeflateError(message: "client_max_window_bits=\(answered) exceeds the offered \(offered)")
            }
            clientBits = answered
        case (.bits(let offered), _):
            clientBits = offered  // we promised this limit; keep it
        case (.supported, _):
            clientBits = 15
        }
        return PerMessageDeflateParameters(
            serverNoContextTakeover: response.serverNoContextTakeover,
            // A client that offered the hint keeps its word even if the server did not echo it.
            clientNoContextTakeover: response.clientNoContextTakeover || offer.clientNoContextTakeover,
            serverMaxWindowBits: response.serverMaxWindowBits ?? 15,
            clientMaxWindowBits: clientBits)
    }
}
