import Push
import Testing

@Suite struct RedactorTests {
    static let secrets: [(input: String, expected: String)] = [
        ("use sk-proj-AbCdEfGhIjKlMnOpQrStUv123 now", "use [redacted] now"),
        ("key sk-ant-api03-abcdefghijklmnop", "key [redacted]"),
        ("token ghp_0123456789abcdefghijABCDEFGHIJ12 ok", "token [redacted] ok"),
        ("pat github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "pat [redacted]"),
        ("slack xoxb-1234567890-abcdefghij here", "slack [redacted] here"),
        ("aws AKIAIOSFODNN7EXAMPLE.", "aws [redacted]."),
        ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl end", "jwt [redacted] end"),
        ("Authorization: Bearer abc.DEF-123_x~y end", "Authorization: Bearer [redacted] end"),
        ("curl -H 'authorization: bearer 0123' x", "curl -H 'authorization: bearer [redacted]' x"),
        ("login password=hunter2 done", "login password=[redacted] done"),
        ("db secret: s3cr3t, host x", "db secret: [redacted], host x"),
        (#"{"api_key": "abc def"}"#, #"{"api_key": [redacted]}"#),
        ("PASSWORD = 'two words' ok", "PASSWORD = [redacted] ok"),
        ("sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ok", "sha [redacted] ok"),
        ("blob dGhpcyBpcyBhIHNlY3JldCBrZXkgMTIzNDU2Nzg5MA== ok", "blob [redacted] ok"),
    ]

    @Test(arguments: secrets)
    func secretIsRedacted(_ input: String, _ expected: String) {
        #expect(Redactor.redact(input) == expected)
    }

    static let ordinary = [
        "Deploy the staging build to production?",
        "Run `rm -rf build/` in /Users/alice/Documents/projects/switchboard and retry",
        "Internationalization and counterrevolutionaries are long words",
        "The skeleton key is in the drawer; ask-me-anything; sk-8 is a size",
        "Commit 1a2b3c4 fixes issue #1234 — token bucket tuned",
        "Password reset email sent to bob@example.com",
        "Émoji 👩‍👩‍👧‍👦 and ümlauts stay",
    ]

    @Test(arguments: ordinary)
    func ordinaryTextIsUntouched(_ text: String) {
        #expect(Redactor.redact(text) == text)
    }

    @Test func cutsTo200CharactersOnAGraphemeBoundary() {
        let family = "👩‍👩‍👧‍👦"  // one Character, many scalars
        let words = String(String(repeating: "word ", count: 40).prefix(198))
        let long = words + family + family + "tail"
        let cut = Redactor.redact(long)
        #expect(cut.count == 200)
        #expect(cut.hasSuffix(family + "…"))
        #expect(cut == words + family + "…")
        let exact = String(String(repeating: "Hello ", count: 34).prefix(200))
        #expect(Redactor.redact(String(exact)) == String(exact))
        #expect(Redactor.redact(String(repeating: "a", count: 64)) == String(repeating: "a", count: 64))
        #expect(Redactor.truncate("abcdef", to: 4) == "abc…")
    }

    @Test func redactsBeforeCutting() {
        let text = "password=" + String(repeating: "x", count: 300) + " and then"
        #expect(Redactor.redact(text) == "password=[redacted] and then")
    }
}

@Suite struct PushAlertTextTests {
    @Test func genericWithoutDetails() {
        let approval = PushAlertText.lockScreen(kind: .approval, title: "Run deploy.sh?", body: "password=1", showDetails: false)
        #expect(approval == PushAlertText(title: "Approval needed", body: nil))
        #expect(PushAlertText.lockScreen(kind: .message, title: "Hi", body: "x", showDetails: false)
                == PushAlertText(title: "New message"))
    }

    @Test func redactedWithDetails() {
        let text = PushAlertText.lockScreen(kind: .message, title: "Claude", body: "Use token=abc123 please", showDetails: true)
        #expect(text == PushAlertText(title: "Claude", body: "Use token=[redacted] please"))
        #expect(PushAlertText.lockScreen(kind: .approval, title: "", body: "", showDetails: true)
                == PushAlertText(title: "Approval needed", body: nil))
    }
}
