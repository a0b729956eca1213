@testable import Auth
import Testing

/// `AnswerToken`: minted and verified without a clock or store; every binding is checked and a forged or altered
/// token says nothing but "invalid".
@Suite struct AnswerTokenTests {
    let key = Array("0123456789abcdef0123456789abcdef".utf8)
    let nonce: [UInt8] = Array(0..<16)
    var token: AnswerToken {
        AnswerToken(approvalId: "apr_12", userId: "ann", deviceId: "ann-phone", expiresAt: 1_700_000_060_000, nonce: nonce)
    }

    @Test func aMintedTokenVerifiesForItsApprovalUntilItsExpiry() throws {
        let text = try token.signed(key: key)
        #expect(text.hasPrefix("sbat1."))
        #expect(AnswerToken.verify(text, approvalId: "apr_12", now: 1_700_000_059_999, key: key) == .success(token))
        #expect(AnswerToken.verify(text, approvalId: "apr_12", now: 1_700_000_060_000, key: key) == .failure(.expired))
    }

    @Test func aTokenOfAnotherApprovalIsForeign() throws {
        let text = try token.signed(key: key)
        #expect(AnswerToken.verify(text, approvalId: "apr_13", now: 0, key: key) == .failure(.foreign))
    }

    @Test func theSameClaimsSignTheSameAndAnotherNonceSignsDifferently() throws {
        #expect(try token.signed(key: key) == (try token.signed(key: key)))
        var other = token
        other.nonce = Array(1...16)
        #expect(try other.signed(key: key) != (try token.signed(key: key)))
    }

    @Test func anotherKeyOrAnyAlteredByteIsInvalid() throws {
        let text = try token.signed(key: key)
        #expect(AnswerToken.verify(text, approvalId: "apr_12", now: 0, key: Array("another key of thirty-two bytes!".utf8)) == .failure(.invalid))
        // Flip each character of the claims and the tag in turn: never accepted, never anything but invalid.
        let characters = Array(text)
        for index in AnswerToken.prefix.count..<characters.count where characters[index] != "." {
            var altered = characters
            altered[index] = altered[index] == "A" ? "B" : "A"
            let result = AnswerToken.verify(String(altered), approvalId: "apr_12", now: 0, key: key)
            #expect(result == .failure(.invalid), "position \(index)")
        }
    }

    @Test func aClaimMovedBetweenIdsDoesNotVerify() throws {
        // Length prefixes keep ("ann", "-phone") and ("ann-", "phone") apart.
        let a = AnswerToken(approvalId: "apr_12", userId: "ann", deviceId: "-phone", expiresAt: 1, nonce: nonce)
        let b = AnswerToken(approvalId: "apr_12", userId: "ann-", deviceId: "phone", expiresAt: 1, nonce: nonce)
        #expect(try a.signed(key: key) != (try b.signed(key: key)))
    }

    @Test(arguments: ["", "sbat1.", "sbat1..", "sbat2.AAAA.AAAA", "sbat1.AAAA", "sbat1.AAAA.AAAA.AAAA", "sbat1.!!!.AAAA", "Bearer x"])
    func malformedTextIsInvalid(_ text: String) {
        #expect(AnswerToken.verify(text, approvalId: "apr_12", now: 0, key: key) == .failure(.invalid))
    }

    @Test func aShortKeyOrNonceIsRefusedAtMinting() {
        #expect(throws: JWTError.self) { try token.signed(key: Array("short".utf8)) }
        var weak = token
        weak.nonce = [1, 2, 3]
        #expect(throws: JWTError.self) { try weak.signed(key: key) }
        #expect(AnswerToken.verify("sbat1.AAAA.AAAA", approvalId: "apr_12", now: 0, key: []) == .failure(.invalid))
    }
}
