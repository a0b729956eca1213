/// Decodes `Decodable` types from JSON bytes through the strict parser (``JSONValue/parse(_:)``): duplicate member
/// names, trailing commas and the rest are rejected before any field is read. Used for stored blobs (push targets,
/// notices, settings, idempotent responses); client commands and server-API bodies are read by hand from the same
/// parse (`GatewayProtocol.JSONFields`), so what is valid JSON is still decided in one place.
///
/// Errors are the standard `DecodingError`s (a field path in the context), so callers can name the bad field; a
/// document the parser rejects is `.dataCorrupted` with an empty coding path and the ``JSONParseError`` underneath.
/// Integral numbers decode into integer types only when they fit; `1.5` is a type mismatch for `Int`.
public struct StrictJSONDecoder: Sendable {
    public init() {}

    /// Parses `bytes` strictly, then decodes `type` from the value.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try decode(type, from: try Self.parse(bytes))
    }

    /// Decodes `type` from an already parsed value.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        if let value = value as? T { return value }
        return try T(from: ValueDecoder(value: value, codingPath: []))
    }

    /// The strict parse, with a rejection reported as `DecodingError.dataCorrupted` at the document root.
    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description, underlyingError: error))
        }
    }
}

/// A key of a JSON object member or an array index, for coding paths.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) { self.stringValue = "\(intValue)"; self.intValue = intValue }
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: codingPath, debugDescription: "expected an object"))
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "expected an array"))
        }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        SingleContainer(value: value, codingPath: codingPath)
    }
}

/// Scalar conversions shared by the three container kinds.
private enum Scalar {
    static func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: [CodingKey]) throws -> T {
        if let value = value as? T { return value }   // JSONValue itself: no conversion
        if case .null = value, !(T.self is any OptionalMarker.Type) {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: path, debugDescription: "null"))
        }
        switch type {
        case is String.Type:
            guard case .string(let s) = value else { throw mismatch(T.self, path) }
            return s as! T
        case is Bool.Type:
            guard case .bool(let b) = value else { throw mismatch(T.self, path) }
            return b as! T
        case is Double.Type:
            guard let d = value.doubleValue else { throw mismatch(T.self, path) }
            return d as! T
        case is Float.Type:
            guard let d = value.doubleValue else { throw mismatch(T.self, path) }
            return Float(d) as! T
        case is Int.Type: return try integer(Int.self, value, path) as! T
        case is Int64.Type: return try integer(Int64.self, value, path) as! T
        case is Int32.Type: return try integer(Int32.self, value, path) as! T
        case is Int16.Type: return try integer(Int16.self, value, path) as! T
        case is Int8.Type: return try integer(Int8.self, value, path) as! T
        case is UInt.Type: return try integer(UInt.self, value, path) as! T
        case is UInt64.Type: return try integer(UInt64.self, value, path) as! T
        case is UInt32.Type: return try integer(UInt32.self, value, path) as! T
        case is UInt16.Type: return try integer(UInt16.self, value, path) as! T
        case is UInt8.Type: return try integer(UInt8.self, value, path) as! T
        default:
            return try T(from: ValueDecoder(value: value, codingPath: path))
        }
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: JSONValue, _ path: [CodingKey]) throws -> I {
        guard case .int(let n) = value else { throw mismatch(I.self, path) }
        guard let exact = I(exactly: n) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(n) does not fit in \(I.self)"))
        }
        return exact
    }

    static func mismatch(_ type: Any.Type, _ path: [CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type)"))
    }
}

/// Lets `Scalar.decode` tell `Optional<T>` (where null is a value) from everything else.
private protocol OptionalMarker {}
extension Optional: OptionalMarker {}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing \"\(key.stringValue)\""))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try member(key) { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try Scalar.decode(type, try member(key), codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> Decoder { try superDecoder(forKey: Key(stringValue: "super")!) }
    func superDecoder(forKey key: Key) throws -> Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [CodingKey]) { self.elements = elements; self.codingPath = codingPath }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> (JSONValue, [CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [AnyKey(intValue: currentIndex)],
                                                          debugDescription: "the array has no more elements"))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], codingPath + [AnyKey(intValue: currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, case .null = elements[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, path) = try next(T.self)
        return try Scalar.decode(type, value, path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next([String: Any].self)
        return try ValueDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
        let (value, path) = try next([Any].self)
        return try ValueDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> Decoder {
        let (value, path) = try next(Any.self)
        return ValueDecoder(value: value, codingPath: path)
    }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [CodingKey]

    func decodeNil() -> Bool { if case .null = value { return true } else { return false } }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Scalar.decode(type, value, codingPath) }
}
