// JSONEncoder: FoundationEssentials where it exists (Linux: no ICU, a smaller binary), Foundation on Apple platforms.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON

/// Builds server → client frames. Events carry their stored JSON `data` verbatim, so a durable event is encoded once
/// and the same bytes go to every device.
public enum ServerFrames {
    /// `{"type":"<type>","offset":N,"ts":T,"data":<data>}` — durable events have an offset; ephemeral ones (presence) do not.
    public static func event(type: String, offset: Int64?, timestamp: Int64, data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + type.utf8.count + 64)
        out.append(contentsOf: #"{"type":"#.utf8)
        JSONString.write(type, to: &out)
        if let offset {
            out.append(contentsOf: #","offset":"#.utf8)
            JSONInteger.write(offset, to: &out)
        }
        out.append(contentsOf: #","ts":"#.utf8)
        JSONInteger.write(timestamp, to: &out)
        out.append(contentsOf: #","data":"#.utf8)
        out += data
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `{"type":"reply","id":"…","ok":true,"result":{…}}`
    public static func ok(id: String, result: some Encodable) -> [UInt8] {
        if let writable = result as? any JSONWritable { return ok(id: id, writing: writable) }
        let body = (try? encoder.encode(result)).map(Array.init) ?? Array("{}".utf8)
        var out = replyHead(id: id, capacity: body.count)
        out.append(contentsOf: #","ok":true,"result":"#.utf8)
        out += body
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The same for a result that writes its own JSON (no dynamic cast, one buffer).
    public static func ok(id: String, result: some Encodable & JSONWritable) -> [UInt8] { ok(id: id, writing: result) }

    private static func ok(id: String, writing result: some JSONWritable) -> [UInt8] {
        var out = replyHead(id: id, capacity: 64)
        out.append(contentsOf: #","ok":true,"result":"#.utf8)
        result.writeJSON(to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `{"type":"reply","id":"…"` with room for `capacity` more bytes of body.
    private static func replyHead(id: String?, capacity: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + (id?.utf8.count ?? 4) + capacity)
        out.append(contentsOf: #"{"type":"reply","id":"#.utf8)
        if let id { JSONString.write(id, to: &out) } else { out.append(contentsOf: "null".utf8) }
        return out
    }

    /// `{"type":"reply","id":"…","ok":false,"error":{"code":"…","message":"…"}}` (id is null when the command had none).
    public static func error(id: String?, _ error: GatewayError) -> [UInt8] {
        let body = (try? encoder.encode(error)).map(Array.init) ?? []
        var out = replyHead(id: id, capacity: body.count)
        out.append(contentsOf: #","ok":false,"error":"#.utf8)
        out += body
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Encodes a value as JSON bytes (sorted keys, so output is stable for tests and idempotency records). A
    /// `JSONWritable` value writes itself (the same bytes, without Foundation's encoder).
    public static func encode(_ value: some Encodable) -> [UInt8] {
        if let writable = value as? any JSONWritable { return encode(writing: writable) }
        return (try? encoder.encode(value)).map(Array.init) ?? Array("null".utf8)
    }

    /// The same for a value known to write its own JSON (no dynamic cast).
    public static func encode(_ value: some Encodable & JSONWritable) -> [UInt8] { encode(writing: value) }

    private static func encode(writing value: some JSONWritable) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        value.writeJSON(to: &out)
        return out
    }

    private static let encoder: JSONEncoder = {
        // Configured once here and only used for encode(), which does not mutate it (JSONEncoder is Sendable).
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
        out.append(contentsOf: #"{"from":"#.utf8)
        JSONString.write(from, to: &out)
        if let fromDisplayName {
            out.append(contentsOf: #","fromDisplayName":"#.utf8)
            JSONString.write(fromDisplayName, to: &out)
        }
        out.append(contentsOf: #","messageId":"#.utf8)
        JSONInteger.write(messageId, to: &out)
        out.append(contentsOf: #","sentAt":"#.utf8)
        JSONInteger.write(sentAt, to: &out)
        out.append(contentsOf: #","text":"#.utf8)
        JSONString.write(text, to: &out)
        out.append(contentsOf: #","to":"#.utf8)
        JSONString.write(to, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}
