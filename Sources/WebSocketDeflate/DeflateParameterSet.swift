/// The permessage-deflate parameters of one offer or response, syntax-checked (RFC 7692 §7.1).
/// Built from an `ExtensionElement`; nil from `init?` means the element must be declined/rejected.
struct DeflateParameterSet: Equatable {
    /// How `client_max_window_bits` appeared (RFC 7692 §7.1.2.2).
    enum ClientWindow: Equatable {
        case absent
        /// Offered without a value: the client supports the parameter but sets no limit.
        case supported
        case bits(Int)
    }

    var serverNoContextTakeover = false
    var clientNoContextTakeover = false
    var serverMaxWindowBits: Int?
    var clientMaxWindowBits: ClientWindow = .absent

    static let extensionName = "permessage-deflate"
    /// RFC 7692 §7.1.2.1/§7.1.2.2: window sizes are 8...15 bits.
    static let windowBitsRange = 8...15

    /// Validates `element`. `isOffer` allows a bare `client_max_window_bits` (only offers may omit the value,
    /// RFC 7692 §7.1.2.2). Fails on a malformed element, an unknown or duplicate parameter, a value on a
    /// flag parameter, or a window value that is not a plain decimal in 8...15 (no sign, no leading zero).
    init?(_ element: ExtensionElement, isOffer: Bool) {
        guard element.name == Self.extensionName, !element.isMalformed else { return nil }
        var seen: Set<String> = []
        for (name, value) in element.parameters {
            guard seen.insert(name).inserted else { return nil }
            switch name {
            case "server_no_context_takeover":  // RFC 7692 §7.1.1.1
                guard value == nil else { return nil }
                serverNoContextTakeover = true
            case "client_no_context_takeover":  // RFC 7692 §7.1.1.2
                guard value == nil else { return nil }
                clientNoContextTakeover = true
            case "server_max_window_bits":  // RFC 7692 §7.1.2.1: a value is mandatory
                guard let value, let bits = Self.windowBits(value) else { return nil }
                serverMaxWindowBits = bits
            case "client_max_window_bits":  // RFC 7692 §7.1.2.2
                if let value {
                    guard let bits = Self.windowBits(value) else { return nil }
                    clientMaxWindowBits = .bits(bits)
                } else {
                    guard isOffer else { return nil }
                    clientMaxWindowBits = .supported
                }
            default:
                return nil
            }
        }
    }

    init() {}

    /// "8" ... "15" exactly; RFC 7692 §7.1.2 requires 1*DIGIT without leading zeros.
    static func windowBits(_ text: String) -> Int? {
        let digits = Array(text.utf8)
        guard (1...2).contains(digits.count), digits[0] != UInt8(ascii: "0"),
              digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return windowBitsRange.contains(value) ? value : nil
    }

    /// The header text for this set, parameters in a fixed order.
    var headerValue: String {
        var text = Self.extensionName
        if serverNoContextTakeover { text += "; server_no_context_takeover" }
        if clientNoContextTakeover { text += "; client_no_context_takeover" }
        if let serverMaxWindowBits { text += "; server_max_window_bits=\(serverMaxWindowBits)" }
        switch clientMaxWindowBits {
        case .absent: break
        case .supported: text += "; client_max_window_bits"
        case .bits(let bits): text += "; client_max_window_bits=\(bits)"
        }
        return text
    }
}
