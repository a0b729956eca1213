/// A message compressed without context takeover, kept so the next connection on the same loop sending the same
/// bytes with the same parameters reuses it instead of running zlib again (fan-out: compress once per publish).
struct SharedCompression {
    let windowBits: Int
    let level: Int
    let memLevel: Int
    let input: [UInt8]
    let output: [UInt8]

    func matches(_ payload: UnsafeRawBufferPointer, windowBits: Int, level: Int, memLevel: Int) -> Bool {
        guard self.windowBits == windowBits, self.level == level, self.memLevel == memLevel, input.count == payload.count else { return false }
        return input.withUnsafeBytes { $0.elementsEqual(payload) }
    }

    /// Messages larger than this are not kept (memory per loop stays small).
    static let maxBytes = 256 * 1024
}
