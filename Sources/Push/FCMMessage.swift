import JSON

/// One FCM message for one registration token (the v1 `Message` resource).
public struct FCMMessage: Sendable {
    /// The registration token, written as `message.token`.
    public var token: String
    /// Every other `Message` member (`notification`, `data`, `android`, `apns`, …), written as is.
    public var fields: [String: JSONValue]

    public init(token: String, fields: [String: JSONValue] = [:]) {
        self.token = token
        self.fields = fields
    }

    /// A notification message with `title`/`body`, string `data`, and Android priority `high`
    /// when `highPriority` (needed to wake a dozing device).
    public init(token: String, title: String?, body: String?, data: [String: String] = [:], highPriority: Bool = true) {
        var fields: [String: JSONValue] = [:]
        var notification: [String: JSONValue] = [:]
        if let title { notification["title"] = .string(title) }
        if let body { notification["body"] = .string(body) }
        if !notification.isEmpty { fields["notification"] = .object(notification) }
        if !data.isEmpty { fields["data"] = .object(data.mapValues(JSONValue.string)) }
        if highPriority { fields["android"] = .object(["priority": .string("high")]) }
        self.init(token: token, fields: fields)
    }

    /// The request body `{"message": {...fields, "token": token}}`.
    public func body() throws(PushError) -> [UInt8] {
        var message = fields
        message["token"] = .string(token)
        do {
            return try JSONValue.object(["message": .object(message)]).serialized()
        } catch {
            throw PushError("the FCM message holds a number JSON cannot represent")
        }
    }
}
