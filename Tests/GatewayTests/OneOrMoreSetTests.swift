@testable import Gateway
import Testing
import TestSupport

/// The inline-first set against a plain `Set`, through random inserts and removals.
@Suite struct OneOrMoreSetTests {
    @Test func followsAPlainSetThroughRandomChanges() {
        var rng = SplitMix64(seed: 7)
        var index: [String: OneOrMoreSet<Int>] = [:]
        var model: [String: Set<Int>] = [:]
        for _ in 0..<5_000 {
            let key = "k\(Int.random(in: 0..<8, using: &rng))"
            let value = Int.random(in: 0..<4, using: &rng)
            if Bool.random(using: &rng) {
                index.insert(value, at: key)
                model[key, default: []].insert(value)
            } else {
                index.remove(value, at: key)
                model[key]?.remove(value)
                if model[key]?.isEmpty == true { model[key] = nil }
            }
            #expect(Set(index.keys) == Set(model.keys))
            for (key, set) in model {
                #expect(Set(index[key]!) == set && index[key]!.count == set.count)
                for v in 0..<4 { #expect(index[key]!.contains(v) == set.contains(v)) }
            }
        }
    }

    @Test func holdsOneElementInline() {
        var set = OneOrMoreSet("a")
        set.insert("a")
        guard case .one("a") = set else { Issue.record("one element must stay inline: \(set)"); return }
        set.insert("b")
        #expect(set.count == 2)
        let back = set.removing("b")
        guard case .one("a")? = back else { Issue.record("back to one element must go inline: \(String(describing: back))"); return }
        #expect(back?.removing("a") == nil)
    }
}
