// Fuzz target: the configuration file parser (the TOML subset) and the schema on top of it. Compiled into the
// SwitchboardConfig module.
//
// Invariants checked beyond "no crash":
// - every parser error names a line of the file (1 ... number of lines), and so does every schema error that
//   names a line;
// - a parsed document written back out (sections, then `key = value` with each value rendered the way error
//   messages render it) parses to the same tables and entries: rendering is exact, so "got ..." messages quote
//   what the file meant.

private func lineCount(_ text: String) -> Int {
    text.utf8.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
}

/// The document as a file: sections and entries in source order, keys relative to their section.
private func render(_ document: TOMLDocument) -> String {
    var items: [(line: Int, text: String)] = document.tables.map { ($0.line, "[\($0.name)]") }
    let tableNames = document.tables.sorted { $0.line < $1.line }
    for entry in document.entries {
        let table = tableNames.last { $0.line < entry.line }?.name
        let name = table.map { String(entry.key.dropFirst($0.count + 1)) } ?? entry.key
        items.append((entry.line, "\(name) = \(entry.value.rendered)"))
    }
    return items.sorted { $0.line < $1.line }.map(\.text).joined(separator: "\n") + "\n"
}

private func withoutLines(_ document: TOMLDocument) -> ([String], [String: TOMLValue]) {
    (document.tables.map(\.name), Dictionary(uniqueKeysWithValues: document.entries.map { ($0.key, $0.value) }))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTOML(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzInput(data, size).rest, as: UTF8.self)
    let lines = lineCount(text)
    do {
        _ = try SwitchboardConfiguration.parse(text, fileName: "fuzz.toml")
    } catch {
        // Checks across keys (validation) may name no line; a line, when named, is in the file.
        if let line = error.line { fuzzRequire(line >= 1 && line <= lines, "error on line \(line) of \(lines)") }
    }
    let document: TOMLDocument
    do {
        document = try TOMLParser.parse(text, fileName: "fuzz.toml")
    } catch {
        let line = error.line ?? 0
        fuzzRequire(line >= 1 && line <= lines, "parser error on line \(line) of \(lines)")
        return 0
    }
    let written = render(document)
    do {
        let again = try TOMLParser.parse(written, fileName: "rendered.toml")
        fuzzRequire(withoutLines(again) == withoutLines(document), "the rendered document reads differently:\n\(written)")
    } catch {
        fatalError("fuzz invariant: the rendered document does not parse: \(error)\n\(written)")
    }
    return 0
}
