/// Ordered header list; lookups are case-insensitive (ASCII).
///
/// Keeps every field in arrival order, duplicates included (RFC 9110 §5.3), so repeated
/// headers can be inspected with `values(_:)`. Value type, `Sendable`. Names and values are
/// stored as given; `HTTPResponse.serialize` neutralises CR/LF/NUL when writing them out.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    /// One header field line.
    public typealias Element = (name: String, value: String)

    private var fields: [Element]

    /// Creates a header list holding `pairs` in order.
    public init(_ pairs: [(name: String, value: String)] = []) {
        fields = pairs
    }

    /// Number of field lines (duplicates counted).
    public var count: Int { fields.count }

    /// True when there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of `name`, or nil when absent.
    public subscript(_ name: String) -> String? {
        fields.first { ASCII.equalsIgnoringCase($0.name, name) }?.value
    }

    /// All values of `name`, in order (for repeated headers).
    public func values(_ name: String) -> [String] {
        fields.compactMap { ASCII.equalsIgnoringCase($0.name, name) ? $0.value : nil }
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { ASCII.equalsIgnoringCase($0.name, name) }
    }

    /// Does any value of header `name`, split on commas and trimmed, equal `token`
    /// case-insensitively? (e.g. Connection: keep-alive, Upgrade)
    public func containsToken(_ token: String, in name: String) -> Bool {
        for field in fields where ASCII.equalsIgnoringCase(field.name, name) {
            for element in ASCII.listElements(field.value)
            where ASCII.equalsIgnoringCase(String(element), token) {
                return true
            }
        }
        return false
    }

    /// Appends a field, keeping any existing ones with the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field named `name` and appends one with `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(name: String) {
        fields.removeAll { ASCII.equalsIgnoringCase($0.name, name) }
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }

    /// Equal when both lists hold the same fields in the same order; names compare
    /// case-insensitively, values exactly.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.fields.count == rhs.fields.count else { return false }
        return zip(lhs.fields, rhs.fields).allSatisfy {
            ASCII.equalsIgnoringCase($0.name, $1.name) && $0.value == $1.value
        }
    }
}
