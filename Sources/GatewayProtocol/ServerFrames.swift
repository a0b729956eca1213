import FoundationEssentials
import JSON

/// Builds server → client frames. Events carry their stored JSON `data` verbatim, so a durable event is encoded once
/// and the same bytes go to every device.
public enum ServerFrames {
    /// `{"type":"<type>","offset":N,"ts":T,"data":<data>}` — durable events have an offset; ephemeral ones (presence) do not.
    public static func event(type: String, offset: Int64?, timestamp: Int64, data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 64)
        out += Array(#"{"type":"#.utf8)
        JSONString.write(type, to: &out)
        if let offset { out += Array(#","offset":\#(offset)"#.utf8) }
        out += Array(#","ts":\#(timestamp),"data":"#.utf8)
        out += data
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `{"type":"reply","id":"…","ok":true,"result":{…}}`
    public static func ok(id: String, result: some Encodable) -> [UInt8] {
        let body = result is any JSONWritable ? encode(result) : (try? encoder.encode(result)).map(Array.init) ?? Array("{}".utf8)
        return Array(#"{"type":"reply","id":"#.utf8) + JSONString.bytes(id) + Array(#","ok":true,"result":"#.utf8) + body + [UInt8(ascii: "}")]
    }

    /// `{"type":"reply","id":"…","ok":false,"error":{"code":"…","message":"…"}}` (id is null when the command had none).
    public static func error(id: String?, _ error: GatewayError) -> [UInt8] {
        let body = (try? encoder.encode(error)).map(Array.init) ?? []
        return Array(#"{"type":"reply","id":"#.utf8) + (id.map(JSONString.bytes) ?? Array("null".utf8))
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
        JSONString.write(from, to: &out)
        if let fromDisplayName {
            out += Array(#","fromDisplayName":"#.utf8)
            JSONString.write(fromDisplayName, to: &out)
        }
        out += Array(#","messageId":\#(messageId),"sentAt":\#(sentAt),"text":"#.utf8)
        JSONString.write(text, to: &out)
        out += Array(#","to":"#.utf8)
        JSONString.write(to, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}
