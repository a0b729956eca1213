/// An ECDSA-Sig-Value (SEC 1 §C.5: SEQUENCE { r INTEGER, s INTEGER }) codec written
/// independently of the library, so the openssl cross-checks do not reuse the code under test.
enum DERSignature {
    /// DER → 64-byte R‖S, or nil if `der` is not a P-256 signature.
    static func toRaw(_ der: [UInt8]) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var index = 2
        var raw: [UInt8] = []
        for _ in 0..<2 {
            guard index + 2 <= der.count, der[index] == 0x02 else { return nil }
            let length = Int(der[index + 1])
            index += 2
            guard length > 0, index + length <= der.count else { return nil }
            var integer = Array(der[index..<index + length])
            index += length
            while integer.count > 32, integer.first == 0 { integer.removeFirst() }
            guard integer.count <= 32 else { return nil }
            raw += [UInt8](repeating: 0, count: 32 - integer.count) + integer
        }
        return index == der.count ? raw : nil
    }

    /// 64-byte R‖S → minimal DER.
    static func fromRaw(_ raw: [UInt8]) -> [UInt8] {
        precondition(raw.count == 64)
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30, UInt8(body.count)] + body
    }
}
