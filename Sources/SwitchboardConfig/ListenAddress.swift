/// A `host:port` a listener binds to, as written in `server.listen` and `server.tls_listen`.
///
/// Accepted forms: dotted-quad IPv4 (`127.0.0.1:7420`), bracketed IPv6 with an optional zone
/// (`[::1]:7420`, `[fe80::1%eth0]:7420`), or an RFC 1123 hostname (`localhost:7420`). The port is
/// 0...65535; 0 asks the kernel for an ephemeral port, which tests use. Hostnames are kept as
/// written: resolving them is the listener's job, not the parser's. A plain value type, safe to share.
public struct ListenAddress: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// IPv4 literal, IPv6 literal without brackets (zone included), or hostname.
    public var host: String
    /// TCP port; 0 means "any free port".
    public var port: UInt16

    /// Creates an address without validating `host`; use ``parse(_:)`` for user input.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// True when `host` is an IPv6 literal (it is then written in brackets).
    public var isIPv6: Bool { host.contains(":") }

    /// The address in the form ``parse(_:)`` accepts: `host:port`, or `[host]:port` for IPv6.
    public var description: String {
        isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Parses `host:port`; returns `nil` for anything that is not one of the accepted forms
    /// (missing port, port above 65535, unbracketed IPv6, malformed IPv4, invalid hostname).
    public static func parse(_ s: String) -> ListenAddress? {
        let hostPart: Substring
        let portPart: Substring
        if s.hasPrefix("[") {
            guard let close = s.firstIndex(of: "]") else { return nil }
            hostPart = s[s.index(after: s.startIndex)..<close]
            let rest = s[s.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portPart = rest.dropFirst()
            guard isIPv6Literal(hostPart) else { return nil }
        } else {
            guard let colon = s.lastIndex(of: ":") else { return nil }
            hostPart = s[..<colon]
            portPart = s[s.index(after: colon)...]
            guard isIPv4Literal(hostPart) || (!looksNumeric(hostPart) && isHostname(hostPart)) else { return nil }
        }
        guard let port = parsePort(portPart) else { return nil }
        return ListenAddress(host: String(hostPart), port: port)
    }

    private static func parsePort(_ text: Substring) -> UInt16? {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard let value = Int(text), value <= Int(UInt16.max) else { return nil }
        return UInt16(value)
    }

    // A host made only of digits and dots is meant as IPv4; rejecting it as a hostname keeps a typo
    // like "127.0.0.256" from being sent to the resolver.
    private static func looksNumeric(_ host: Substring) -> Bool {
        host.allSatisfy { $0 == "." || ($0.isASCII && $0.isNumber) }
    }

    static func isIPv4Literal(_ host: Substring) -> Bool {
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return false }
        return octets.allSatisfy { octet in
            guard (1...3).contains(octet.count), octet.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
            // "010" is ambiguous (inet_aton reads it as octal), so only canonical decimal is accepted.
            guard octet.count == 1 || octet.first != "0" else { return false }
            return Int(octet)! <= 255
        }
    }

    /// RFC 4291 §2.2 text forms: eight hex groups, one `::` for a run of zeros, an optional dotted
    /// IPv4 tail; plus an RFC 4007 §11 zone (`%eth0`) for link-local addresses.
    static func isIPv6Literal(_ host: Substring) -> Bool {
        var address = host
        if let percent = host.firstIndex(of: "%") {
            let zone = host[host.index(after: percent)...]
            guard !zone.isEmpty, zone.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_.-".contains($0)) }) else {
                return false
            }
            address = host[..<percent]
        }
        let halves = address.split(separator: "::", maxSplits: 2, omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return false }
        var groupCount = 0
        for (halfIndex, half) in halves.enumerated() where !half.isEmpty {
            let groups = half.split(separator: ":", omittingEmptySubsequences: false)
            for (index, group) in groups.enumerated() {
                let isLastOfAddress = halfIndex == halves.count - 1 && index == groups.count - 1
                if isLastOfAddress && group.contains(".") {
                    guard isIPv4Literal(group) else { return false }
                    groupCount += 2
                } else {
                    guard (1...4).contains(group.count), group.allSatisfy(\.isHexDigit) else { return false }
                    groupCount += 1
                }
            }
        }
        return halves.count == 2 ? groupCount <= 7 : groupCount == 8
    }

    /// RFC 1123 §2.1 hostname: dot-separated labels of letters, digits and inner hyphens,
    /// each 1...63 characters, 253 characters in all.
    static func isHostname(_ host: Substring) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        return host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            guard (1...63).contains(label.count), label.first != "-", label.last != "-" else { return false }
            return label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}
