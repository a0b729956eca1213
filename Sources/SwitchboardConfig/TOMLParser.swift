/// Parser for the strict TOML subset of the configuration file (the subset is documented in
/// `config/switchboard.example.toml`).
///
/// Everything outside the subset is an error naming the line, never silently skipped: a config
/// that parses means what it says. The parser knows nothing about the schema; it rejects
/// duplicate keys and sections and returns entries with their lines. Single-use, not shared.
struct TOMLParser {
    let bytes: [UInt8]
    let fileName: String
    var index = 0
    /// 1-based line of `bytes[index]`.
    var line = 1
    private var currentTable = ""
    /// Every defined table and key (full dotted name) with its line, for duplicate errors.
    private var definedNames: [String: Int] = [:]
    private var document = TOMLDocument()

    /// Parses `text`; `fileName` only labels errors.
    static func parse(_ text: String, fileName: String) throws(ConfigError) -> TOMLDocument {
        var parser = TOMLParser(bytes: Array(text.utf8), fileName: fileName)
        return try parser.parseDocument()
    }

    private init(bytes: [UInt8], fileName: String) {
        self.bytes = bytes
        self.fileName = fileName
        // Some editors write a UTF-8 byte order mark; it carries no meaning, so skip it.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    private mutating func parseDocument() throws(ConfigError) -> TOMLDocument {
        while true {
            skipSpaces()
            guard let byte = peek() else { return document }
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): try consumeNewline()
            case UInt8(ascii: "#"): try skipComment()
            case UInt8(ascii: "["): try parseTableHeader()
            default: try parseKeyValue()
            }
        }
    }

    // MARK: Lines

    /// Error at the current line unless another line is given.
    func failure(_ message: String, key: String? = nil, line: Int? = nil) -> ConfigError {
        ConfigError(file: fileName, line: line ?? self.line, key: key, message: message)
    }

    func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    mutating func skipSpaces() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    /// Consumes `\n` or `\r\n`; a lone `\r` is not a line break in TOML.
    mutating func consumeNewline() throws(ConfigError) {
        if peek() == UInt8(ascii: "\r") {
            guard peek(1) == UInt8(ascii: "\n") else { throw failure("carriage return without line feed") }
            index += 1
        }
        index += 1
        line += 1
    }

    /// Skips `# ...` up to (not including) the line break.
    mutating func skipComment() throws(ConfigError) {
        index += 1
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n") { return }
            // TOML 1.0 forbids control characters in comments; they usually mean a corrupted file.
            if byte == 0x7F || (byte < 0x20 && byte != UInt8(ascii: "\t")) {
                throw failure("control character (0x\(String(byte, radix: 16))) in comment")
            }
            index += 1
        }
    }

    /// After a header or a value only spaces and a comment may follow on the line.
    private mutating func finishLine(key: String?) throws(ConfigError) {
        skipSpaces()
        if peek() == UInt8(ascii: "#") { try skipComment() }
        guard let byte = peek() else { return }
        guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
            throw failure("unexpected \(describeText(at: index)) at end of line; one key = value per line, comments start with #", key: key)
        }
        try consumeNewline()
    }

    /// The rest of the token at `start`, quoted, for error messages.
    func describeText(at start: Int) -> String {
        var end = start
        let stops: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                                 UInt8(ascii: "#"), UInt8(ascii: ","), UInt8(ascii: "]")]
        while end < bytes.count, end - start < 40, !stops.contains(bytes[end]) { end += 1 }
        if end == start, start < bytes.count { end = start + 1 }
        return "\"" + String(decoding: bytes[start..<end], as: UTF8.self) + "\""
    }

    // MARK: Headers and keys

    private mutating func parseTableHeader() throws(ConfigError) {
        let headerLine = line
        if peek(1) == UInt8(ascii: "[") {
            throw failure("arrays of tables ([[...]]) are not supported")
        }
        index += 1
        var parts: [String] = []
        while true {
            skipSpaces()
            parts.append(try parseBareKey(context: nil))
            skipSpaces()
            if peek() == UInt8(ascii: ".") { index += 1; continue }
            if peek() == UInt8(ascii: "]") { index += 1; break }
            throw failure("expected \".\" or \"]\" in section header, found \(describeText(at: index))")
        }
        let name = parts.joined(separator: ".")
        if let first = definedNames[name] {
            throw failure("duplicate section [\(name)] (first defined on line \(first))", key: name)
        }
        definedNames[name] = headerLine
        document.tables.append(TOMLTable(name: name, line: headerLine))
        currentTable = name
        try finishLine(key: nil)
    }

    /// A TOML 1.0 bare key: `A-Z a-z 0-9 _ -`, at least one character.
    private mutating func parseBareKey(context: String?) throws(ConfigError) -> String {
        let start = index
        while let byte = peek(), Self.isBareKeyByte(byte) { index += 1 }
        guard index > start else {
            if peek() == UInt8(ascii: "\"") || peek() == UInt8(ascii: "'") {
                throw failure("quoted keys are not supported; keys are letters, digits, _ and -", key: context)
            }
            let found = peek() == nil || peek() == UInt8(ascii: "\n") || peek() == UInt8(ascii: "\r")
                ? "end of line" : describeText(at: index)
            throw failure("expected a key name, found \(found)", key: context)
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    private mutating func parseKeyValue() throws(ConfigError) {
        let keyLine = line
        let name = try parseBareKey(context: nil)
        let key = currentTable.isEmpty ? name : currentTable + "." + name
        skipSpaces()
        if peek() == UInt8(ascii: ".") {
            throw failure("dotted keys are not supported; put the key under a [section] header", key: key)
        }
        guard peek() == UInt8(ascii: "=") else {
            throw failure("expected \"=\" after the key, found \(describeText(at: index))", key: key)
        }
        index += 1
        skipSpaces()
        if let first = definedNames[key] {
            throw failure("duplicate key (first set on line \(first))", key: key)
        }
        let value = try parseValue(key: key, inArray: false)
        definedNames[key] = keyLine
        document.entries.append(TOMLEntry(key: key, value: value, line: keyLine))
        try finishLine(key: key)
    }
}
