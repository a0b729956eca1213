import Auth
import Testing

@Suite struct MalformedTokenTests {
    private let now = TokenFactory.now
    private let verifier = TokenFactory.hmacVerifier()

    private func code(_ token: String) -> String? {
        TokenFactory.errorCode { try verifier.verify(token, now: now) }
    }

    @Test(arguments: ["none", "None", "NONE", "nOnE"])
    func algNoneIsRejectedInEverySpelling(alg: String) throws {
        let header = TokenFactory.segment(#"{"alg":"\#(alg)","typ":"JWT"}"#)
        let body = TokenFactory.segment(TokenFactory.payload)
        #expect(code(header + "." + body + ".") == JWTError.unsupportedAlgorithm)
        // Even with a valid HMAC attached.
        #expect(code(try TokenFactory.hs256(header: #"{"alg":"\#(alg)"}"#)) == JWTError.unsupportedAlgorithm)
    }

    @Test(arguments: ["hs256", "HS384", "RS256", "PS256", "EdDSA", "ES256K", ""])
    func otherAlgorithmsAreUnsupported(alg: String) throws {
        #expect(code(try TokenFactory.hs256(header: #"{"alg":"\#(alg)"}"#)) == JWTError.unsupportedAlgorithm)
    }

    @Test func critHeaderIsRejected() throws {
        #expect(code(try TokenFactory.hs256(header: #"{"alg":"HS256","crit":["exp"],"exp":1}"#)) == JWTError.unsupportedAlgorithm)
        #expect(code(try TokenFactory.hs256(header: #"{"alg":"HS256","b64":false,"crit":["b64"]}"#)) == JWTError.unsupportedAlgorithm)
        #expect(code(try TokenFactory.hs256(header: #"{"alg":"HS256","crit":[]}"#)) == JWTError.unsupportedAlgorithm)
    }

    @Test func headerMustBeAnObjectWithAStringAlgAndKid() throws {
        for header in ["[]", #""HS256""#, "null", "{}", #"{"typ":"JWT"}"#, #"{"alg":256}"#, #"{"alg":"HS256","kid":5}"#,
                       #"{"alg":"HS256","alg":"HS256"}"#, #"{"alg":"HS256",}"#, "{\"alg\":\"HS256\"} x", "not json"] {
            #expect(code(try TokenFactory.hs256(header: header)) == JWTError.malformed, "header \(header)")
        }
    }

    @Test func payloadMustBeAJSONObject() throws {
        for payload in ["[]", #""sub""#, "42", "null", "", #"{"sub":"a","sub":"b","exp":1700000600}"#,
                        #"{"exp":1700000600} trailing"#, #"{"exp":1700000600,}"#] {
            #expect(code(try TokenFactory.hs256(payload: payload)) == JWTError.malformed, "payload \(payload)")
        }
    }

    @Test func wrongNumberOfPartsOrBadBase64URL() throws {
        let token = try TokenFactory.hs256()
        let parts = token.split(separator: ".").map(String.init)
        let cases = [
            "", ".", "..", "...", parts[0], parts[0] + "." + parts[1], token + ".", token + "." + parts[2],
            "." + parts[1] + "." + parts[2], parts[0] + ".." + parts[2],
            parts[0] + "=." + parts[1] + "." + parts[2],        // padding
            parts[0] + "." + parts[1] + "." + parts[2] + "=",
            parts[0] + "." + parts[1] + "+." + parts[2],        // standard-base64 character
            token + " ", " " + token, token + "\n",             // trailing / leading garbage
            parts[0] + "." + parts[1] + "." + parts[2] + "A",   // length ≡ 1 mod 4 or extra bits
            String(repeating: "a", count: JWTVerifier.maximumTokenLength + 1),
        ]
        for candidate in cases {
            let result = code(candidate)
            #expect(result == JWTError.malformed || result == JWTError.badSignature, "\(candidate.count) bytes → \(result ?? "accepted")")
            #expect(result != nil)
        }
        // Shape problems specifically are `malformed`.
        #expect(code(parts[0] + "." + parts[1]) == JWTError.malformed)
        #expect(code(token + " ") == JWTError.malformed)
        #expect(code(parts[0] + "=." + parts[1] + "." + parts[2]) == JWTError.malformed)
    }

    /// Base64url is decoded canonically, so changing any one character of a valid token changes
    /// the bytes or is invalid: no single-character edit may ever be accepted.
    @Test func everySingleCharacterEditIsRejected() throws {
        let token = try TokenFactory.hs256()
        let alphabet = Array("AbZz09-_.=+/ ")
        var bytes = Array(token)
        var generator = SystemRandomNumberGenerator()
        for position in bytes.indices {
            let original = bytes[position]
            let replacement = alphabet.filter { $0 != original }.randomElement(using: &generator)!
            bytes[position] = replacement
            #expect(code(String(bytes)) != nil, "edit at \(position) accepted")
            bytes[position] = original
        }
        #expect(code(String(bytes)) == nil)
    }

    @Test func everyPrefixOfAValidTokenIsRejected() throws {
        let token = Array(try TokenFactory.hs256())
        for length in 0..<token.count {
            #expect(code(String(token[..<length])) != nil, "prefix of \(length) accepted")
        }
    }

    @Test func errorMessagesNeverContainTheToken() throws {
        let token = try TokenFactory.hs256(header: #"{"alg":"none<script>"}"#)
        let parts = token.split(separator: ".").map(String.init)
        let probes = [token, parts[0] + "." + parts[1], token + "=", try TokenFactory.hs256(payload: #"{"exp":"secretvalue"}"#)]
        for probe in probes {
            do {
                _ = try verifier.verify(probe, now: now)
                Issue.record("accepted")
            } catch {
                for part in probe.split(separator: ".") where part.count >= 8 {
                    #expect(!error.description.contains(part))
                }
                #expect(!error.description.contains("script"))
                #expect(!error.description.contains("secretvalue"))
            }
        }
    }
}
