// Shared by every fuzz target (compiled into each one; see scripts/fuzz).

/// Stops the run when an invariant does not hold; libFuzzer reports it as a crash and keeps the input.
func fuzzRequire(
    _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
) {
    if !condition { fatalError("fuzz invariant: \(message())", file: file, line: line) }
}

/// The fuzzer's input read front to back: a few leading bytes choose options, the rest is the data under test.
struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0

    init(_ start: UnsafeRawPointer?, _ count: Int) {
        bytes = count > 0 && start != nil ? Array(UnsafeRawBufferPointer(start: start, count: count)) : []
    }

    /// The next byte, or 0 once the input is used up (so short inputs still pick options).
    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// Everything not yet read.
    var rest: [UInt8] { Array(bytes[min(index, bytes.count)...]) }
}

/// Cuts `bytes` into consecutive pieces whose sizes cycle through `sizes` (each at least 1), as a socket would
/// deliver them.
func pieces(of bytes: [UInt8], sizes: [Int]) -> [ArraySlice<UInt8>] {
    var result: [ArraySlice<UInt8>] = []
    var start = 0, turn = 0
    while start < bytes.count {
        let end = min(bytes.count, start + max(1, sizes[turn % sizes.count]))
        result.append(bytes[start..<end])
        start = end
        turn += 1
    }
    return result
}
