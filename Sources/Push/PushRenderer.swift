import JSON

/// The one place a push's content becomes provider payloads (docs/PUSH.md, "Lock-screen privacy"): the same
/// show-details rule for APNs alerts, Live Activity content-state, FCM messages and webhook bodies, and every provider
/// payload kept under its size limit by shortening text (``PayloadFitter``), never by failing. Pure.
///
/// The rule: without "show details" the visible title is the generic one (no body), and a content-state keeps only
/// ids, states and numbers (`detailsHidden: true` added); with it, titles, bodies and content-state text pass
/// ``Redactor`` (ids excepted). Times are Unix seconds.
public enum PushRenderer {
    /// APNs' payload limit for alerts and background pushes (bytes).
    public static let apnsLimit = 4_096
    /// APNs' payload limit for Live Activity pushes.
    public static let liveActivityLimit = 4_096
    /// FCM's limit on a message's payload (the members other than the token).
    public static let fcmLimit = 4_096

    /// What an APNs push does.
    public enum APNsKind: Equatable, Sendable {
        case alert, background
        /// `alert`: also light the screen with the visible text (approval requests).
        case liveActivityUpdate(alert: Bool)
        case liveActivityStart(attributesType: String)
        case liveActivityEnd
    }

    // MARK: The privacy rule

    /// The visible title and body, with their localisation key.
    public static func visibleText(_ content: PushContent) -> PushAlertText {
        let keys = PushLocalization.keys(for: content.type)
        guard content.showDetails else { return PushAlertText(title: content.genericTitle, titleKey: keys.generic) }
        let title = Redactor.redact(content.title ?? "")
        let body = content.body.map(Redactor.redact).flatMap { $0.isEmpty ? nil : $0 }
        guard !title.isEmpty else { return PushAlertText(title: content.genericTitle, body: body, titleKey: keys.generic) }
        guard let detailed = keys.detailed else { return PushAlertText(title: title, body: body) }
        return PushAlertText(title: title, body: body, titleKey: detailed,
                             titleArguments: (content.titleArguments ?? [title]).map(Redactor.redact))
    }

    /// A content-state as the lock screen may show it: with details every text but ids redacted; without, only ids,
    /// states and numbers kept, and `detailsHidden: true` so the activity shows its generic text.
    public static func visibleState(_ state: JSONValue, showDetails: Bool) -> JSONValue {
        let visible = filtered(state, key: nil, showDetails: showDetails) ?? .object([:])
        guard !showDetails, case .object(var members) = visible else { return visible }
        members["detailsHidden"] = .bool(true)
        return .object(members)
    }

    /// Members whose strings route or name a state rather than say something: kept without details, never redacted
    /// or shortened.
    static func isStructural(_ key: String) -> Bool {
        key == "id" || key.hasSuffix("Id") || ["state", "status", "kind", "type", "event", "decision"].contains(key)
    }

    private static func filtered(_ value: JSONValue, key: String?, showDetails: Bool) -> JSONValue? {
        switch value {
        case .string(let text):
            if let key, isStructural(key) { return value }
            return showDetails ? .string(Redactor.redact(text)) : nil
        case .object(let members):
            var kept: [String: JSONValue] = [:]
            for (name, member) in members {
                if let visible = filtered(member, key: name, showDetails: showDetails) { kept[name] = visible }
            }
            return .object(kept)
        case .array(let elements):
            // Elements inherit their array's name: ["a", "b"] under `requestIds` are ids.
            return .array(elements.compactMap { filtered($0, key: key, showDetails: showDetails) })
        case .number, .int, .bool, .null:
            return value
        }
    }

    // MARK: Providers

    /// The APNs payload (JSON bytes) for `content`, at most ``apnsLimit`` / ``liveActivityLimit`` bytes.
    public static func apns(_ content: PushContent, _ kind: APNsKind, now: Int64) -> [UInt8] {
        let state = visibleState(content.contentState ?? .object([:]), showDetails: content.showDetails)
        let text = visibleText(content)
        let payload: JSONValue
        switch kind {
        case .alert:
            payload = PushPayloads.alert(text, badge: content.badge, threadID: content.threadID,
                                         timeSensitive: content.interruption == .timeSensitive,
                                         interruption: content.interruption?.rawValue, routing: content.routing)
        case .background:
            payload = PushPayloads.background(badge: content.badge, routing: content.routing)
        case .liveActivityUpdate(let alert):
            payload = PushPayloads.liveActivityUpdate(contentState: state, timestamp: now, alert: alert ? text : nil, routing: content.routing)
        case .liveActivityStart(let attributesType):
            payload = PushPayloads.liveActivityStart(attributesType: attributesType, attributes: .object(content.routing.ids.mapValues { .string($0) }),
                                                     contentState: state, timestamp: now, alert: text, routing: content.routing)
        case .liveActivityEnd:
            payload = PushPayloads.liveActivityEnd(contentState: state, timestamp: now, dismissalDate: now, routing: content.routing)
        }
        let limit = kind == .alert || kind == .background ? apnsLimit : liveActivityLimit
        return PayloadFitter.fit(payload, limit: limit, shortenable: apnsShortenable, fallbacks: apnsFallbacks)
    }

