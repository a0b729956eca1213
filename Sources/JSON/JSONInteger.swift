/// Writes integers as JSON numbers straight into a byte buffer: the same digits as `String(value)`, without the
/// intermediate `String` (and its allocation) that interpolating an integer into frame text costs on the hot path.
public enum JSONInteger {
    /// Appends `value` in decimal, with a leading `-` when negative (`Int64.min` included).
    public static func write(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 { digits += 1; rest /= 10 }
        let start = output.count
        output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        output.withUnsafeMutableBufferPointer { buffer in
            var index = start + digits - 1
            repeat {
                buffer[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
                index -= 1
            } while magnitude > 0
        }
    }
}
