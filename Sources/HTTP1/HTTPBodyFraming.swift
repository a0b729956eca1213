/// How the end of a message body is found (RFC 9112 §6.3).
enum HTTPBodyFraming: Equatable {
    /// No body at all.
    case none
    /// Exactly this many bytes follow the head (Content-Length).
    case length(Int)
    /// Chunked transfer coding (RFC 9112 §7.1).
    case chunked
    /// Response body delimited by the connection closing (RFC 9112 §6.3 rule 8).
    case untilClose

    /// Framing of a message from its headers. `versionMinor` 0 forbids Transfer-Encoding
    /// (RFC 9112 §6.1: an HTTP/1.0 message with one has faulty framing). `otherwise` is the
    /// framing when neither header is present (none for requests, until-close for responses).
    static func from(
        _ headers: HTTPHeaders, versionMinor: Int, limits: HTTPLimits, otherwise: HTTPBodyFraming
    ) throws(HTTPParseError) -> HTTPBodyFraming {
        let transferEncodings = headers.values("Transfer-Encoding")
        let contentLengths = headers.values("Content-Length")
        if !transferEncodings.isEmpty {
            // RFC 9112 §6.1: both present is a smuggling vector; refuse rather than guess.
            guard contentLengths.isEmpty else {
                throw .badRequest("both Transfer-Encoding and Content-Length present")
            }
            guard versionMinor >= 1 else { throw .badRequest("Transfer-Encoding in an HTTP/1.0 message") }
            return try chunkedOnly(transferEncodings)
        }
        if !contentLengths.isEmpty {
            return .length(try contentLength(contentLengths, limits: limits))
        }
        return otherwise
    }

    /// Only the chunked coding is implemented; anything else is 501 (RFC 9112 §6.1).
    private static func chunkedOnly(_ values: [String]) throws(HTTPParseError) -> HTTPBodyFraming {
        var codings: [Substring] = []
        for value in values { codings += ASCII.listElements(value) }
        guard !codings.isEmpty else { throw .badRequest("empty Transfer-Encoding") }
        for coding in codings where !ASCII.equalsIgnoringCase(String(coding), "chunked") {
            throw HTTPParseError(status: 501, message: "only the chunked Transfer-Encoding is supported")
        }
        // RFC 9112 §7.1: chunked must not be applied more than once.
        guard codings.count == 1 else { throw .badRequest("chunked Transfer-Encoding applied more than once") }
        return .chunked
    }

    /// RFC 9110 §8.6: Content-Length = 1*DIGIT; a list of identical values may be accepted
    /// as one, differing values are an unrecoverable framing error.
    private static func contentLength(_ values: [String], limits: HTTPLimits) throws(HTTPParseError) -> Int {
        var result: Int?
        for value in values {
            let elements = value.split(separator: ",", omittingEmptySubsequences: false)
            for element in elements {
                let digits = ASCII.trimmingWhitespace(element).utf8
                guard !digits.isEmpty, digits.allSatisfy(ASCII.isDigit) else {
                    throw .badRequest("Content-Length is not a decimal number")
                }
                // Anything with more than 18 digits is far beyond any limit and would overflow Int.
                guard digits.count <= 18 else {
                    throw HTTPParseError(status: 413, message: "body larger than \(limits.maxBodyBytes) bytes")
                }
                var length = 0
                for digit in digits { length = length * 10 + Int(digit - UInt8(ascii: "0")) }
                if let result, result != length {
                    throw .badRequest("conflicting Content-Length values")
                }
                result = length
            }
        }
        let length = result ?? 0
        guard length <= limits.maxBodyBytes else {
            throw HTTPParseError(status: 413, message: "body larger than \(limits.maxBodyBytes) bytes")
        }
        return length
    }
}
