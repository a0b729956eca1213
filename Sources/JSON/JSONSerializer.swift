/// Writes ``JSONValue`` as compact RFC 8259 text with object members sorted by name.
///
/// Sorted members make the signed bytes deterministic for a given claim set; `/` is left
/// unescaped (RFC 8259 §7 allows both) to keep tokens short.
enum JSONSerializer {
    static func write(_ value: JSONValue, to output: inout [UInt8]) throws(JSONParseError) {
        switch value {
        case .string(let string):
            JSONString.write(string, to: &output)
        case .number(let number):
            guard number.isFinite else {
                throw JSONParseError(offset: 0, reason: "non-finite number cannot be written as JSON")
            }
            if let whole = JSONValue.exactInt64(number) {
                output.append(contentsOf: String(whole).utf8)
            } else {
                // Swift's description is the shortest round-tripping form ("0.1", "1e-07",
                // "1.5e+300"), all of which are valid JSON numbers.
                output.append(contentsOf: number.description.utf8)
            }
        case .int(let integer):
            output.append(contentsOf: String(integer).utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null:
            output.append(contentsOf: "null".utf8)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                try write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // Compare names by UTF-8 bytes so the order does not depend on Unicode collation.
            let names = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (position, name) in names.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONString.write(name, to: &output)
                output.append(UInt8(ascii: ":"))
                try write(members[name]!, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}
