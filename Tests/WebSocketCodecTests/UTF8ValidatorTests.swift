import Testing
import WebSocketCodec

/// UTF-8 cases after the Autobahn TestSuite 6.x set (Markus Kuhn's stress test).
@Suite struct UTF8ValidatorTests {
    /// Index of the first byte at which byte-by-byte validation fails, or nil if every byte was accepted.
    static func failurePosition(_ bytes: [UInt8]) -> Int? {
        var validator = UTF8Validator()
        for (index, byte) in bytes.enumerated() {
            let ok = withUnsafeBytes(of: byte) { validator.validate($0) }
            if !ok { return index }
        }
        return nil
    }

    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { UTF8Validator.isValid($0) }
    }

    static let validTexts: [[UInt8]] = [
        [],
        Array("Hello-µ@ßöäüàá-UTF-8!!".utf8),
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5],  // κόσμε (Autobahn 6.2)
        [0x00], [0xC2, 0x80], [0xE0, 0xA0, 0x80], [0xF0, 0x90, 0x80, 0x80],  // first of each length (6.6)
        [0x7F], [0xDF, 0xBF], [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF],  // last of each length (6.7)
        [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBD],          // other boundaries (6.8)
        [0xEF, 0xBF, 0xBE], [0xF0, 0x9F, 0xBF, 0xBF], [0xF3, 0xBF, 0xBF, 0xBF],  // noncharacters are valid (6.23)
        Array("𝄞 emoji 😀 mixed with ASCII text long enough for the 8-byte path".utf8),
    ]

    @Test(arguments: validTexts)
    func acceptsValidText(_ bytes: [UInt8]) {
        #expect(Self.isValid(bytes))
        #expect(Self.failurePosition(bytes) == nil)
    }

    /// (bytes, index of the first byte that must be rejected)
    static let invalidTexts: [([UInt8], Int)] = [
        ([0x80], 0), ([0xBF], 0), ([0x41, 0x80, 0xBF], 1),                  // lone continuations (6.9–6.11)
        ([0xC0, 0xAF], 0), ([0xC1, 0xBF], 0),                               // 2-byte overlongs (6.17, 6.19)
        ([0xE0, 0x80, 0xAF], 1), ([0xE0, 0x9F, 0xBF], 1),                   // 3-byte overlongs
        ([0xF0, 0x80, 0x80, 0xAF], 1), ([0xF0, 0x8F, 0xBF, 0xBF], 1),       // 4-byte overlongs
        ([0xF8, 0x88, 0x80, 0x80, 0x80], 0), ([0xFC, 0x84, 0x80, 0x80, 0x80, 0x80], 0),  // 5/6-byte forms
        ([0xF4, 0x90, 0x80, 0x80], 1), ([0xF7, 0xBF, 0xBF, 0xBF], 0),       // above U+10FFFF (6.3, 6.8)
        ([0xED, 0xA0, 0x80], 1), ([0xED, 0xAD, 0xBF], 1), ([0xED, 0xAE, 0x80], 1), ([0xED, 0xAF, 0xBF], 1),
        ([0xED, 0xB0, 0x80], 1), ([0xED, 0xBE, 0x80], 1), ([0xED, 0xBF, 0xBF], 1),  // lone surrogates (6.20)
        ([0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80], 1),                          // paired surrogates (6.21)
        ([0xFE], 0), ([0xFF], 0), ([0xFE, 0xFE, 0xFF, 0xFF], 0),             // impossible bytes (6.16)
        ([0xC2, 0x41], 1), ([0xE1, 0x80, 0x41], 2), ([0xF1, 0x80, 0x80, 0x41], 3),  // truncated then ASCII (6.14)
        ([0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64], 12),
        (Array("0123456789abcdef0123".utf8) + [0xC0, 0x80], 20),             // fails fast after the ASCII path
    ]

    @Test(arguments: invalidTexts)
    func rejectsInvalidTextAtTheFirstImpossibleByte(_ bytes: [UInt8], _ position: Int) {
        #expect(!Self.isValid(bytes))
        #expect(Self.failurePosition(bytes) == position)
    }

    @Test func truncatedSequencesAreNotAtABoundary() {
        for bytes: [UInt8] in [[0xC2], [0xE0, 0xA0], [0xF0, 0x90, 0x80], [0x41, 0xF4, 0x8F, 0xBF]] {
            var validator = UTF8Validator()
            let ok = bytes.withUnsafeBytes { validator.validate($0) }
            #expect(ok, "a prefix of a valid sequence is valid so far")
            #expect(!validator.isAtCharacterBoundary)
            #expect(!Self.isValid(bytes))
        }
    }

    @Test func failureIsStickyUntilReset() {
        var validator = UTF8Validator()
        #expect(![UInt8]([0xFF]).withUnsafeBytes { validator.validate($0) })
        #expect(![UInt8]([0x41]).withUnsafeBytes { validator.validate($0) })
        #expect(!validator.isAtCharacterBoundary)
        validator.reset()
        #expect([UInt8]([0x41]).withUnsafeBytes { validator.validate($0) })
        #expect(validator.isAtCharacterBoundary)
    }

    @Test func agreesWithTheStandardLibraryOnRandomInputInRandomSplits() {
        var rng = SplitMix64(seed: 6)
        let alphabet: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        var invalidCount = 0
        for _ in 0..<3000 {
            let length = Int.random(in: 0...12, using: &rng)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &rng)! }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            var validator = UTF8Validator()
            var ok = true
            for chunk in randomSplit(bytes, maxChunk: 3, using: &rng) where ok {
                ok = chunk.withUnsafeBytes { validator.validate($0) }
            }
            #expect((ok && validator.isAtCharacterBoundary) == expected, "\(bytes)")
            if !expected { invalidCount += 1 }
        }
        #expect(invalidCount > 100, "the generator must produce invalid inputs too")
    }
}
