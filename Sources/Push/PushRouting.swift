import JSON

/// The app-routing fields every payload carries next to `aps`: what the event is, its ids, and a
/// deep link the app opens when the notification is tapped.
public struct PushRouting: Sendable, Equatable {
    /// The event type, e.g. `"approval"` or `"message"`.
    public var type: String
    /// Ids such as `sessionId`, `requestId`; written as top-level payload members.
    public var ids: [String: String]
    /// A per-app template such as `"myapp://session/{sessionId}/approval/{requestId}"`.
    public var deeplinkTemplate: String?

    public init(type: String, ids: [String: String] = [:], deeplinkTemplate: String? = nil) {
        self.type = type
        self.ids = ids
        self.deeplinkTemplate = deeplinkTemplate
    }

    /// The template with every `{name}` replaced by the percent-encoded id (RFC 3986 §2.3
    /// unreserved characters kept); nil without a template or when an id it names is missing.
    public var deeplink: String? {
        guard let template = deeplinkTemplate else { return nil }
        var output = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            output += rest[..<open]
            guard let value = ids[String(rest[rest.index(after: open)..<close])] else { return nil }
            output += Self.percentEncoded(value)
            rest = rest[rest.index(after: close)...]
        }
        return output + rest
    }

    /// Top-level payload members: `type`, each id, and `deeplink` when there is one. Ids named
    /// `aps`, `type` or `deeplink` are dropped so they cannot overwrite those members.
    var members: [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        for (name, value) in ids where !["aps", "type", "deeplink"].contains(name) { members[name] = .string(value) }
        members["type"] = .string(type)
        if let deeplink { members["deeplink"] = .string(deeplink) }
        return members
    }

    private static func percentEncoded(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
