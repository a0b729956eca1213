/// Incremental UTF-8 validator (Unicode §3.9, Table 3-7; RFC 3629), used for text messages and close reasons.
///
/// Feed the bytes of one text in any number of pieces; a code point may be split across pieces. It rejects
/// overlong forms, surrogates (U+D800–U+DFFF), code points above U+10FFFF and stray continuation bytes, and it
/// fails fast: `validate` returns false at the first byte that can no longer be part of a valid sequence
/// (e.g. `E0 80` fails at `80`, `ED A0` at `A0`, `F4 90` at `90`, `C0`/`F5`..`FF` at once).
/// A value type owned by one user; not thread-safe (no shared state). No allocation.
public struct UTF8Validator: Sendable {
    /// Continuation bytes still expected for the current code point (0 = at a boundary).
    private var remaining: UInt8 = 0
    /// Allowed range of the next continuation byte; narrower than 80–BF right after E0, ED, F0 and F4.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    private var failed = false

    /// Creates a validator at a character boundary.
    public init() {}

    /// True when everything fed so far is valid and no code point is left incomplete, i.e. the text may end here.
    /// False after a failure.
    public var isAtCharacterBoundary: Bool { remaining == 0 && !failed }

    /// Validates the next piece of the text. Returns false if the text is invalid so far; once it returned false
    /// it keeps returning false until `reset()`. Returning true does not mean the text is complete — check
    /// `isAtCharacterBoundary` at the end.
    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if failed { return false }
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        var remaining = self.remaining
        var lower = self.lower
        var upper = self.upper
        while index < count {
            if remaining == 0 {
                // Most text is ASCII: skip 8 bytes at a time while no byte has the high bit set.
                while index &+ 8 <= count,
                      base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index &+= 8
                }
                if index == count { break }
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index &+= 1
                if byte < 0x80 { continue }
                // Lead bytes per Unicode Table 3-7; the first continuation's range excludes overlongs (E0, F0),
                // surrogates (ED) and code points above U+10FFFF (F4).
                switch byte {
                case 0xC2...0xDF: remaining = 1; lower = 0x80; upper = 0xBF
                case 0xE0: remaining = 2; lower = 0xA0; upper = 0xBF
                case 0xE1...0xEC, 0xEE...0xEF: remaining = 2; lower = 0x80; upper = 0xBF
                case 0xED: remaining = 2; lower = 0x80; upper = 0x9F
                case 0xF0: remaining = 3; lower = 0x90; upper = 0xBF
                case 0xF1...0xF3: remaining = 3; lower = 0x80; upper = 0xBF
                case 0xF4: remaining = 3; lower = 0x80; upper = 0x8F
                default:
                    // 80–BF without a lead, C0/C1 (always overlong) and F5–FF.
                    self.failed = true
                    return false
                }
            } else {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index &+= 1
                guard byte >= lower && byte <= upper else {
                    self.failed = true
                    return false
                }
                remaining &-= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        self.remaining = remaining
        self.lower = lower
        self.upper = upper
        return true
    }

    /// Forgets all state; the validator is then at a character boundary, ready for a new text.
    public mutating func reset() {
        self = UTF8Validator()
    }

    /// One-shot check of a complete text: valid UTF-8 that ends at a character boundary.
    public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isAtCharacterBoundary
    }
}
