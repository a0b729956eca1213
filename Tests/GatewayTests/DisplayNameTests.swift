import Gateway
import GatewayProtocol
import Testing

/// Display names are shown to other people: nothing in them may reorder or hide text.
@Suite struct DisplayNameTests {
    func upsert(_ f: HubFixture, _ name: String) -> Result<GatewayHub.UserData, GatewayError>? {
        var result: Result<GatewayHub.UserData, GatewayError>?
        f.hub.upsertUser(id: "ann", displayName: name) { result = $0 }
        return result
    }

    @Test(arguments: [
        "abc\u{202E}gnp.exe",                       // right-to-left override: shown as "abcexe.png"
        "\u{202A}x", "\u{202B}x", "\u{202C}x", "\u{202D}x",
        "\u{2066}x", "\u{2067}x", "\u{2068}x", "\u{2069}x",
        "a\u{200E}b", "a\u{200F}b",                  // LRM / RLM
        "a\u{200B}b",                                // zero-width space (Cf)
        "a\u{FEFF}b",                                // zero-width no-break space (Cf)
        "ok\u{E0041}\u{E0042}",                      // tag characters: invisible text
    ])
    func formatCharactersAreRefused(_ name: String) throws {
        let f = try HubFixture()
        guard case .failure(let error)? = upsert(f, name) else { Issue.record("accepted \(name.debugDescription)"); return }
        #expect(error.code == .displayNameInvalid)
        #expect(error.message.contains("format characters"))
        #expect(f.hub.user("ann") == nil)
    }

    @Test(arguments: ["Ann", "Zoë", "李雷", "👩\u{200D}💻 dev", "مرحبا"])
    func ordinaryNamesPass(_ name: String) throws {
        let f = try HubFixture()
        guard case .success(let user)? = upsert(f, name) else { Issue.record("refused \(name.debugDescription)"); return }
        #expect(user.displayName == name)
    }
}
