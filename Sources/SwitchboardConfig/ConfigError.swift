/// An invalid configuration: where it is wrong (file, line, key) and why.
///
/// `description` is the one-line message the gateway prints before exiting, in the
/// compiler-style form `file:line: key: message`, e.g.
/// `config/x.toml:12: websocket.max_message_bytes: expected an integer between 125 and 1073741824, got "big"`.
/// Parts that are unknown are left out (`file: key: message` when the line is `nil`,
/// `file:line: message` when no key is involved).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration file as the user named it, or `"command line"` for errors found by
    /// ``SwitchboardConfiguration/validate()`` after command-line overrides.
    public var file: String
    /// 1-based line in `file`, or `nil` when the error has no single line (I/O errors, overrides).
    public var line: Int?
    /// The full dotted key (`"websocket.max_message_bytes"`), or the section name for section
    /// errors; `nil` for errors of the file's syntax or of I/O.
    public var key: String?
    /// What is wrong, phrased for the operator; never empty.
    public var message: String

    /// Creates an error; see the properties for what each part means.
    public init(file: String, line: Int?, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `file:line: key: message`, leaving out the parts that are `nil`.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if let key { text += ": \(key)" }
        return text + ": " + message
    }
}
