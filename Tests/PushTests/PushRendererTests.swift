import JSON
import Push
import Testing

/// `PushRenderer`: one privacy rule for every provider, every payload under its limit, text cut on grapheme
/// boundaries and never a failed render.
@Suite struct PushRendererTests {
    static let approvalState: JSONValue = .object([
        "requestId": .string("apr_12"), "sessionId": .string("run1"), "toolName": .string("shell"),
        "summary": .string("rm -rf build && curl -H 'Authorization: Bearer abc.def' x"), "state": .string("pending"),
        "createdAt": .int(1_700_000_000_000), "expiresAt": .int(1_700_000_060_000),
        "details": .object(["command": .string("deploy --token=s3cr3t"), "cwd": .string("/srv/app")]),
        "decidedBy": .object(["deviceId": .string("desk"), "clientType": .string("desktop")]),
    ])

    static func approval(showDetails: Bool, summary: String = "rm -rf build", state: JSONValue = approvalState) -> PushContent {
        PushContent(type: "approval_request", title: "Approval needed: shell", body: summary, genericTitle: "Approval needed",
                    showDetails: showDetails, titleArguments: ["shell"], interruption: .timeSensitive,
                    routing: PushRouting(type: "approval_request", ids: ["requestId": "apr_12", "sessionId": "run1"],
                                         deeplinkTemplate: "app://session/{sessionId}/approval/{requestId}"),
                    collapseID: "apr_12", threadID: "run1", badge: 2, contentState: state)
    }

    static func object(_ bytes: [UInt8]) throws -> JSONValue { try JSONValue.parse(bytes) }

    static func value(_ root: JSONValue, _ path: String...) -> JSONValue? {
        var current: JSONValue? = root
        for name in path {
            guard case .object(let members)? = current else { return nil }
            current = members[name]
        }
        return current
    }

    // MARK: Privacy, per provider

    @Test func withoutDetailsTheAlertIsGenericOnEveryProvider() throws {
        let content = Self.approval(showDetails: false)
        let apns = try Self.object(PushRenderer.apns(content, .alert, now: 1_700_000_000))
        #expect(Self.value(apns, "aps", "alert") == .object(["title": .string("Approval needed"), "title-loc-key": .string("SB_APPROVAL_NEEDED")]))
        #expect(Self.value(apns, "aps", "interruption-level") == .string("time-sensitive"))
        #expect(Self.value(apns, "requestId") == .string("apr_12"))

        let fcm = PushRenderer.fcm(content, token: "t", background: false)
        #expect(fcm.fields["notification"] == .object(["title": .string("Approval needed")]))
        #expect(Self.value(.object(fcm.fields), "android", "notification", "title_loc_key") == .string("SB_APPROVAL_NEEDED"))
        #expect(Self.value(.object(fcm.fields), "data", "requestId") == .string("apr_12"))

        let hook = try Self.object(PushRenderer.webhook(content, target: "w", kind: "alert"))
        #expect(Self.value(hook, "title") == .string("Approval needed"))
        #expect(Self.value(hook, "body") == nil)
        #expect(Self.value(hook, "titleLocKey") == .string("SB_APPROVAL_NEEDED"))
    }

