import JSON

/// Keeps a JSON payload under a provider's size limit by shortening its text, never by failing: the longest string
/// the caller marks shortenable is cut (on a grapheme boundary, ending in "…") by what the payload is over, and again
/// until it fits; when no text is left to cut, the caller's fallbacks (drop a Live Activity's state, the body, …) run
/// in order. Sizes are the serialized bytes, JSON escapes included. Pure.
public enum PayloadFitter {
    /// One step from the root to a value: an object member or an array element.
    public enum Step: Hashable, Sendable {
        case member(String)
        case element(Int)
    }

    /// `payload` serialized within `limit` bytes when its text and fallbacks allow it (ids and other members not
    /// marked shortenable are never cut; a payload too big even then is returned as small as it could be made).
    /// - Parameters:
    ///   - shortenable: whether the string at a path may be cut.
    ///   - fallbacks: applied one at a time, in order, when no shortenable text is left to cut.
    public static func fit(_ payload: JSONValue, limit: Int, shortenable: ([Step]) -> Bool,
                           fallbacks: [@Sendable (JSONValue) -> JSONValue] = []) -> [UInt8] {
        var value = payload
        var remaining = fallbacks[...]
        // Each round cuts one string to at most what fits or applies one fallback, so this ends; the bound is a guard.
        for _ in 0..<256 {
            let bytes = serialize(value)
            guard bytes.count > limit else { return bytes }
            let over = bytes.count - limit
            var longest: (path: [Step], text: String, size: Int)?
            visitStrings(value, path: []) { path, text in
                let size = escapedSize(text)
                // "…" alone is 3 bytes: a string that short has nothing left to give.
                guard size > 3, shortenable(path), size > longest?.size ?? 0 else { return }
                longest = (path, text, size)
            }
            if let longest {
                let shortened = shorten(longest.text, toEscapedBytes: max(0, longest.size - over - 3))
                value = replacing(value, at: longest.path[...], with: .string(shortened))
            } else if let fallback = remaining.popFirst() {
                value = fallback(value)
            } else {
                return bytes
            }
        }
        return serialize(value)
    }

    /// `text` cut to at most `limit` bytes as a JSON string's contents (escapes counted), on a grapheme boundary,
    /// followed by "…"; `text` itself when it fits without the ellipsis.
    public static func shorten(_ text: String, toEscapedBytes limit: Int) -> String {
        guard escapedSize(text) > limit + 3 else { return text }
        var kept = 0
        var end = text.startIndex
        for index in text.indices {
            let size = escapedSize(text[index...index])
            guard kept + size <= limit else { break }
            kept += size
            end = text.index(after: index)
        }
        return String(text[..<end]) + "…"
    }

    /// The bytes `text` takes inside a JSON string literal (``JSONString``'s escapes).
    public static func escapedSize<S: StringProtocol>(_ text: S) -> Int {
        var size = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x0C, 0x0A, 0x0D, 0x09: size += 2
            case 0..<0x20: size += 6
            default: size += 1
            }
        }
        return size
    }

    static func serialize(_ value: JSONValue) -> [UInt8] {
        // Only non-finite numbers fail, and payloads are built from integers and strings.
        (try? value.serialized()) ?? []
    }

    private static func visitStrings(_ value: JSONValue, path: [Step], _ visit: ([Step], String) -> Void) {
        switch value {
        case .string(let text): visit(path, text)
        case .object(let members): for (name, member) in members { visitStrings(member, path: path + [.member(name)], visit) }
        case .array(let elements): for (index, element) in elements.enumerated() { visitStrings(element, path: path + [.element(index)], visit) }
        default: break
        }
    }

    private static func replacing(_ value: JSONValue, at path: ArraySlice<Step>, with replacement: JSONValue) -> JSONValue {
        guard let step = path.first else { return replacement }
        switch (value, step) {
        case (.object(var members), .member(let name)):
            if let member = members[name] { members[name] = replacing(member, at: path.dropFirst(), with: replacement) }
            return .object(members)
        case (.array(var elements), .element(let index)) where elements.indices.contains(index):
            elements[index] = replacing(elements[index], at: path.dropFirst(), with: replacement)
            return .array(elements)
        default:
            return value
        }
    }
}
