/// SplitMix64: a tiny, fast pseudo-random generator for masking keys and handshake nonces.
///
/// RFC 6455 §5.3 asks clients for unpredictable masking keys to protect intermediaries from cache poisoning; a
/// load generator talks to a server it controls, and `SystemRandomNumberGenerator` costs a system call per
/// value, so a seeded PRNG per loop is the right trade here. Not thread-safe: one per loop.
struct FastRandom: RandomNumberGenerator {
    private var state: UInt64

    /// Seeds from `seed`; different loops and workers pass different seeds.
    init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A masking key (RFC 6455 §5.3), never zero so the MASK bit always means something visible in captures.
    mutating func maskKey() -> UInt32 {
        let key = UInt32(truncatingIfNeeded: next())
        return key == 0 ? 0x5A5A_5A5A : key
    }
}
