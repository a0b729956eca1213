/// Finds the known name closest to a misspelt one, for "did you mean" in unknown-key errors.
enum KeySuggester {
    /// The candidate nearest to `name`, or `nil` when none is close enough to be a plausible typo.
    ///
    /// Distance is the smaller of the edit distance of the full dotted names and that of the last
    /// components plus one when the sections differ, so `max_message_bytes` put under `[server]`
    /// still finds `websocket.max_message_bytes`.
    static func suggestion(for name: String, among candidates: [String]) -> String? {
        let (section, leaf) = split(name)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let (candidateSection, candidateLeaf) = split(candidate)
            let distance = min(
                editDistance(name, candidate),
                editDistance(leaf, candidateLeaf) + (section == candidateSection ? 0 : 1))
            if distance < best?.distance ?? Int.max { best = (candidate, distance) }
        }
        // A third of the word, at least one and at most three edits: closer than that is a typo,
        // further is a different word.
        guard let best, best.distance <= max(1, min(3, leaf.count / 3)) else { return nil }
        return best.name
    }

    private static func split(_ name: String) -> (section: Substring, leaf: Substring) {
        guard let dot = name.lastIndex(of: ".") else { return ("", name[...]) }
        return (name[..<dot], name[name.index(after: dot)...])
    }

    /// Levenshtein distance over UTF-8 bytes (keys are ASCII).
    static func editDistance<S: StringProtocol>(_ a: S, _ b: S) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
