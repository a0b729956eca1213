/// The `[websocket.compression]` section: permessage-deflate (RFC 7692) offered to clients.
public struct CompressionSection: Sendable, Equatable {
    /// `websocket.compression.enabled`: accept the extension when a client offers it.
    public var enabled: Bool = true
    /// `websocket.compression.threshold_bytes`: messages smaller than this are sent uncompressed
    /// (RFC 7692 §6 allows mixing); 0...1073741824.
    public var thresholdBytes: Int = 64
    /// `websocket.compression.max_window_bits`: LZ77 window of our compressor, 9...15
    /// (RFC 7692 §7.1.2.1 allows 8...15; zlib cannot produce raw deflate with 8).
    public var maxWindowBits: Int = 15
    /// `websocket.compression.mem_level`: zlib memory level, 1...9; memory per connection
    /// grows as 2^(mem_level+9).
    public var memLevel: Int = 8
    /// `websocket.compression.level`: zlib compression level, 0 (store) ... 9 (smallest).
    public var level: Int = 6
    /// `websocket.compression.server_no_context_takeover`: reset the compressor after every
    /// message (RFC 7692 §7.1.1.1): less memory between messages, worse ratio.
    public var serverNoContextTakeover: Bool = false

    /// The embedded defaults.
    public init() {}
}
