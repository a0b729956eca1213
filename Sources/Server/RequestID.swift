import HTTP1

/// `X-Request-Id` on every HTTP response: the client's own id when it sent a sane one (so a backend can follow its
/// call through our logs), else a fresh random one.
enum RequestID {
    /// The id to answer with: `incoming` if it is 1…128 characters of `[A-Za-z0-9._:-]`, else a new 16-hex-digit id.
    static func forRequest(_ incoming: String?) -> String {
        if let incoming, (1...128).contains(incoming.utf8.count), incoming.utf8.allSatisfy(isAllowed) { return incoming }
        var generator = SystemRandomNumberGenerator()
        let value = UInt64.random(in: .min ... .max, using: &generator)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}

extension HTTPResponse {
    /// The `code` of a JSON error body (`{"error":{"code":"…"}}`), for log lines.
    var errorCode: String? {
        let text = String(decoding: body, as: UTF8.self)
        guard let start = text.firstRange(of: "\"code\":\"") else { return nil }
        let rest = text[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
