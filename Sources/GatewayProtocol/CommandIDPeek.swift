/// The `id` of a command too large to parse: a scan of its first bytes for a top-level `"id": "<string>"`, so the
/// `message_too_large` reply can name the command. Pure and bounded (never more than `limit` bytes); nil when the
/// frame is not an object, the id is not a plain string (escapes included) or does not appear within the limit.
public enum CommandIDPeek {
    public static func id(in bytes: some Collection<UInt8>, limit: Int = 512) -> String? {
        let b = Array(bytes.prefix(limit))
        var i = 0, depth = 0
        var expectKey = false          // at depth 1, after `{` or `,`
        var key: [UInt8]?              // the depth-1 key whose value comes next
        /// The string starting at b[i] (a quote); advances past it. `plain` is false when it held an escape.
        func string() -> (bytes: [UInt8], plain: Bool)? {
            var out: [UInt8] = [], plain = true
            i += 1
            while i < b.count {
                switch b[i] {
                case UInt8(ascii: "\""): i += 1; return (out, plain)
                case UInt8(ascii: "\\"): plain = false; i += 2
                default: out.append(b[i]); i += 1
                }
            }
            return nil                 // cut off by the limit
        }
        while i < b.count {
            let c = b[i]
            switch c {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ":"):
                i += 1
            case UInt8(ascii: "\""):
                guard let (text, plain) = string() else { return nil }
                if depth == 1 && expectKey {
                    key = text; expectKey = false
                } else if depth == 1 && key == Array("id".utf8) {
                    return plain ? String(decoding: text, as: UTF8.self) : nil
                } else if depth == 1 {
                    key = nil
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth > 0 || c == UInt8(ascii: "{") else { return nil }
                if depth == 1 && key == Array("id".utf8) { return nil }
                if depth == 1 { key = nil }
                depth += 1
                expectKey = depth == 1
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                guard depth > 0 else { return nil }
                i += 1
            case UInt8(ascii: ","):
                if depth == 1 { expectKey = true; key = nil }
                i += 1
            default:
                guard depth > 0 else { return nil }
                if depth == 1 && key == Array("id".utf8) { return nil }   // a number, true, null…: not a string id
                i += 1
            }
        }
        return nil
    }
}