    @Test func withoutDetailsALiveActivityKeepsOnlyIdsStatesAndNumbers() throws {
        for kind in [PushRenderer.APNsKind.liveActivityUpdate(alert: true), .liveActivityStart(attributesType: "A"), .liveActivityEnd] {
            let payload = try Self.object(PushRenderer.apns(Self.approval(showDetails: false), kind, now: 1_700_000_000))
            #expect(Self.value(payload, "aps", "content-state") == .object([
                "requestId": .string("apr_12"), "sessionId": .string("run1"), "state": .string("pending"),
                "createdAt": .int(1_700_000_000_000), "expiresAt": .int(1_700_000_060_000),
                "details": .object([:]), "decidedBy": .object(["deviceId": .string("desk")]), "detailsHidden": .bool(true),
            ]), "\(kind)")
            let text = String(decoding: PushRenderer.apns(Self.approval(showDetails: false), kind, now: 1_700_000_000), as: UTF8.self)
            #expect(!text.contains("rm -rf") && !text.contains("s3cr3t") && !text.contains("shell\""), "\(kind): \(text)")
        }
    }

    @Test func withDetailsTextIsRedactedEverywhereButIdsAreKept() throws {
        let content = Self.approval(showDetails: true, summary: "curl -H 'Authorization: Bearer abc.def' x")
        let apns = try Self.object(PushRenderer.apns(content, .alert, now: 0))
        #expect(Self.value(apns, "aps", "alert") == .object([
            "title": .string("Approval needed: shell"), "body": .string("curl -H 'Authorization: Bearer [redacted]' x"),
            "title-loc-key": .string("SB_APPROVAL_NEEDED_FOR"), "title-loc-args": .array([.string("shell")]),
        ]))
        let activity = try Self.object(PushRenderer.apns(content, .liveActivityUpdate(alert: false), now: 0))
        #expect(Self.value(activity, "aps", "content-state", "summary") == .string("rm -rf build && curl -H 'Authorization: Bearer [redacted]' x"))
        #expect(Self.value(activity, "aps", "content-state", "details", "command") == .string("deploy --token=[redacted]"))
        #expect(Self.value(activity, "aps", "content-state", "requestId") == .string("apr_12"))
        #expect(Self.value(activity, "aps", "content-state", "detailsHidden") == nil)
        #expect(Self.value(activity, "aps", "alert") == nil)

        let fcm = PushRenderer.fcm(content, token: "t", background: false)
        #expect(Self.value(.object(fcm.fields), "notification", "body") == .string("curl -H 'Authorization: Bearer [redacted]' x"))
        #expect(Self.value(.object(fcm.fields), "android", "notification", "title_loc_args") == .array([.string("shell")]))
        let hook = try Self.object(PushRenderer.webhook(content, target: "w", kind: "alert"))
        #expect(Self.value(hook, "body") == .string("curl -H 'Authorization: Bearer [redacted]' x"))
        #expect(Self.value(hook, "titleLocArgs") == .array([.string("shell")]))
    }

    @Test func aBackgroundPushCarriesNoText() throws {
        let apns = try Self.object(PushRenderer.apns(Self.approval(showDetails: true), .background, now: 0))
        #expect(Self.value(apns, "aps") == .object(["content-available": .int(1), "badge": .int(2)]))
        let fcm = PushRenderer.fcm(Self.approval(showDetails: true), token: "t", background: true)
        #expect(fcm.fields["notification"] == nil)
        #expect(Self.value(.object(fcm.fields), "android", "priority") == .string("normal"))
    }

    @Test func aBackendTitleHasNoDetailedKeyAndAnEmptyTitleFallsBackToTheGenericOne() {
        let backend = PushContent(type: "custom", title: "Deploy finished", body: "v2.3 is live", genericTitle: "New notification", showDetails: true)
        #expect(PushRenderer.visibleText(backend) == PushAlertText(title: "Deploy finished", body: "v2.3 is live"))
        let untitled = PushContent(type: "message", title: "", body: "hi", genericTitle: "New message", showDetails: true)
        #expect(PushRenderer.visibleText(untitled) == PushAlertText(title: "New message", body: "hi", titleKey: "SB_NEW_MESSAGE"))
        let message = PushContent(type: "message", title: "Ann", body: "hi", genericTitle: "New message", showDetails: true)
        #expect(PushRenderer.visibleText(message) == PushAlertText(title: "Ann", body: "hi", titleKey: "SB_MESSAGE_FROM", titleArguments: ["Ann"]))
    }

    // MARK: Size limits

    /// A content-state whose text alone is several times the limit: emoji with skin tones, combining marks, CJK and
    /// characters JSON escapes.
    static func hugeState() -> JSONValue {
        .object([
            "requestId": .string("apr_12"), "sessionId": .string("run1"), "state": .string("pending"),
            "summary": .string(String(repeating: "👩🏽‍💻 déjà vu 漢字 \"quoted\"\n", count: 300)),
            "details": .object(["log": .string(String(repeating: "e\u{301}\u{1}", count: 2_000)),
                                "lines": .array(Array(repeating: .string(String(repeating: "x", count: 300)), count: 20))]),
        ])
    }

    @Test(arguments: [PushRenderer.APNsKind.alert, .liveActivityUpdate(alert: true), .liveActivityStart(attributesType: "A"), .liveActivityEnd])
    func everyAPNsPayloadFitsAndStaysValid(_ kind: PushRenderer.APNsKind) throws {
        let content = Self.approval(showDetails: true, summary: String(repeating: "🇫🇷👨‍👩‍👧‍👦", count: 2_000), state: Self.hugeState())
        // Redaction already cuts each text to 200 characters; raise the stakes with raw titles too.
        var big = content
        big.title = String(repeating: "Approval needed: ", count: 500)
        let bytes = PushRenderer.apns(big, kind, now: 1_700_000_000)
        #expect(bytes.count <= 4_096, "\(kind): \(bytes.count) bytes")
        let payload = try Self.object(bytes)   // still JSON, with valid UTF-8
        #expect(Self.value(payload, "requestId") == .string("apr_12"))
        #expect(Self.value(payload, "deeplink") == .string("app://session/run1/approval/apr_12"))
        if kind != .alert {
            #expect(Self.value(payload, "aps", "content-state", "requestId") == .string("apr_12"))
            #expect(Self.value(payload, "aps", "content-state", "state") == .string("pending"))
        }
    }

    @Test func withoutDetailsAHugeStateIsStillUnderTheLimit() throws {
        let bytes = PushRenderer.apns(Self.approval(showDetails: false, state: Self.hugeState()), .liveActivityUpdate(alert: true), now: 0)
        #expect(bytes.count <= 4_096)
        #expect(Self.value(try Self.object(bytes), "aps", "content-state", "detailsHidden") == .bool(true))
    }

    @Test func aStateOfNumbersTooBigForAnyCutIsEmptiedRatherThanRefused() throws {
        let numbers: JSONValue = .object(["requestId": .string("apr_12"), "samples": .array((0..<2_000).map { .int(Int64($0) * 1_000_003) })])
        let bytes = PushRenderer.apns(Self.approval(showDetails: true, state: numbers), .liveActivityUpdate(alert: false), now: 0)
        #expect(bytes.count <= 4_096)
        #expect(Self.value(try Self.object(bytes), "aps", "content-state") == .object([:]))
    }

    @Test func anFCMMessageFitsWithItsIdsWhole() throws {
        var content = Self.approval(showDetails: true)
        content.title = String(repeating: "👨‍👩‍👧‍👦", count: 3_000)
        content.body = String(repeating: "👩🏽‍💻", count: 3_000)
        let message = PushRenderer.fcm(content, token: "tok", background: false)
        let size = try JSONValue.object(message.fields).serialized().count
        #expect(size <= 4_096, "\(size) bytes")
        #expect(Self.value(.object(message.fields), "data", "requestId") == .string("apr_12"))
    }

    @Test func aPayloadUnderTheLimitIsLeftAlone() {
        let payload: JSONValue = .object(["aps": .object(["alert": .object(["title": .string("short")])])])
        #expect(PayloadFitter.fit(payload, limit: 4_096, shortenable: { _ in true }) == (try? payload.serialized()))
    }

    // MARK: Cutting text

    @Test func shorteningNeverSplitsAGraphemeOrAnEscape() {
        let family = "👨‍👩‍👧‍👦"   // one Character, 25 UTF-8 bytes
        #expect(PayloadFitter.shorten(String(repeating: family, count: 3), toEscapedBytes: 60) == family + family + "…")
        #expect(PayloadFitter.shorten(String(repeating: family, count: 3), toEscapedBytes: 24) == "…")
        // "é" as e + U+0301 stays whole; "\n" counts as its two escaped bytes.
        #expect(PayloadFitter.shorten("e\u{301}e\u{301}e\u{301}", toEscapedBytes: 4) == "e\u{301}…")
        #expect(PayloadFitter.shorten("a\nb\nc\nd", toEscapedBytes: 3) == "a\n…")
        #expect(PayloadFitter.shorten("a\nb\nc\nd", toEscapedBytes: 2) == "a…")
        #expect(PayloadFitter.shorten("short", toEscapedBytes: 3) == "short")
        #expect(PayloadFitter.escapedSize("a\"\u{1}é") == 1 + 2 + 6 + 2)
    }

    @Test func everyCutOfRandomUnicodeIsValidAndWithinItsBudget() {
        var random = SplitMix(seed: 22)
        let alphabet: [String] = ["a", "é", "e\u{301}", "漢", "🙂", "👩🏽‍💻", "🇫🇷", "\"", "\\", "\n", "\u{1}", " "]
        for _ in 0..<300 {
            let text = (0..<Int(random.next() % 60)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
            let budget = Int(random.next() % 80)
            let cut = PayloadFitter.shorten(text, toEscapedBytes: budget)
            if cut == text { continue }
            #expect(cut.hasSuffix("…"))
            #expect(PayloadFitter.escapedSize(cut) <= budget + 3)
            #expect(text.hasPrefix(cut.dropLast()), "\(text.debugDescription) → \(cut.debugDescription)")
        }
    }

    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
