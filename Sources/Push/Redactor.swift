/// Removes secrets from text shown on a lock screen, then cuts it to a readable length.
///
/// Replaced by `[redacted]` (keeping a label where there is one):
/// - provider API keys: `sk-…` (OpenAI/Anthropic style), `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_`/`github_pat_`,
///   Slack `xox[abposr]-…`, AWS access key IDs `AKIA…`/`ASIA…`;
/// - JWTs (`eyJ….….…`);
/// - `Bearer <value>` → `Bearer [redacted]`;
/// - `password=…`, `secret: …`, `token=…`, `api_key=…` and similar pairs → the name stays;
/// - hex runs of 32+ characters containing a digit, and base64/base64url runs of 32+ characters that mix digits with
///   upper- and lower-case letters (so long words and paths stay readable).
///
/// Pure and thread-safe. Heuristic by nature: it lowers the chance that a secret pasted into a chat
/// ends up on a lock screen; it is not a guarantee.
public enum Redactor {
    /// The replacement for each secret.
    public static let marker = "[redacted]"
    /// The most Characters (grapheme clusters) ``redact(_:)`` returns, the ellipsis included.
    public static let maximumLength = 200

    // Patterns are compiled once; Regex is immutable and safe to share.
    nonisolated(unsafe) private static let jwt = try! Regex(#"eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*"#)
    nonisolated(unsafe) private static let bearer = try! Regex(#"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]+"#)
    nonisolated(unsafe) private static let labelled = try! Regex(
        #"(?i)\b(password|passwd|pwd|secret|client_secret|token|access_token|refresh_token|api[_-]?key|apikey|access[_-]?key|private[_-]?key)(["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;]+)"#)
    nonisolated(unsafe) private static let apiKey = try! Regex(
        #"\b(sk-[A-Za-z0-9_-]{16,}|(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|(AKIA|ASIA)[0-9A-Z]{16})\b"#)
    nonisolated(unsafe) private static let hexRun = try! Regex(#"\b[0-9A-Fa-f]{32,}\b"#)
    nonisolated(unsafe) private static let base64Run = try! Regex(#"[A-Za-z0-9+/_-]{32,}={0,2}"#)

    /// `text` with secrets replaced by ``marker``, then cut to ``maximumLength`` Characters on a
    /// grapheme boundary, ending in "…" when cut.
    public static func redact(_ text: String) -> String {
        var result = text
        result.replace(jwt) { _ in marker }
        result.replace(bearer) { match in "\(match.output[1].substring ?? "Bearer") \(marker)" }
        result.replace(labelled) { match in
            "\(match.output[1].substring ?? "")\(match.output[2].substring ?? "")\(marker)"
        }
        result.replace(apiKey) { _ in marker }
        result.replace(hexRun) { match in
            let run = match.output[0].substring ?? ""
            // A hash always has digits; a run of only a–f letters is a (silly) word.
            return run.utf8.contains { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ? Substring(marker) : run
        }
        result.replace(base64Run) { match in
            looksRandom(match.output[0].substring ?? "") ? Substring(marker) : match.output[0].substring ?? ""
        }
        return truncate(result)
    }

    /// `text` cut to ``maximumLength`` Characters, the last being "…", when longer.
    public static func truncate(_ text: String, to limit: Int = maximumLength) -> String {
        guard limit > 0, text.count > limit else { return limit > 0 ? text : "" }
        return String(text.prefix(limit - 1)) + "…"
    }

    /// Mixed digits, upper- and lower-case: what keys and tokens look like and prose does not.
    private static func looksRandom(_ run: Substring) -> Bool {
        var digit = false, upper = false, lower = false
        for byte in run.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = true
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): upper = true
            case UInt8(ascii: "a")...UInt8(ascii: "z"): lower = true
            default: break
            }
        }
        return digit && upper && lower
    }
}
