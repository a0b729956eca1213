/// One value of the TOML subset the configuration file is written in.
enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int)
    case boolean(Bool)
    case stringArray([String])

    /// The value as it would be written in the file, for "got ..." in error messages.
    var rendered: String {
        switch self {
        case .string(let text): return TOMLValue.quote(text)
        case .integer(let number): return String(number)
        case .boolean(let flag): return flag ? "true" : "false"
        case .stringArray(let items): return "[" + items.map(TOMLValue.quote).joined(separator: ", ") + "]"
        }
    }

    /// A basic string literal that reads back as `text`; control characters are escaped so an
    /// error message stays on one line.
    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// A `key = value` line, with its full dotted key (`"websocket.compression.level"`).
struct TOMLEntry: Equatable, Sendable {
    var key: String
    var value: TOMLValue
    /// 1-based line of the key (a multi-line array starts on this line).
    var line: Int
}

/// A `[section]` header.
struct TOMLTable: Equatable, Sendable {
    var name: String
    var line: Int
}

/// A parsed file, in source order; duplicates have already been rejected.
struct TOMLDocument: Equatable, Sendable {
    var tables: [TOMLTable] = []
    var entries: [TOMLEntry] = []
}
