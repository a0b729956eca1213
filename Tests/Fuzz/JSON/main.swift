// Fuzz target: the strict JSON parser and the serializer. Compiled into the JSON module.
//
// Invariants checked beyond "no crash": an error's offset lies within the input; whatever parses serializes
// (parsed numbers are finite), and the serialized text parses back to an equal value and serializes to the same
// bytes again (the serializer is deterministic and its output is strict JSON).

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
        fuzzRequire(again == value, "parse(serialize(v)) != v for \(String(decoding: text, as: UTF8.self))")
        fuzzRequire(try again.serialized() == text, "serialization is not stable")
    } catch {
        fatalError("fuzz invariant: serialized text does not parse: \(error) in \(String(decoding: text, as: UTF8.self))")
    }
    return 0
}
