import JSON

/// Builds APNs payloads (the `aps` dictionary plus ``PushRouting`` members). Pure; the results are
/// ``JSONValue`` objects whose `serialized()` bytes (members sorted) go into ``APNsNotification``.
///
/// Text is taken as given: run it through ``PushAlertText/lockScreen(kind:title:body:showDetails:)``
/// first. Times are Unix seconds.
public enum PushPayloads {
    /// A visible alert: `aps.alert {title, body, title-loc-key, title-loc-args}`, `sound`, `badge`, `thread-id`
    /// (groups notifications of one session), `interruption-level`: `time-sensitive` when `timeSensitive` (breaks
    /// through Focus; needs the app's entitlement), else `interruption` when given.
    public static func alert(_ text: PushAlertText, sound: String? = "default", badge: Int? = nil,
                             threadID: String? = nil, timeSensitive: Bool = false, interruption: String? = nil,
                             routing: PushRouting? = nil) -> JSONValue {
        var aps: [String: JSONValue] = ["alert": alertObject(text)]
        if let sound { aps["sound"] = .string(sound) }
        if let badge { aps["badge"] = .int(Int64(badge)) }
        if let threadID { aps["thread-id"] = .string(threadID) }
        if let level = timeSensitive ? "time-sensitive" : interruption { aps["interruption-level"] = .string(level) }
        return payload(aps: aps, routing: routing)
    }

    /// A silent push: `aps.content-available: 1` only (no alert, sound or badge; send with
    /// ``APNsNotification/PushType/background``).
    public static func background(badge: Int? = nil, routing: PushRouting? = nil) -> JSONValue {
        var aps: [String: JSONValue] = ["content-available": .int(1)]
        if let badge { aps["badge"] = .int(Int64(badge)) }
        return payload(aps: aps, routing: routing)
    }

    /// A Live Activity update: `event: "update"`, `timestamp`, `content-state`, optional
    /// `stale-date` and an `alert` that lights the screen.
    public static func liveActivityUpdate(contentState: JSONValue, timestamp: Int64, staleDate: Int64? = nil,
                                          alert: PushAlertText? = nil, routing: PushRouting? = nil) -> JSONValue {
        var aps = liveActivity(event: "update", contentState: contentState, timestamp: timestamp)
        if let staleDate { aps["stale-date"] = .int(staleDate) }
        if let alert { aps["alert"] = alertObject(alert) }
        return payload(aps: aps, routing: routing)
    }

    /// Ends a Live Activity: `event: "end"` with the final `content-state`, and `dismissal-date`
    /// (nil lets the system keep it up to four hours; a past date removes it at once).
    public static func liveActivityEnd(contentState: JSONValue, timestamp: Int64, dismissalDate: Int64? = nil,
                                       routing: PushRouting? = nil) -> JSONValue {
        var aps = liveActivity(event: "end", contentState: contentState, timestamp: timestamp)
        if let dismissalDate { aps["dismissal-date"] = .int(dismissalDate) }
        return payload(aps: aps, routing: routing)
    }

    /// Starts a Live Activity remotely (push-to-start token): `event: "start"`, `attributes-type`
    /// (the Swift `ActivityAttributes` type name), `attributes`, `content-state`, and the required `alert`.
    public static func liveActivityStart(attributesType: String, attributes: JSONValue, contentState: JSONValue,
                                         timestamp: Int64, alert: PushAlertText, routing: PushRouting? = nil) -> JSONValue {
        var aps = liveActivity(event: "start", contentState: contentState, timestamp: timestamp)
        aps["attributes-type"] = .string(attributesType)
        aps["attributes"] = attributes
        aps["alert"] = alertObject(alert)
        return payload(aps: aps, routing: routing)
    }

    private static func liveActivity(event: String, contentState: JSONValue, timestamp: Int64) -> [String: JSONValue] {
        ["event": .string(event), "timestamp": .int(timestamp), "content-state": contentState]
    }

    private static func alertObject(_ text: PushAlertText) -> JSONValue {
        var alert: [String: JSONValue] = ["title": .string(text.title)]
        if let body = text.body { alert["body"] = .string(body) }
        if let key = text.titleKey {
            alert["title-loc-key"] = .string(key)
            if !text.titleArguments.isEmpty { alert["title-loc-args"] = .array(text.titleArguments.map(JSONValue.string)) }
        }
        return .object(alert)
    }

    private static func payload(aps: [String: JSONValue], routing: PushRouting?) -> JSONValue {
        var members = routing?.members ?? [:]
        members["aps"] = .object(aps)
        return .object(members)
    }
}
