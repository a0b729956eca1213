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
        let body = result is any JSONWritable ? encode(result) : (try? encoder.encode(result)).map(Array.init) ?? Array("{}".utf8)
        return Array(#"{"type":"reply","id":"#.utf8) + jsonString(id) + Array(#","ok":true,"result":"#.utf8) + body + [UInt8(ascii: "}")]
    }

    /// `{"type":"reply","id":"…","ok":false,"error":{"code":"…","message":"…"}}` (id is null when the command had none).
    public static func error(id: String?, _ error: GatewayError) -> [UInt8] {
        let body = (try? encoder.encode(error)).map(Array.init) ?? []
        return Array(#"{"type":"reply","id":"#.utf8) + (id.map(jsonString) ?? Array("null".utf8))
            + Array(#","ok":false,"error":"#.utf8) + body + [UInt8(ascii: "}")]
    }

    /// Encodes a value as JSON bytes (sorted keys, so output is stable for tests and idempotency records). A
    /// `JSONWritable` value writes itself (the same bytes, without Foundation's encoder).
    public static func encode(_ value: some Encodable) -> [UInt8] {
        if let writable = value as? any JSONWritable {
            var out: [UInt8] = []
            writable.writeJSON(to: &out)
            return out
        }
        return (try? encoder.encode(value)).map(Array.init) ?? Array("null".utf8)
    }

    nonisolated(unsafe) private static let encoder: JSONEncoder = {
        // nonisolated(unsafe): configured once here and only used for encode(), which does not mutate it.
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    public static func jsonString(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        writeString(s, to: &out)
        return out
    }

    /// Appends `s` as a JSON string, escaped exactly as Foundation's encoder escapes it (`\b`, `\f`, `\n`, `\r`, `\t`,
    /// other controls as lowercase `\u00xx`, `/` left alone), so hand-written and encoded JSON agree byte for byte.
    public static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [0x5C, 0x22]
            case UInt8(ascii: "\\"): out += [0x5C, 0x5C]
            case 0x08: out += [0x5C, UInt8(ascii: "b")]
            case 0x0C: out += [0x5C, UInt8(ascii: "f")]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20:
                out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

/// A value that writes its own JSON — the bytes `ServerFrames.encode` would get from Foundation's encoder for it
/// (members in sorted order, absent optionals left out) — for the types every direct message encodes. Each
/// conformance is checked against Foundation's output in `HotPathJSONTests`.
public protocol JSONWritable {
    func writeJSON(to out: inout [UInt8])
}

extension MessageData: JSONWritable {
    public func writeJSON(to out: inout [UInt8]) {
        out += Array(#"{"from":"#.utf8)
        ServerFrames.writeString(from, to: &out)
        if let fromDisplayName {
            out += Array(#","fromDisplayName":"#.utf8)
            ServerFrames.writeString(fromDisplayName, to: &out)
        }
        out += Array(#","messageId":\#(messageId),"sentAt":\#(sentAt),"text":"#.utf8)
        ServerFrames.writeString(text, to: &out)
        out += Array(#","to":"#.utf8)
        ServerFrames.writeString(to, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}
