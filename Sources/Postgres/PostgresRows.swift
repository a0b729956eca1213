import CPostgres

/// The rows of one statement, copied out of libpq's result in text format. Columns are indexed from 0.
public struct PostgresRows: Sendable {
    /// Each row's cells as raw text bytes; nil is SQL NULL.
    public let rows: [[[UInt8]?]]
    /// Rows the statement inserted, updated or deleted (`RETURNING` rows count too); 0 for other statements.
    public let affected: Int

    init(_ result: OpaquePointer) {
        let rowCount = Int(PQntuples(result)), columnCount = Int(PQnfields(result))
        var rows: [[[UInt8]?]] = []
        rows.reserveCapacity(rowCount)
        for r in 0..<rowCount {
            var row: [[UInt8]?] = []
            row.reserveCapacity(columnCount)
            for c in 0..<columnCount {
                if PQgetisnull(result, Int32(r), Int32(c)) != 0 { row.append(nil); continue }
                let length = Int(PQgetlength(result, Int32(r), Int32(c)))
                let value = PQgetvalue(result, Int32(r), Int32(c))!
                row.append(value.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) })
            }
            rows.append(row)
        }
        self.rows = rows
        affected = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    public var count: Int { rows.count }
    public var isEmpty: Bool { rows.isEmpty }
    public subscript(index: Int) -> PostgresRow { PostgresRow(cells: rows[index]) }
    /// Every row, mapped.
    public func map<T, E: Error>(_ transform: (PostgresRow) throws(E) -> T) throws(E) -> [T] {
        var out: [T] = []
        out.reserveCapacity(rows.count)
        for cells in rows { out.append(try transform(PostgresRow(cells: cells))) }
        return out
    }
    /// The first row, if any.
    public var first: PostgresRow? { rows.first.map { PostgresRow(cells: $0) } }
}

/// One row in text format, with typed accessors. A malformed cell (not a number where one is expected) reads as 0
/// or empty: the schema's column types make that impossible for rows this store wrote.
public struct PostgresRow: Sendable {
    let cells: [[UInt8]?]

    public func isNull(_ column: Int) -> Bool { cells[column] == nil }
    public func string(_ column: Int) -> String { cells[column].map { String(decoding: $0, as: UTF8.self) } ?? "" }
    public func optionalString(_ column: Int) -> String? { cells[column].map { String(decoding: $0, as: UTF8.self) } }
    public func int64(_ column: Int) -> Int64 { Int64(string(column)) ?? 0 }
    public func optionalInt64(_ column: Int) -> Int64? { isNull(column) ? nil : int64(column) }
    /// `boolean` columns print as `t`/`f`.
    public func bool(_ column: Int) -> Bool { cells[column] == [UInt8(ascii: "t")] }
    /// A `bytea` column, which the text format prints as `\x` followed by hex digits.
    public func bytes(_ column: Int) -> [UInt8] { optionalBytes(column) ?? [] }
    public func optionalBytes(_ column: Int) -> [UInt8]? {
        guard let text = cells[column] else { return nil }
        guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x") else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((text.count - 2) / 2)
        var i = 2
        while i + 1 < text.count {
            bytes.append(Self.nibble(text[i]) << 4 | Self.nibble(text[i + 1]))
            i += 2
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return 0
        }
    }
}
