/// The one conversion of a number from outside (a JSON body, a query string) to an integer.
///
/// `Int64(_: Double)` traps on NaN, ±∞ and anything beyond the integer's range (1e300, 2^63): one such number in a
/// request would kill the whole process. Every floating-point value read from a request goes through here instead
/// and comes back as nil, which the caller answers with its precise error (`invalid_field`, `timeout_out_of_range`,
/// 400). Pure.
public enum WholeNumber {
    /// `value × scale` rounded to the nearest integer (halves away from zero) when that is finite and lies in
    /// `range`; nil otherwise. `scale` turns a unit into a smaller one before rounding (seconds → milliseconds: 1000),
    /// so 1.5 s is 1 500 ms rather than silently 1 000. `-0` is 0; 5e-324 s is 0 ms.
    public static func rounded(_ value: Double, scale: Double = 1, in range: ClosedRange<Int64>) -> Int64? {
        guard let whole = JSONValue.exactInt64((value * scale).rounded()), range.contains(whole) else { return nil }
        return whole
    }

    /// A number written as text outside JSON (a query parameter), read with JSON's grammar (RFC 8259 §6: `-0`, `1.5`
    /// and `1e3` are numbers; `nan`, `inf`, `infinity`, hexadecimal `0x1p3`, a leading `+` or whitespace are not, and
    /// neither is anything beyond a `Double`, such as `1e400`). nil when `text` is not such a number. `Double(String)`
    /// accepts all of those, and NaN then slips through `min`/`max` clamps.
    public static func decimal(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              let last = bytes.last, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(last),
              let value = try? JSONValue.parse(bytes)
        else { return nil }
        return value.doubleValue
    }
}
