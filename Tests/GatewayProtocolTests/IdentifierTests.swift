import GatewayProtocol
import Testing

/// The id grammar itself: every id the gateway generates or the tests use is valid; what cannot be written into a
/// URL path unescaped, or means something else in one, is not.
@Suite struct IdentifierTests {
    @Test(arguments: [
        "usr_0a1b2c3d4e5f60718293a4b5c6d7e8f9", "dev_00ff", "ann", "ann-phone", "s1", "o'neil@example.com",
        "phone:1", "a.b_c~d!$&()*+,;=", "...", String(repeating: "x", count: 128)
    ])
    func valid(_ id: String) {
        #expect(Identifier.isValid(id))
    }

    @Test(arguments: [
        "", ".", "..", String(repeating: "x", count: 129), "a b", "a/b", "a%20", "a?b", "a#b", "a\"b", "a\\b",
        "a\u{0}", "a\u{7F}", "tab\t", "zoë", "李", "a\u{202E}b", "a<b>", "a[b]", "a{b}", "a|b", "a^b", "a`b"
    ])
    func invalid(_ id: String) {
        #expect(!Identifier.isValid(id))
        #expect(throws: GatewayError.self) { try Identifier.check(id, field: "userId") }
    }
}
