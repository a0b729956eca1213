// Fuzz target: the strict JSON parser and the serializer. Compiled into the JSON module.
//
// Invariants checked beyond "no crash": an error's offset lies within the input; whatever parses serializes
// (parsed numbers are finite), and the serialized text parses back to an equal value and serializes to the same
// bytes again (the serializer is deterministic and its output is strict JSON).
//
// "Equal" up to one collapse: an integer literal beyond Int64 stays a `.number` (so it cannot pass as an integer
// field), and the only such value inside Int64's range, -2^63 (from -9223372036854775809), is written as the
// integer literal, which parses back as `.int(Int64.min)`.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).rest
    let value: JSONValue
    do {
        value = try JSONValue.parse(bytes)
    } catch {
        fuzzRequire(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) of \(bytes.count)")
        return 0
    }
    let text: [UInt8]
    do {
        text = try value.serialized()
    } catch {
        fatalError("fuzz invariant: a parsed value does not serialize: \(error)")
    }
    do {
        let again = try JSONValue.parse(text)
        fuzzRequire(again == canonical(value), "parse(serialize(v)) != v for \(String(decoding: text, as: UTF8.self))")
        fuzzRequire(try again.serialized() == text, "serialization is not stable")
    } catch {
        fatalError("fuzz invariant: serialized text does not parse: \(error) in \(String(decoding: text, as: UTF8.self))")
    }
    return 0
}

/// `value` with every `.number` that is a whole number inside Int64 as the `.int` the serializer writes it as.
private func canonical(_ value: JSONValue) -> JSONValue {
    switch value {
    case .number(let number):
        return JSONValue.exactInt64(number).map(JSONValue.int) ?? value
    case .array(let elements):
        return .array(elements.map(canonical))
    case .object(let members):
        return .object(members.mapValues(canonical))
    default:
        return value
    }
}
