import Testing
@testable import SwitchboardConfig

/// The parser reads a whole document, so "random splits" here means the same document laid out
/// differently (whitespace, comments, line breaks inside arrays, CRLF), plus every truncation and
/// random corruption, which must fail cleanly with a line inside the text.
@Suite struct RandomizedParsingTests {
    static let canonical = try! SwitchboardConfiguration.parse(ParsingTests.everyKey, fileName: "x")

    /// `ParsingTests.everyKey` re-laid out at random.
    static func relayout(using rng: inout SeededGenerator) -> String {
        func spaces() -> String { String((0..<Int.random(in: 0...3, using: &rng)).map { _ in Bool.random(using: &rng) ? " " : "\t" }) }
        func newline() -> String { Bool.random(using: &rng) ? "\n" : "\r\n" }
        var out = ""
        for line in ParsingTests.everyKey.split(separator: "\n", omittingEmptySubsequences: false) {
            // everyKey has no "#" inside strings, so the first one starts the comment.
            let body = line.prefix(while: { $0 != "#" }).trimmingSpaces()
            if Int.random(in: 0..<4, using: &rng) == 0 { out += spaces() + "# random comment \"[x]\" = 1" + newline() }
            if Int.random(in: 0..<4, using: &rng) == 0 { out += spaces() + newline() }
            guard !body.isEmpty else { out += spaces() + newline(); continue }
            if body.hasPrefix("[") {
                out += spaces() + body + spaces() + newline()
                continue
            }
            let parts = body.split(separator: "=", maxSplits: 1)
            var value = parts[1].trimmingSpaces()
            if value.hasPrefix("[") {
                // Break the array after "[" and after every comma at random.
                value = value.replacingCommasAndBrackets { Bool.random(using: &rng) ? newline() + spaces() : spaces() }
            }
            out += spaces() + parts[0].trimmingSpaces() + spaces() + "=" + spaces() + value + spaces()
            out += (Bool.random(using: &rng) ? "# trailing, with ] and \"" : "") + newline()
        }
        return out
    }

    @Test func randomLayoutsParseToTheSameConfiguration() throws {
        var rng = SeededGenerator(seed: 0x5EED)
        var multiLineArrays = 0
        for _ in 0..<200 {
            let text = Self.relayout(using: &rng)
            #expect(text != ParsingTests.everyKey)
            if text.contains("[\n") || text.contains("[\r\n") || text.contains(",\n") { multiLineArrays += 1 }
            let config = try SwitchboardConfiguration.parse(text, fileName: "x")
            #expect(config == Self.canonical, "\(text)")
            #expect(config.explicitlySetKeys == Self.canonical.explicitlySetKeys)
        }
        // The layouts really did break arrays across lines.
        #expect(multiLineArrays > 50)
    }

    @Test func everyTruncationParsesOrFailsWithALineInsideTheText() {
        let bytes = Array(ParsingTests.everyKey.utf8)
        for end in 0...bytes.count {
            let prefix = String(decoding: bytes[..<end], as: UTF8.self)
            let lineCount = prefix.utf8.filter { $0 == UInt8(ascii: "\n") }.count + 1
            do {
                _ = try SwitchboardConfiguration.parse(prefix, fileName: "t")
            } catch {
                #expect(error.file == "t")
                #expect((1...lineCount).contains(error.line ?? 0), "cut at \(end): \(error)")
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test func randomCorruptionNeverCrashesAndNamesALine() {
        var rng = SeededGenerator(seed: 42)
        let original = Array(ParsingTests.everyKey.utf8)
        let alphabet = Array("\"\\[]=#,._- \t\n\r0aZ\u{0}".utf8) + [0x7F, 0xC3, 0xA9]
        for _ in 0..<500 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let position = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[position] = alphabet.randomElement(using: &rng)!
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: position)
                default: bytes.remove(at: position)
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let lineCount = text.utf8.filter { $0 == UInt8(ascii: "\n") }.count + 1
            do {
                let config = try SwitchboardConfiguration.parse(text, fileName: "c")
                // A surviving mutation still yields a configuration that validates.
                #expect(throws: Never.self) { try config.validate() }
            } catch {
                #expect((1...lineCount).contains(error.line ?? 0), "\(error)")
            }
        }
    }
}

private extension StringProtocol {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }

    /// Inserts `separator()` after "[" and after each "," outside strings, and before "]".
    func replacingCommasAndBrackets(_ separator: () -> String) -> String {
        var out = ""
        var inString = false
        for character in self {
            if character == "]" && !inString { out += separator() }
            out.append(character)
            if character == "\"" { inString.toggle() }
            if !inString && (character == "[" || character == ",") { out += separator() }
        }
        return out
    }
}
