import FoundationEssentials

/// Builds server → client frames. Events carry their stored JSON `data` verbatim, so a durable event is encoded once
/// and the same bytes go to every device.
public enum ServerFrames {
    /// `{"type":"<type>","offset":N,"ts":T,"data":<data>}` — durable events have an offset; ephemeral ones (presence) do not.
    public static func event(type: String, offset: Int64?, timestamp: Int64, data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 64)
        out += Array(#"{"type":"#.utf8)
        out += jsonString(type)
        if let offset { out += Array(#","offset":\#(offset)"#.utf8) }
        out += Array(#","ts":\#(timestamp),"data":"#.utf8)
        out += data
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `{"type":"reply","id":"…","ok":true,"result":{…}}`
    public static func ok(id: String, result: some Encodable) -> [UInt8] {
        let body = (try? encoder.encode(result)).map(Array.init) ?? Array("{}".utf8)
        return Array(#"{"type":"reply","id":"#.utf8) + jsonString(id) + Array(#","ok":true,"result":"#.utf8) + body + [UInt8(ascii: "}")]
    }

    /// `{"type":"reply","id":"…","ok":false,"error":{"code":"…","message":"…"}}` (id is null when the command had none).
    public static func error(id: String?, _ error: GatewayError) -> [UInt8] {
        let body = (try? encoder.encode(error)).map(Array.init) ?? []
        return Array(#"{"type":"reply","id":"#.utf8) + (id.map(jsonString) ?? Array("null".utf8))
            + Array(#","ok":false,"error":"#.utf8) + body + [UInt8(ascii: "}")]
    }

    /// Encodes a value as JSON bytes (sorted keys, so output is stable for tests and idempotency records).
    public static func encode(_ value: some Encodable) -> [UInt8] {
        (try? encoder.encode(value)).map(Array.init) ?? Array("null".utf8)
    }

    nonisolated(unsafe) private static let encoder: JSONEncoder = {
        // nonisolated(unsafe): configured once here and only used for encode(), which does not mutate it.
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    public static func jsonString(_ s: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [0x5C, 0x22]
            case UInt8(ascii: "\\"): out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }
}
