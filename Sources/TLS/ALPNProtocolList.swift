/// An ordered ALPN protocol list (RFC 7301 §3.1) in both Swift and wire form.
///
/// Immutable; `Sendable`. Names must be 1…255 bytes and the encoded list at most 65 535 bytes
/// (RFC 7301 §3.1: `ProtocolName<1..2^8-1>`, `ProtocolNameList<2..2^16-1>`).
struct ALPNProtocolList: Sendable {
    /// Protocol names in preference order, as UTF-8 bytes.
    let names: [[UInt8]]
    /// The length-prefixed wire encoding OpenSSL expects from clients (`SSL_CTX_set_alpn_protos`).
    let wireFormat: [UInt8]

    /// Validates and encodes `protocols`; throws if a name is empty or too long.
    init(_ protocols: [String]) throws(TLSError) {
        var names: [[UInt8]] = []
        var wire: [UInt8] = []
        for name in protocols {
            let bytes = Array(name.utf8)
            // RFC 7301 §3.1: each ProtocolName is 1..255 bytes.
            guard (1...255).contains(bytes.count) else {
                throw TLSError(message: "invalid ALPN protocol name \"\(name)\": must be 1 to 255 bytes")
            }
            names.append(bytes)
            wire.append(UInt8(bytes.count))
            wire.append(contentsOf: bytes)
        }
        guard wire.count <= 65_535 else {
            throw TLSError(message: "ALPN protocol list too long: \(wire.count) bytes, limit 65535")
        }
        self.names = names
        self.wireFormat = wire
    }

    /// The server-side choice: the first of our names that the client's wire-format list offers.
    ///
    /// Returns the byte range of the chosen name inside `offered` (so OpenSSL can point at the
    /// client's own bytes), or nil when nothing matches or the client's list is malformed.
    func select(from offered: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let entries = Self.entries(of: offered)
        for name in names {
            for range in entries where range.count == name.count {
                if name.elementsEqual(offered[range]) { return range }
            }
        }
        return nil
    }

    /// Ranges of each name inside a length-prefixed list; empty if the list is malformed
    /// (a truncated entry or a zero-length name, both forbidden by RFC 7301 §3.1).
    static func entries(of wire: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0
        while index < wire.count {
            let length = Int(wire[index])
            let start = index + 1
            guard length > 0, start + length <= wire.count else { return [] }
            ranges.append(start..<(start + length))
            index = start + length
        }
        return ranges
    }
}
