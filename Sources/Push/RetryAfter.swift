import Glibc

/// Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Pure; `now` passed in.
public enum RetryAfter {
    /// The wait in milliseconds the header asks for, never negative and at most a day; nil when absent or unparsable.
    /// - Parameters:
    ///   - value: the header value, e.g. `"120"` or `"Sun, 06 Nov 1994 08:49:37 GMT"`.
    ///   - nowSeconds: the current Unix time, used for HTTP-dates.
    public static func milliseconds(_ value: String?, nowSeconds: Int64) -> Int64? {
        guard let text = value?.trimmingWhitespace(), !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Saturate absurd values instead of overflowing: a day is plenty of "later".
            guard let seconds = Int64(text) else { return 86_400_000 }
            return min(seconds, 86_400) * 1000
        }
        guard let date = httpDate(text) else { return nil }
        return min(max(0, date - nowSeconds), 86_400) * 1000
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Unix seconds of an IMF-fixdate (RFC 9110 §5.6.7: `Sun, 06 Nov 1994 08:49:37 GMT`), the only
    /// form senders may generate; the obsolete RFC 850 and asctime forms are also accepted.
    public static func httpDate(_ text: String) -> Int64? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        var day: Int64?, month: Int?, year: Int64?, clock: String?
        switch parts.count {
        case 6 where parts[5] == "GMT":
            day = Int64(parts[1]); month = months.firstIndex(of: parts[2]); year = Int64(parts[3]); clock = parts[4]
        case 4 where parts[3] == "GMT":
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            let dmy = parts[1].split(separator: "-").map(String.init)
            guard dmy.count == 3, let twoDigit = Int64(dmy[2]) else { return nil }
            day = Int64(dmy[0]); month = months.firstIndex(of: dmy[1]); clock = parts[2]
            // RFC 9110 §5.6.7: a two-digit year more than 50 years ahead is in the past century.
            year = twoDigit < 70 ? 2000 + twoDigit : 1900 + twoDigit
        case 5:
            // asctime: Sun Nov  6 08:49:37 1994
            month = months.firstIndex(of: parts[1]); day = Int64(parts[2]); clock = parts[3]; year = Int64(parts[4])
        default:
            return nil
        }
        // Four-digit years only (the grammar's): a year such as 9223372036854775807 from a provider would overflow
        // the day arithmetic below, and a trap there would end the process.
        guard let day, let month, let year, let clock, (1...31).contains(day), (0...9999).contains(year) else { return nil }
        let hms = clock.split(separator: ":").compactMap { Int64($0) }
        guard hms.count == 3, (0..<24).contains(hms[0]), (0..<60).contains(hms[1]), (0...60).contains(hms[2]) else {
            return nil
        }
        let days = daysFromCivil(year: year, month: Int64(month + 1), day: day)
        return days * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2]
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// The wall clock the clients use unless a test injects one.
public enum PushClock {
    /// Current Unix time in seconds (CLOCK_REALTIME).
    @Sendable public static func unixSeconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
