/// A JSON value (RFC 8259) as found in JWT headers and claim sets.
///
/// Numbers that are integral and fit in `Int64` are `.int` (so `1`, `1.0` and `1e3` are all
/// `.int`); every other number is `.number`. Values are immutable and `Sendable`.
///
/// `Codable` works against any `Decoder`/`Encoder`; the JWT code itself never goes through
/// Foundation's coders but through ``parse(_:)`` and ``serialized()``, which are strict where
/// JOSE needs it (duplicate member names and trailing commas are rejected).
public enum JSONValue: Sendable, Equatable, Codable {
    case string(String)
    case number(Double)
    case int(Int64)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses one complete JSON text (RFC 8259 §2), rejecting anything the RFC does not allow:
    /// trailing data, trailing commas, leading zeros, invalid UTF-8, lone surrogates, NaN/Infinity,
    /// duplicate object member names (RFC 7515 §5.2 / RFC 7519 §4 permit rejecting them), and
    /// nesting deeper than ``JSONParser/maximumDepth``.
    /// - Throws: ``JSONParseError`` with the byte offset of the problem.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes)
        return try parser.parseDocument()
    }

    /// Compact JSON text of this value; object members are sorted by name so the output is
    /// deterministic (useful for signing and for tests).
    /// - Throws: ``JSONParseError`` (offset 0) when the value holds a non-finite `.number`, which
    ///   JSON cannot represent.
    public func serialized() throws(JSONParseError) -> [UInt8] {
        var output: [UInt8] = []
        try JSONSerializer.write(self, to: &output)
        return output
    }

    /// The payload of `.string`, otherwise nil.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as a whole number: `.int` as is, `.number` when integral and in range; else nil.
    public var int64Value: Int64? {
        switch self {
        case .int(let value): return value
        case .number(let value): return JSONValue.exactInt64(value)
        default: return nil
        }
    }

    /// The value as a `Double` for `.int` and `.number`; else nil.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .number(let value): return value
        default: return nil
        }
    }

    /// `value` as `Int64` when it is integral and representable; nil otherwise.
    public static func exactInt64(_ value: Double) -> Int64? {
        // 2^63 is exactly representable as a Double, Int64.max is not: compare against 2^63.
        guard value.isFinite, value == value.rounded(.towardZero),
              value >= -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0
        else { return nil }
        return Int64(value)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = JSONValue.exactInt64(value).map(JSONValue.int) ?? .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// Why a JSON text was rejected by ``JSONValue/parse(_:)``.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset into the input where the problem was detected.
    public var offset: Int
    /// Short human-readable reason; never echoes the input.
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}
