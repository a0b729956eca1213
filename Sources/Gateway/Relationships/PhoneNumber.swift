import Auth

/// Phone numbers as discovery and invites compare them: E.164 (ITU-T E.164 §6: at most 15 digits including the
/// country code), written `+` and digits.
///
/// The normaliser is deliberately small and predictable: it strips spaces, dashes, dots, slashes and parentheses,
/// turns a leading international prefix `00` into `+`, and then requires `+` followed by 8–15 digits (the first
/// not 0). It never guesses a country: a national number such as `030 1234567` is invalid, because inferring
/// the region needs a default-region setting the gateway does not have — the app should send E.164.
public enum PhoneNumber {
    /// The E.164 form of `input`, or nil when it is not a valid international number by the rules above.
    public static func normalise(_ input: String) -> String? {
        var digits = ""
        var sawPlus = false
        for (index, scalar) in input.unicodeScalars.enumerated() {
            switch scalar {
            case " ", "-", ".", "/", "(", ")", "\u{00A0}":
                continue
            case "+":
                // Only as the very first significant character.
                guard !sawPlus, digits.isEmpty, index == leadingSignificantIndex(input) else { return nil }
                sawPlus = true
            case "0"..."9":
                digits.unicodeScalars.append(scalar)
            default:
                return nil
            }
        }
        if !sawPlus {
            guard digits.hasPrefix("00") else { return nil }
            digits.removeFirst(2)
        }
        guard (8...15).contains(digits.count), digits.first != "0" else { return nil }
        return "+" + digits
    }

    /// SHA-256 hex of the E.164 string: the form `discover` accepts as `hashes`.
    public static func hash(e164: String) -> String { SecretDigest.sha256Hex(e164) }

    private static func leadingSignificantIndex(_ input: String) -> Int {
        for (index, scalar) in input.unicodeScalars.enumerated() where !" ()\u{00A0}".unicodeScalars.contains(scalar) {
            return index
        }
        return 0
    }
}
