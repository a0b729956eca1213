import Push
import Testing

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy()

    @Test func ceilingDoublesFromOneSecondUpToTenMinutes() {
        let ceilings = (1...12).map { policy.ceiling(attempt: $0) }
        #expect(ceilings == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000, 600_000, 600_000])
        #expect(policy.ceiling(attempt: 10_000) == 600_000)
    }

    @Test func fullJitterDrawsBetweenZeroAndTheCeiling() {
        var ranges: [ClosedRange<Int64>] = []
        let top = policy.delay(attempt: 3, retryAfter: nil) { range in ranges.append(range); return range.upperBound }
        let bottom = policy.delay(attempt: 3, retryAfter: nil) { range in range.lowerBound }
        #expect(ranges == [0...4_000])
        #expect(top == 4_000)
        #expect(bottom == 0)
        let middle = policy.delay(attempt: 5, retryAfter: nil) { range in (range.lowerBound + range.upperBound) / 2 }
        #expect(middle == 8_000)
    }

    @Test func retryAfterIsAFloor() {
        #expect(policy.delay(attempt: 1, retryAfter: 30_000) { $0.upperBound } == 30_000)
        #expect(policy.delay(attempt: 4, retryAfter: 500) { $0.upperBound } == 8_000)
        // Honoured as sent, even beyond the 10-minute cap.
        #expect(policy.delay(attempt: 1, retryAfter: 3_600_000) { $0.lowerBound } == 3_600_000)
    }

    @Test func givesUpAfterMaxAttempts() {
        #expect(policy.delay(attempt: 11, retryAfter: nil) { $0.upperBound } == 600_000)
        #expect(policy.delay(attempt: 12, retryAfter: nil) { $0.upperBound } == nil)
        #expect(policy.delay(attempt: 0, retryAfter: nil) { $0.upperBound } == nil)
        let short = RetryPolicy(baseMilliseconds: 100, factor: 3, maxDelayMilliseconds: 1_000, maxAttempts: 3)
        #expect(short.delay(attempt: 2, retryAfter: nil) { $0.upperBound } == 300)
        #expect(short.delay(attempt: 3, retryAfter: nil) { $0.upperBound } == nil)
    }

    @Test func onlyRetryOutcomesGetADelay() {
        #expect(policy.delay(after: .retry(after: 2_000, reason: "x"), attempt: 1) { $0.lowerBound } == 2_000)
        #expect(policy.delay(after: .delivered(id: nil), attempt: 1) { $0.upperBound } == nil)
        #expect(policy.delay(after: .invalidToken(reason: "Unregistered"), attempt: 1) { $0.upperBound } == nil)
        #expect(policy.delay(after: .rejected(status: 400, reason: "x"), attempt: 1) { $0.upperBound } == nil)
    }

    @Test func defaultRandomStaysInRange() {
        for attempt in 1...11 {
            let delay = try! #require(policy.delay(attempt: attempt, retryAfter: nil))
            #expect((0...policy.ceiling(attempt: attempt)).contains(delay))
        }
    }
}

@Suite struct RetryAfterTests {
    @Test func secondsAndDates() {
        #expect(RetryAfter.milliseconds("120", nowSeconds: 0) == 120_000)
        #expect(RetryAfter.milliseconds(" 7 ", nowSeconds: 0) == 7_000)
        #expect(RetryAfter.milliseconds(nil, nowSeconds: 0) == nil)
        #expect(RetryAfter.milliseconds("soon", nowSeconds: 0) == nil)
        #expect(RetryAfter.milliseconds("-5", nowSeconds: 0) == nil)
        // RFC 9110 §5.6.7 example date, all three forms: 784111777.
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(RetryAfter.httpDate("Sun Nov  6 08:49:37 1994") == 784_111_777)
        #expect(RetryAfter.httpDate("Sun, 06 Foo 1994 08:49:37 GMT") == nil)
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 25:49:37 GMT") == nil)
        #expect(RetryAfter.milliseconds("Sun, 06 Nov 1994 08:50:07 GMT", nowSeconds: 784_111_777) == 30_000)
        #expect(RetryAfter.milliseconds("Sun, 06 Nov 1994 08:49:37 GMT", nowSeconds: 784_111_800) == 0)
        #expect(RetryAfter.httpDate("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(RetryAfter.httpDate("Tue, 29 Feb 2028 12:00:00 GMT") == 1_835_438_400)
    }

    /// A provider's header is a number from outside: years no day count holds are no date, and a far-off date waits a
    /// day, as a huge number of seconds does.
    @Test func yearsBeyondFourDigitsAreNoDateAndFarDatesWaitADay() {
        for year in ["9223372036854775807", "-9223372036854775808", "10000", "-1", "99999999999"] {
            #expect(RetryAfter.httpDate("Sun, 06 Nov \(year) 08:49:37 GMT") == nil, "\(year)")
            #expect(RetryAfter.httpDate("Sun Nov  6 08:49:37 \(year)") == nil, "\(year)")
            #expect(RetryAfter.milliseconds("Sun, 06 Nov \(year) 08:49:37 GMT", nowSeconds: 0) == nil, "\(year)")
        }
        #expect(RetryAfter.httpDate("Fri, 31 Dec 9999 23:59:59 GMT") == 253_402_300_799)
        #expect(RetryAfter.milliseconds("Fri, 31 Dec 9999 23:59:59 GMT", nowSeconds: 0) == 86_400_000)
        #expect(RetryAfter.milliseconds("99999999999999999999999", nowSeconds: 0) == 86_400_000)
    }
}
