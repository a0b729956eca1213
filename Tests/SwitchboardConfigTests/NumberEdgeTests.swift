import Testing
@testable import SwitchboardConfig

/// Numbers at the edges of what a `Double` and an `Int64` hold, in an integer key: each is an error naming the key
/// and the line (never a trap, never a silently rounded value).
@Suite struct NumberEdgeTests {
    @Test(arguments: [
        // (value, part of the message)
        ("nan", "invalid value"), ("+nan", "invalid value"), ("-nan", "invalid value"),
        ("inf", "invalid value"), ("+inf", "invalid value"), ("-inf", "invalid value"),
        ("1e300", "floating-point"), ("-1e300", "floating-point"), ("5e-324", "floating-point"), ("1.7976931348623157e308", "floating-point"),
        ("9223372036854775808", "does not fit in 64 bits"), ("-9223372036854775809", "does not fit in 64 bits"),
        ("9223372036854775807", "expected an integer between 100 and 3600000"), ("-9223372036854775808", "expected an integer between 100 and 3600000"),
        ("-0", "expected an integer between 100 and 3600000"), ("0", "expected an integer between 100 and 3600000"),
    ] as [(String, String)])
    func integerKeyRefusesWhatItsRangeDoesNotHold(value: String, messagePart: String) throws {
        let error = try #require(parseError("[gateway]\n\napproval_min_timeout_ms = \(value)\n", fileName: "n.toml"))
        #expect(error.line == 3, "\(error)")
        #expect(error.key == "gateway.approval_min_timeout_ms", "\(error)")
        #expect(error.message.contains(messagePart), "\(value): \(error)")
    }

    @Test func negativeZeroIsZero() throws {
        let config = try SwitchboardConfiguration.parse("[server]\nevent_loops = -0\n", fileName: "z.toml")
        #expect(config.server.eventLoops == 0)
    }
}
