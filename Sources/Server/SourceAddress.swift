import Glibc

/// Where a request comes from, for per-address limits: the TCP peer, or — when the peer is one of
/// `server.trusted_proxies` — the client named by `X-Forwarded-For`. A header from any other peer is ignored, since
/// anyone can write one.
public enum SourceAddress {
    /// The client's address as text: walking `X-Forwarded-For` from the right (the entry the nearest proxy added),
    /// trusted proxies are skipped and the first other address is the client. When every entry is a trusted proxy
    /// (or the header is missing or malformed), the leftmost trusted hop is the best we know.
    public static func resolve(peer: String, forwardedFor: [String], trusted: TrustedProxies) -> String {
        guard trusted.contains(peer) else { return peer }
        var client = peer
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { String($0.trimmingSpaces) }
        for hop in hops.reversed() {
            guard bytes(hop) != nil else { return client }   // a malformed entry: stop at the last good hop
            client = hop
            if !trusted.contains(hop) { return hop }
        }
        return client
    }

    /// The key an address is limited under: an IPv4 address as it is, an IPv6 address by its /64 (one subscriber's
    /// network hands out as many addresses in it as it likes), an IPv4-mapped IPv6 address as its IPv4 address.
    public static func group(_ text: String) -> String {
        guard let b = bytes(text) else { return text }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF {
            return b[12...].map { String($0) }.joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(b[$0]) << 8 | UInt16(b[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    /// The 16-byte form of an IPv4 (as IPv4-mapped IPv6) or IPv6 address in text; nil when it is neither.
    static func bytes(_ text: String) -> [UInt8]? {
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + withUnsafeBytes(of: &v4) { Array($0) } }
        return nil
    }
}

/// The networks `server.trusted_proxies` names (addresses or CIDR prefixes, IPv4 or IPv6).
public struct TrustedProxies: Sendable {
    private let networks: [(bytes: [UInt8], prefixBits: Int)]

    /// Entries are validated by the configuration; one that does not parse is left out.
    public init(_ entries: [String]) {
        networks = entries.compactMap { entry in
            let parts = entry.split(separator: "/", maxSplits: 1)
            guard let bytes = SourceAddress.bytes(String(parts[0])) else { return nil }
            let isV4 = !parts[0].contains(":")
            let given = parts.count == 2 ? Int(parts[1]) : nil
            if parts.count == 2 && given == nil { return nil }
            // IPv4 prefixes count within the mapped form's last 32 bits.
            let prefix = given.map { isV4 ? 96 + $0 : $0 } ?? 128
            guard (0...128).contains(prefix) else { return nil }
            return (bytes, prefix)
        }
    }

    public var isEmpty: Bool { networks.isEmpty }

    public func contains(_ address: String) -> Bool {
        guard !networks.isEmpty, let bytes = SourceAddress.bytes(address) else { return false }
        return networks.contains { network in
            var bits = network.prefixBits
            var index = 0
            while bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                guard bytes[index] & mask == network.bytes[index] & mask else { return false }
                bits -= 8
                index += 1
            }
            return true
        }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace around list items).
    public var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
