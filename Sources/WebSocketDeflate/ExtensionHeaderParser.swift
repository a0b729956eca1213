/// One element of a `Sec-WebSocket-Extensions` value (RFC 6455 §9.1): an extension name and its parameters.
/// `isMalformed` marks an element whose syntax is broken; it must be declined, never fixed up.
struct ExtensionElement: Equatable {
    /// The extension token, lower-cased (HTTP tokens compare case-insensitively).
    var name: String
    /// Parameters in order; `value` is nil for a bare parameter, unquoted text otherwise.
    var parameters: [(name: String, value: String?)]
    var isMalformed: Bool

    static func == (lhs: ExtensionElement, rhs: ExtensionElement) -> Bool {
        lhs.name == rhs.name && lhs.isMalformed == rhs.isMalformed
            && lhs.parameters.map(\.name) == rhs.parameters.map(\.name)
            && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }
}

/// Splits `Sec-WebSocket-Extensions` header values (RFC 6455 §9.1, RFC 7230 §3.2.6 quoting) into elements.
/// Pure and allocation-light; works on UTF-8 bytes, no Foundation.
enum ExtensionHeaderParser {
    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
    private static let comma = UInt8(ascii: ","), semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "=")

    /// Parses one header value. Empty list elements (`a, , b`) are skipped as RFC 7230 §7 allows.
    /// An unbalanced quote makes the element that contains it (and so the rest of the value) malformed.
    static func parse(_ header: String) -> [ExtensionElement] {
        var elements: [ExtensionElement] = []
        for piece in split(Array(header.utf8), at: comma) {
            let parts = split(piece, at: semicolon)
            let name = trim(parts[0])
            if name.isEmpty && parts.count == 1 { continue }
            elements.append(element(name: name, parameterSlices: parts.dropFirst()))
        }
        return elements
    }

    private static func element(name: ArraySlice<UInt8>, parameterSlices: ArraySlice<ArraySlice<UInt8>>) -> ExtensionElement {
        var result = ExtensionElement(name: lowercase(name), parameters: [], isMalformed: !isToken(name))
        for slice in parameterSlices {
            guard let parameter = parameter(slice) else {
                result.isMalformed = true
                continue
            }
            result.parameters.append(parameter)
        }
        return result
    }

    /// `token [ "=" ( token / quoted-string ) ]`, with optional whitespace around "=" tolerated.
    private static func parameter(_ slice: ArraySlice<UInt8>) -> (name: String, value: String?)? {
        guard let eq = slice.firstIndex(of: equals) else {
            let name = trim(slice)
            return isToken(name) ? (lowercase(name), nil) : nil
        }
        let name = trim(slice[slice.startIndex..<eq])
        let rawValue = trim(slice[(eq + 1)...])
        guard isToken(name), let value = value(rawValue) else { return nil }
        return (lowercase(name), value)
    }

    private static func value(_ raw: ArraySlice<UInt8>) -> String? {
        if isToken(raw) { return String(decoding: raw, as: UTF8.self) }
        guard raw.count >= 2, raw.first == quote, raw.last == quote else { return nil }
        var unquoted: [UInt8] = []
        var escaped = false
        for byte in raw.dropFirst().dropLast() {
            if escaped {
                unquoted.append(byte)
                escaped = false
            } else if byte == backslash {
                escaped = true
            } else if byte == quote {
                return nil
            } else {
                unquoted.append(byte)
            }
        }
        // RFC 7692 §7.1: a quoted value must still be a token once unquoted.
        return !escaped && isToken(unquoted[...]) ? String(decoding: unquoted, as: UTF8.self) : nil
    }

    /// Splits at `separator` outside quoted strings; a trailing unterminated quote stays in the last slice.
    private static func split(_ bytes: ArraySlice<UInt8>, at separator: UInt8) -> [ArraySlice<UInt8>] {
        var slices: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var inQuotes = false, escaped = false
        for index in bytes.indices {
            let byte = bytes[index]
            if inQuotes {
                if escaped { escaped = false } else if byte == backslash { escaped = true } else if byte == quote { inQuotes = false }
            } else if byte == quote {
                inQuotes = true
            } else if byte == separator {
                slices.append(bytes[start..<index])
                start = index + 1
            }
        }
        slices.append(bytes[start..<bytes.endIndex])
        return slices
    }

    private static func split(_ bytes: [UInt8], at separator: UInt8) -> [ArraySlice<UInt8>] {
        split(bytes[...], at: separator)
    }

    private static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }

    /// RFC 7230 §3.2.6 tchar.
    static func isToken(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    private static func lowercase(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
