import Auth
import Testing

@Suite struct ConstantTimeTests {
    /// Counts how many elements were read, to prove the comparison does not stop early.
    final class CountingBytes: Collection {
        let storage: [UInt8]
        var reads = 0
        init(_ storage: [UInt8]) { self.storage = storage }
        var startIndex: Int { storage.startIndex }
        var endIndex: Int { storage.endIndex }
        func index(after i: Int) -> Int { i + 1 }
        subscript(position: Int) -> UInt8 {
            reads += 1
            return storage[position]
        }
    }

    @Test func equalAndUnequalValues() {
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([0, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([UInt8](), [0]))
    }

    @Test func readsEveryByteEvenWhenTheFirstDiffers() {
        let expected = [UInt8](repeating: 0xAA, count: 32)
        for position in [0, 1, 16, 31] {
            var guess = expected
            guess[position] ^= 0xFF
            let counted = CountingBytes(guess)
            #expect(!ConstantTime.equals(expected, counted))
            #expect(counted.reads == 32, "stopped after \(counted.reads) bytes for a difference at \(position)")
        }
    }

    @Test func everySingleBitFlipIsDetected() {
        let value: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        for byte in 0..<32 {
            for bit in 0..<8 {
                var flipped = value
                flipped[byte] ^= 1 << bit
                #expect(!ConstantTime.equals(value, flipped))
            }
        }
    }
}
