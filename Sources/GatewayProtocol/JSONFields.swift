/// The members of one strictly parsed JSON object, read as typed fields with the errors a client developer needs:
/// `missing_field` naming a required member that is absent, `invalid_field` naming one of the wrong type (or null
/// where a value is required, or an integer out of range), `invalid_id` naming an id outside the grammar. Members not
/// asked for are ignored, as they always were.
///
/// Client commands and server-API bodies are read by hand through this from the one strict parse (``JSONValue``):
/// no `Decoder` machinery, no second walk for ids — an id is checked when its field is read. A value type; pure.
public struct JSONFields: Sendable {
    public let members: [String: JSONValue]
    /// `""` for a document's top-level object, `"name."` for an object found under `name` (error messages).
    private let path: String

    /// The object's members; anything else is `invalid_json` (`what` names the document in the message).
    public init(_ value: JSONValue, what: String = "frame") throws(GatewayError) {
        guard case .object(let members) = value else { throw GatewayError(.invalidJSON, "the \(what) is not a JSON object") }
        self.members = members
        self.path = ""
    }

    private init(members: [String: JSONValue], path: String) {
        self.members = members
        self.path = path
    }

    /// Parses `bytes` with the strict parser (``JSONValue/parse(_:)``) and takes the top-level object.
    public static func parse(_ bytes: [UInt8], what: String = "frame") throws(GatewayError) -> JSONFields {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw GatewayError(.invalidJSON, "the \(what) is not valid JSON (\(error.description))")
        }
        return try JSONFields(value, what: what)
    }

    // MARK: Required fields

    public func string(_ name: String) throws(GatewayError) -> String {
        try required(name, "String") { $0.stringValue }
    }

    /// A user, device, session or group id: a string that follows ``Identifier``'s grammar.
    public func id(_ name: String) throws(GatewayError) -> String {
        let id = try string(name)
        // The message is built only on failure: this runs for every id of every command.
        guard Identifier.isValid(id) else { try Identifier.check(id, field: "field \"\(path)\(name)\""); return id }
        return id
    }

    public func int64(_ name: String) throws(GatewayError) -> Int64 {
        try integer(name, Int64.self)
    }

    public func int(_ name: String) throws(GatewayError) -> Int {
        try integer(name, Int.self)
    }

    public func bool(_ name: String) throws(GatewayError) -> Bool {
        try required(name, "Bool") { if case .bool(let b) = $0 { b } else { nil } }
    }

    // MARK: Optional fields (absent or null: nil)

    public func optionalString(_ name: String) throws(GatewayError) -> String? {
        try optional(name) { () throws(GatewayError) in try string(name) }
    }

    public func optionalID(_ name: String) throws(GatewayError) -> String? {
        try optional(name) { () throws(GatewayError) in try id(name) }
    }

    public func optionalInt64(_ name: String) throws(GatewayError) -> Int64? {
        try optional(name) { () throws(GatewayError) in try int64(name) }
    }

    public func optionalInt(_ name: String) throws(GatewayError) -> Int? {
        try optional(name) { () throws(GatewayError) in try int(name) }
    }

    public func optionalBool(_ name: String) throws(GatewayError) -> Bool? {
        try optional(name) { () throws(GatewayError) in try bool(name) }
    }

    public func optionalDouble(_ name: String) throws(GatewayError) -> Double? {
        try optional(name) { () throws(GatewayError) in try required(name, "Double") { $0.doubleValue } }
    }

    /// Any JSON value, kept as it is (app-defined payloads).
    public func optionalJSON(_ name: String) -> JSONValue? {
        guard let value = members[name], value != .null else { return nil }
        return value
    }

    /// An array of strings; an element of another type is named by its index (`numbers.3`).
    public func optionalStrings(_ name: String) throws(GatewayError) -> [String]? {
        try optional(name) { () throws(GatewayError) in
            let elements = try required(name, "Array<String>") { if case .array(let a) = $0 { a } else { nil } }
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                guard case .string(let s) = element else { throw mismatch("\(name).\(index)", element, "String") }
                strings.append(s)
            }
            return strings
        }
    }

    /// An object whose members are all integers (`{"parent":2}`); a bad member is named (`roleLimits.parent`).
    public func optionalIntMap(_ name: String) throws(GatewayError) -> [String: Int]? {
        try optional(name) { () throws(GatewayError) in
            let nested = try object(name)
            var map: [String: Int] = [:]
            for key in nested.members.keys { map[key] = try nested.int(key) }
            return map
        }
    }

    /// The object under `name`, whose fields are named `name.field` in errors.
    public func object(_ name: String) throws(GatewayError) -> JSONFields {
        let members = try required(name, "Dictionary<String, Any>") { if case .object(let o) = $0 { o } else { nil } }
        return JSONFields(members: members, path: "\(path)\(name).")
    }

    // MARK: Errors, worded as clients have always seen them

    private func required<T>(_ name: String, _ type: @autoclosure () -> String, _ extract: (JSONValue) -> T?) throws(GatewayError) -> T {
        guard let value = members[name] else { throw GatewayError(.missingField, "missing field \"\(path)\(name)\"") }
        guard let typed = extract(value) else { throw mismatch(name, value, type()) }
        return typed
    }

    private func optional<T>(_ name: String, _ read: () throws(GatewayError) -> T) throws(GatewayError) -> T? {
        guard let value = members[name], value != .null else { return nil }
        return try read()
    }

    private func integer<I: FixedWidthInteger>(_ name: String, _ type: I.Type) throws(GatewayError) -> I {
        let whole = try required(name, "\(I.self)") { if case .int(let n) = $0 { n } else { nil } }
        guard let exact = I(exactly: whole) else {
            throw GatewayError(.invalidField, "field \"\(path)\(name)\" is out of range for \(I.self)")
        }
        return exact
    }

    private func mismatch(_ name: String, _ value: JSONValue, _ type: String) -> GatewayError {
        if value == .null { return GatewayError(.invalidField, "field \"\(path)\(name)\" must be a \(type), not null") }
        return GatewayError(.invalidField, "field \"\(path)\(name)\" must be of type \(type)")
    }
}

/// A command or API body read from a parsed object by hand (see ``JSONFields``).
public protocol JSONFieldsDecodable {
    init(fields: JSONFields) throws(GatewayError)
}
