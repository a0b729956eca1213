import JSON
import Testing

/// `WholeNumber`: every number from outside becomes an integer or nil, never a trap.
@Suite struct WholeNumberTests {
    @Test func numbersNoIntegerHoldsAreNil() {
        let range: ClosedRange<Int64> = .min ... .max
        for value in [
            Double.nan, -.nan, .infinity, -.infinity, 1e300, -1e300, .greatestFiniteMagnitude, 9_223_372_036_854_775_808
        ] {
            #expect(WholeNumber.rounded(value, in: range) == nil, "\(value)")
        }
        // Scaling happens before the check: 1e16 s is beyond Int64 in milliseconds.
        #expect(WholeNumber.rounded(1e16, scale: 1000, in: range) == nil)
        #expect(WholeNumber.rounded(-9_223_372_036_854_775_808, in: range) == .min)
        // The largest Double below 2^63.
        #expect(WholeNumber.rounded(9_223_372_036_854_774_784, in: range) == 9_223_372_036_854_774_784)
    }

    @Test func valuesRoundToTheNearestAndMustLieInTheRange() {
        #expect(WholeNumber.rounded(1.5, scale: 1000, in: 0...10_000) == 1_500)
        #expect(WholeNumber.rounded(0.0015, scale: 1000, in: 0...10_000) == 2)
        #expect(WholeNumber.rounded(-0.0, in: 0...1) == 0)
        #expect(WholeNumber.rounded(Double.leastNonzeroMagnitude, scale: 1000, in: 0...1) == 0)
        #expect(WholeNumber.rounded(-0.4, in: 0...1) == 0)
        #expect(WholeNumber.rounded(-0.5, in: 0...1) == nil)
        #expect(WholeNumber.rounded(10.0004, scale: 1000, in: 0...10_000) == 10_000)
        #expect(WholeNumber.rounded(10.0005, scale: 1000, in: 0...10_000) == nil)
    }

    @Test func decimalTextFollowsJSONsNumberGrammar() {
        for (text, value) in [
            ("0", 0.0), ("-0", -0.0), ("1.5", 1.5), ("1e3", 1000), ("5e-324", Double.leastNonzeroMagnitude),
            ("1e300", 1e300),
            ("9223372036854775808", 9_223_372_036_854_775_808), ("-9223372036854775809", -9_223_372_036_854_775_808)
        ] {
            #expect(WholeNumber.decimal(text) == value, "\(text)")
        }
        for text in [
            "nan", "NaN", "-nan", "inf", "-inf", "infinity", "Infinity", "0x1p3", "0x10", "+1", " 1", "1 ", "1e400",
            "-1e400", "", "-", "1.", ".5", "01", "1_000", "1,5", "true", "null", "\"1\"", "[1]", "1e", "１"
        ] {
            #expect(WholeNumber.decimal(text) == nil, "\(text)")
        }
    }
}
