/// Comparisons whose running time does not depend on where two secrets differ.
///
/// Used for HMAC tags and API keys so that an attacker timing rejections cannot learn a correct
/// prefix byte by byte. Stateless and thread-safe.
public enum ConstantTime {
    /// True when `a` and `b` hold the same bytes.
    ///
    /// When the counts are equal, every byte pair is visited and the result is accumulated
    /// without branching on the data: there is no exit at the first difference. When the counts
    /// differ it returns false immediately, so the *length* of a secret is not hidden; callers
    /// compare fixed-length values (MACs, digests) where length is public anyway.
    public static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) {
            difference |= x ^ y
        }
        return isZero(difference)
    }

    // Turn the accumulator into a Bool via arithmetic rather than a data-dependent comparison
    // inside the loop; the optimizer then has no reason to add an early exit.
    @inline(never)
    private static func isZero(_ value: UInt8) -> Bool {
        // 0 - 1 borrows into the top bit; 1...255 minus 1 never does.
        (UInt16(value) &- 1) >> 15 == 1
    }
}
