/// What the two SQL engines spell differently, for statements written once (after SQLKit's `SQLDialect`).
///
/// A shared statement is a template: plain SQL both engines accept, with `?n` parameters and a few `{token}`s where
/// the spelling differs. `sql(_:)` turns it into the engine's text; executors call it once per template, when they
/// prepare it (see `SQLExecutor`), never per use. Quoted text ('…', "…") is left as it is.
///
/// | token | SQLite | PostgreSQL |
/// | --- | --- | --- |
/// | `?n` | `?n` | `$n` |
/// | `{rowOrder}` (insertion order) | `rowid` | `row_order` (an identity column) |
/// | `{greatest}` (scalar maximum) | `max` | `GREATEST` |
/// | `{forUpdate}` (lock the rows read) | nothing: one writer | `FOR UPDATE` |
/// | `{skipLocked}` (claim rows others are not claiming) | nothing: one writer | `FOR UPDATE SKIP LOCKED` |
/// | `{seq:table}` (the table's next insertion number) | `(SELECT COALESCE(MAX(seq), 0) + 1 FROM table)` | `nextval('table_seq')` |
/// | `{ifAbsent:key}` (end of an insert whose key may be taken) | nothing: the constraint error says so | `ON CONFLICT (key) DO NOTHING` |
///
/// Statements that differ as a whole (the per-log heads of a snapshot) are static members instead.
protocol SQLDialect {
    /// Parameter `index` (from 1) as the engine writes it.
    static func placeholder(_ index: Substring) -> String
    static var rowOrder: String { get }
    static var greatest: String { get }
    static var forUpdate: String { get }
    static var skipLocked: String { get }
    static func nextSequenceValue(table: Substring) -> String
    /// The end of an insert that leaves a row whose `key` is taken alone (see `SQLExecutor.insertUnlessTaken`).
    static func ifAbsent(key: Substring) -> String
    /// Rows of (user id, highest offset): each log's stored maximum and the heads kept when pruning emptied a log
    /// (a user may appear twice; the reader keeps the larger).
    static var logHeadsSQL: String { get }
    /// The text after "apr_" of every approval id that continues with a digit.
    static var approvalSuffixesSQL: String { get }
}

extension SQLDialect {
    /// The engine's SQL for a template (see the table above). An unknown `{…}` is kept as written.
    static func sql(_ template: String) -> String {
        var out = ""
        out.reserveCapacity(template.utf8.count + 16)
        var quote: Character?
        var index = template.startIndex
        while index < template.endIndex {
            let c = template[index]
            if let open = quote {
                out.append(c)
                if c == open { quote = nil }
                index = template.index(after: index)
                continue
            }
            switch c {
            case "'", "\"":
                quote = c
                out.append(c)
                index = template.index(after: index)
            case "?":
                let digitsStart = template.index(after: index)
                var end = digitsStart
                while end < template.endIndex, template[end].isASCII, template[end].isNumber { end = template.index(after: end) }
                out += end > digitsStart ? placeholder(template[digitsStart..<end]) : "?"
                index = end
            case "{":
                guard let close = template[index...].firstIndex(of: "}"),
                      let replacement = token(template[template.index(after: index)..<close]) else {
                    out.append(c)
                    index = template.index(after: index)
                    continue
                }
                out += replacement
                index = template.index(after: close)
            default:
                out.append(c)
                index = template.index(after: index)
            }
        }
        return out
    }

    private static func token(_ name: Substring) -> String? {
        switch name {
        case "rowOrder": return rowOrder
        case "greatest": return greatest
        case "forUpdate": return forUpdate
        case "skipLocked": return skipLocked
        default:
            if name.hasPrefix("seq:") { return nextSequenceValue(table: name.dropFirst(4)) }
            if name.hasPrefix("ifAbsent:") { return ifAbsent(key: name.dropFirst(9)) }
            return nil
        }
    }
}
