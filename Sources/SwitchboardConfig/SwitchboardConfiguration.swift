/// The whole gateway configuration: embedded defaults, overlaid by a TOML file, then by
/// command-line flags.
///
/// A plain value, built once at start-up and then shared read-only with every event loop.
/// Equality compares the settings only (the five sections), not ``explicitlySetKeys``: two
/// configurations are equal when the gateway would behave the same under both.
public struct SwitchboardConfiguration: Sendable, Equatable {
    /// `[server]`: listeners, threads, shutdown.
    public var server = ServerSection()
    /// `[http]`: request parser limits.
    public var http = HTTPSection()
    /// `[websocket]` and `[websocket.compression]`.
    public var websocket = WebSocketSection()
    /// `[log]`.
    public var log = LogSection()
    /// `[metrics]`.
    public var metrics = MetricsSection()
    /// `[auth]`.
    public var auth = AuthSection()
    /// `[storage]`.
    public var storage = StorageSection()
    /// `[gateway]`.
    public var gateway = GatewaySection()
    /// `[push]`.
    public var push = PushSection()
    /// `[relationships]`.
    public var relationships = RelationshipsSection()
    /// `[cluster]`.
    public var cluster = ClusterSection()

    /// Full dotted names of the keys the file set (e.g. `"websocket.max_message_bytes"`), even
    /// when set to their default. Code applying command-line overrides should insert the keys it
    /// sets, so that ``applyEchoDefaults()`` leaves them alone too.
    public var explicitlySetKeys: Set<String> = []

    /// Frame and message limit in echo mode: 16 MiB + 1 KiB, above the largest Autobahn
    /// TestSuite payloads (cases 9.x send up to 16 MiB).
    public static let echoMessageBytes = 16 * 1024 * 1024 + 1024
    /// Outbound queue limit in echo mode: an echo of a 16 MiB message must fit with room to spare.
    public static let echoOutboundBytes = 64 * 1024 * 1024

    /// The embedded defaults (`switchboard serve` without `--config`).
    public init() {}

    /// Every key the file may contain, as full dotted names in the example file's order.
    public static var knownKeys: [String] { ConfigSchema.keys.map(\.name) }

    /// Reads and parses the file at `path` (blocking, once at start-up).
    ///
    /// - Throws: ``ConfigError`` naming `path` as given, for I/O errors, invalid UTF-8, files
    ///   over 1 MiB, and everything ``parse(_:fileName:)`` rejects.
    public static func load(path: String) throws(ConfigError) -> SwitchboardConfiguration {
        try parse(ConfigFileReader.read(path: path), fileName: path)
    }

    /// Parses configuration text over the embedded defaults and validates the result.
    ///
    /// `fileName` only labels errors. Keys absent from `text` keep their defaults.
    /// - Throws: the first ``ConfigError`` in file order, naming line and key: syntax outside the
    ///   TOML subset, duplicate keys or sections, unknown sections or keys (with a suggestion
    ///   when one is close), wrong types, values out of range, and cross-field rules.
    public static func parse(_ text: String, fileName: String) throws(ConfigError) -> SwitchboardConfiguration {
        let document = try TOMLParser.parse(text, fileName: fileName)
        let keys = ConfigSchema.keys
        let keysByName = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) })
        var config = SwitchboardConfiguration()
        var lines: [String: Int] = [:]
        var tables = document.tables[...]
        for entry in document.entries {
            // Report problems in file order: a bad header above this entry comes first.
            while let table = tables.first, table.line < entry.line {
                try checkSection(table, fileName: fileName)
                tables = tables.dropFirst()
            }
            guard let key = keysByName[entry.key] else {
                var message = "unknown key"
                if let guess = KeySuggester.suggestion(for: entry.key, among: keys.map(\.name)) {
                    message += "; did you mean \(guess)?"
                }
                throw ConfigError(file: fileName, line: entry.line, key: entry.key, message: message)
            }
            if let problem = key.assign(&config, entry.value) {
                throw ConfigError(file: fileName, line: entry.line, key: entry.key, message: problem)
            }
            config.explicitlySetKeys.insert(entry.key)
            lines[entry.key] = entry.line
        }
        for table in tables { try checkSection(table, fileName: fileName) }
        // Approvals wait the general acknowledgement delay unless the file gives them their own; resolved here so the
        // stored value is the one in force (equality compares behaviour).
        if !config.explicitlySetKeys.contains("gateway.approval_push_delay_ms") {
            config.gateway.approvalPushDelayMs = config.gateway.pushAckDelayMs
        }
        try config.validate(fileName: fileName, lines: lines)
        return config
    }

    private static func checkSection(_ table: TOMLTable, fileName: String) throws(ConfigError) {
        guard !ConfigSchema.sections.contains(table.name) else { return }
        var message = "unknown section [\(table.name)]"
        if let guess = KeySuggester.suggestion(for: table.name, among: ConfigSchema.sections) {
            message += "; did you mean [\(guess)]?"
        }
        throw ConfigError(file: fileName, line: table.line, key: table.name, message: message)
    }

    /// Adjusts defaults for `switchboard serve --echo` (the Autobahn conformance target):
    /// `websocket.max_message_bytes` and `websocket.max_frame_bytes` become ``echoMessageBytes``,
    /// `websocket.max_outbound_bytes` ``echoOutboundBytes`` and
    /// `websocket.compression.threshold_bytes` 0 — each only when absent from
    /// ``explicitlySetKeys``, so a value the operator chose always wins. Does not set `server.echo`.
    public mutating func applyEchoDefaults() {
        func setUnlessExplicit(_ key: String, _ path: WritableKeyPath<SwitchboardConfiguration, Int>, _ value: Int) {
            if !explicitlySetKeys.contains(key) { self[keyPath: path] = value }
        }
        setUnlessExplicit("websocket.max_message_bytes", \.websocket.maxMessageBytes, Self.echoMessageBytes)
        setUnlessExplicit("websocket.max_frame_bytes", \.websocket.maxFrameBytes, Self.echoMessageBytes)
        setUnlessExplicit("websocket.max_outbound_bytes", \.websocket.maxOutboundBytes, Self.echoOutboundBytes)
        // So conformance runs push every message, tiny ones included, through the compressor.
        setUnlessExplicit("websocket.compression.threshold_bytes", \.websocket.compression.thresholdBytes, 0)
    }

    /// Compares the settings; ``explicitlySetKeys`` is provenance, not behaviour, and is ignored.
    public static func == (lhs: SwitchboardConfiguration, rhs: SwitchboardConfiguration) -> Bool {
        lhs.server == rhs.server && lhs.http == rhs.http && lhs.websocket == rhs.websocket
            && lhs.log == rhs.log && lhs.metrics == rhs.metrics
            && lhs.auth == rhs.auth && lhs.storage == rhs.storage && lhs.gateway == rhs.gateway && lhs.push == rhs.push && lhs.relationships == rhs.relationships
            && lhs.cluster == rhs.cluster
    }
}