    /// The FCM message for `token` (a notification with the visible text, or data only for a background push),
    /// its payload at most ``fcmLimit`` bytes.
    public static func fcm(_ content: PushContent, token: String, background: Bool) -> FCMMessage {
        var data = content.routing.ids
        data["type"] = content.type
        if let link = content.routing.deeplink { data["deeplink"] = link }
        var fields: [String: JSONValue] = ["data": .object(data.mapValues(JSONValue.string))]
        var android: [String: JSONValue] = ["priority": .string(background ? "normal" : "high")]
        if let collapse = content.collapseID { android["collapse_key"] = .string(collapse) }
        if !background {
            let text = visibleText(content)
            var notification: [String: JSONValue] = ["title": .string(text.title)]
            if let body = text.body { notification["body"] = .string(body) }
            fields["notification"] = .object(notification)
            var local: [String: JSONValue] = [:]
            if let key = text.titleKey { local["title_loc_key"] = .string(key) }
            if !text.titleArguments.isEmpty { local["title_loc_args"] = .array(text.titleArguments.map(JSONValue.string)) }
            if let thread = content.threadID { local["tag"] = .string(thread) }
            if !local.isEmpty { android["notification"] = .object(local) }
        }
        fields["android"] = .object(android)
        let fitted = PayloadFitter.fit(.object(fields), limit: fcmLimit, shortenable: { path in
            path == [.member("notification"), .member("title")] || path == [.member("notification"), .member("body")]
                || (path.count == 4 && path.prefix(3) == [.member("android"), .member("notification"), .member("title_loc_args")])
        }, fallbacks: [])
        guard case .object(let members)? = try? JSONValue.parse(fitted) else { return FCMMessage(token: token, fields: fields) }
        return FCMMessage(token: token, fields: members)
    }

    /// The webhook provider's JSON body (docs/PUSH.md, "The webhook provider"): the same visible text as an alert.
    public static func webhook(_ content: PushContent, target: String, kind: String) -> [UInt8] {
        let text = visibleText(content)
        var body: [String: JSONValue] = [
            "target": .string(target), "kind": .string(kind), "type": .string(content.type),
            "title": .string(text.title), "ids": .object(content.routing.ids.mapValues { .string($0) }),
        ]
        if let b = text.body { body["body"] = .string(b) }
        if let key = text.titleKey { body["titleLocKey"] = .string(key) }
        if !text.titleArguments.isEmpty { body["titleLocArgs"] = .array(text.titleArguments.map(JSONValue.string)) }
        if let link = content.routing.deeplink { body["deeplink"] = .string(link) }
        if let badge = content.badge { body["badge"] = .int(Int64(badge)) }
        if let collapse = content.collapseID { body["collapseId"] = .string(collapse) }
        return PayloadFitter.serialize(.object(body))
    }

    // MARK: Fitting APNs payloads

    /// The alert's title, body and title arguments, and a content-state's or attributes' text (not its ids).
    static func apnsShortenable(_ path: [PayloadFitter.Step]) -> Bool {
        guard path.count >= 3, path[0] == .member("aps") else { return false }
        switch path[1] {
        case .member("alert"):
            return path[2] == .member("title") || path[2] == .member("body") || path[2] == .member("title-loc-args")
        case .member("content-state"):
            guard case .member(let name)? = path.last(where: { if case .member = $0 { true } else { false } }) else { return true }
            return !isStructural(name)
        default:
            return false
        }
    }

    /// When the text is cut to nothing and the payload is still too big: a content-state of ids and numbers only,
    /// then no alert body and title arguments, then an empty content-state.
    static let apnsFallbacks: [@Sendable (JSONValue) -> JSONValue] = [
        { editing($0, "content-state") { visibleState($0, showDetails: false) } },
        { editing($0, "alert") { alert in
            guard case .object(var members) = alert else { return alert }
            members["body"] = nil
            members["title-loc-args"] = nil
            return .object(members)
        } },
        { editing($0, "content-state") { _ in .object([:]) } },
    ]

    private static func editing(_ payload: JSONValue, _ member: String, _ edit: (JSONValue) -> JSONValue) -> JSONValue {
        guard case .object(var top) = payload, case .object(var aps)? = top["aps"], let value = aps[member] else { return payload }
        aps[member] = edit(value)
        top["aps"] = .object(aps)
        return .object(top)
    }
}
