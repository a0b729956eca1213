@testable import Gateway
import GatewayProtocol
import Testing

/// `DiscoveryMachine` alone: attaching, moving and detaching a phone; a discovery's entry limit, the window it counts
/// in (fed to `AttemptLimiter` as the hub does) and each entry's status.
@Suite struct DiscoveryMachineTests {
    typealias M = DiscoveryMachine
    let limits = RelationshipSettings()

    // MARK: Phones

    @Test func attachingNormalisesAsksForTheOwnerAndMovesTheNumber() {
        let bob = M.PhoneState(userId: "bob", userExists: true, phone: nil)
        let (asking, lookUp) = M.transition(bob, .attach("+49 151 1234 5678"), now: 7)
        #expect(asking.attaching == "+4915112345678" && lookUp == [.lookUpOwner("+4915112345678")])
        let record = UserPhoneRecord(userId: "bob", phone: "+4915112345678", verifiedAt: 9)
        // Nobody had it; then: another user had it (the number moves); then: bob had it already.
        #expect(M.transition(asking, .ownerLooked(nil), now: 9)
                == (M.PhoneState(userId: "bob", userExists: true, phone: "+4915112345678"), [.commit([.attach(record)]), .reply("+4915112345678")]))
        #expect(M.transition(asking, .ownerLooked("ann"), now: 9).1 == [.commit([.detach(userId: "ann"), .attach(record)]), .reply("+4915112345678")])
        #expect(M.transition(asking, .ownerLooked("bob"), now: 9).1 == [.commit([.attach(record)]), .reply("+4915112345678")])
        // An owner answer with nothing being attached changes nothing.
        #expect(M.transition(bob, .ownerLooked("ann"), now: 9) == (bob, []))
    }

    @Test func detachingDropsTheNumberOrAnswersNilWhenThereIsNone() {
        let bob = M.PhoneState(userId: "bob", userExists: true, phone: "+4915112345678")
        #expect(M.transition(bob, .detach, now: 1) == (M.PhoneState(userId: "bob", userExists: true, phone: nil), [.commit([.detach(userId: "bob")]), .reply(nil)]))
        let none = M.PhoneState(userId: "bob", userExists: true, phone: nil)
        #expect(M.transition(none, .detach, now: 1) == (none, [.reply(nil)]))
    }

    @Test func refusesAnUnknownUserAndAnInvalidNumber() {
        let ghost = M.PhoneState(userId: "ghost", userExists: false, phone: nil)
        for input: M.PhoneInput in [.attach("+4915112345678"), .detach] {
            #expect(M.transition(ghost, input, now: 1).1 == [.refuse(.userNotFound("ghost"))])
        }
        let bob = M.PhoneState(userId: "bob", userExists: true, phone: nil)
        #expect(M.transition(bob, .attach("0151 1234"), now: 1).1 == [.refuse(.phoneInvalid("0151 1234"))])
        #expect(GatewayError(M.Refusal.phoneInvalid("0151 1234")).code == .phoneInvalid)
    }

    // MARK: Discovering

    let hash = String(repeating: "AB", count: 32)

    static let what = "discovery is limited to 2000 entries per user, 4000 per address and 100000 per node per 24 hours"

    @Test func countsEveryEntryInTheWindowsOfUserAddressAndNodeThenLooksUpTheValidOnes() {
        let (counting, count) = M.transition(.new, .discover(userId: "ann", numbers: ["+4915112345678", "12"], hashes: [hash, "zz"],
                                                             source: "203.0.113.7"), limits: limits)
        #expect(count == [.count([AttemptLimiter.Counter(key: "discover:ann", limit: 2_000),
                                  AttemptLimiter.Counter(key: "discover-node", limit: 100_000),
                                  AttemptLimiter.Counter(key: "discover-address:203.0.113.7", limit: 4_000)],
                                 weight: 4, windowMs: 86_400_000, what: Self.what)])
        // The server API has no source address: the user and the node count.
        let (_, backend) = M.transition(.new, .discover(userId: "ann", numbers: ["+4915112345678"], hashes: [], source: nil), limits: limits)
        #expect(backend == [.count([AttemptLimiter.Counter(key: "discover:ann", limit: 2_000), AttemptLimiter.Counter(key: "discover-node", limit: 100_000)],
                                   weight: 1, windowMs: 86_400_000, what: Self.what)])
        let (lookingUp, lookUp) = M.transition(counting, .counted, limits: limits)
        #expect(lookUp == [.lookUp(phones: ["+4915112345678"], hashes: [hash.lowercased()], for: "ann")])
        guard case .lookingUp = lookingUp else { Issue.record("not looking up"); return }
    }

    @Test func answersEachEntrysStatusInTheOrderAsked() {
        let numbers = ["+49 151 0000 0001", "+4915100000002", "+4915100000003", "+4915100000004", "nope"]
        let (counting, _) = M.transition(.new, .discover(userId: "ann", numbers: numbers, hashes: [hash, "xyz"], source: nil), limits: limits)
        let (lookingUp, _) = M.transition(counting, .counted, limits: limits)
        let byPhone = ["+4915100000001": "bob", "+4915100000002": "cat", "+4915100000004": "ann"]
        let (answered, reply) = M.transition(lookingUp, .ownersLooked(byPhone: byPhone, byHash: [hash.lowercased(): "bob"], contacts: ["bob"]), limits: limits)
        #expect(answered == .answered)
        #expect(reply == [.reply([
            .init(input: "+49 151 0000 0001", status: .contact, e164: "+4915100000001", owner: "bob"),
            .init(input: "+4915100000002", status: .user, e164: "+4915100000002", owner: "cat"),
            .init(input: "+4915100000003", status: .invite, e164: "+4915100000003"),
            .init(input: "+4915100000004", status: .self, e164: "+4915100000004", owner: "ann"),
            .init(input: "nope", status: .invalid),
            .init(input: hash, status: .contact, owner: "bob"),
            .init(input: "xyz", status: .invalid),
        ])])
        #expect([M.Status.contact, .user, .invite, .self, .invalid].map(\.rawValue) == ["contact", "user", "invite", "self", "invalid"])
    }

    @Test func refusesMoreEntriesThanOneRequestMayHave() {
        let numbers = Array(repeating: "+4915112345678", count: 400), hashes = Array(repeating: hash, count: 101)
        let (refused, actions) = M.transition(.new, .discover(userId: "ann", numbers: numbers, hashes: hashes, source: nil), limits: limits)
        #expect(refused == .refused(.tooManyEntries(limit: 500, got: 501)) && actions == [.refuse(.tooManyEntries(limit: 500, got: 501))])
        #expect(GatewayError(M.Refusal.tooManyEntries(limit: 500, got: 501)).message == "at most 500 entries per request (got 501)")
        #expect(M.transition(.new, .discover(userId: "ann", numbers: Array(numbers.prefix(399)), hashes: hashes, source: nil), limits: limits).1.count == 1)
    }

    @Test func theWindowAllowsTheLimitThenRefusesUntilTheOldestEntriesLeaveIt() {
        // The machine's count, decided by the limiter as `limitAttempt` does on one node.
        func count(_ n: Int) -> (AttemptLimiter.Attempt, AttemptLimiter) {
            let (_, actions) = M.transition(.new, .discover(userId: "ann", numbers: Array(repeating: "+4915112345678", count: n), hashes: [], source: nil), limits: limits)
            guard case .count(let counters, let weight, let windowMs, _)? = actions.first else { fatalError("no count") }
            return (.count(counters, weight: weight), AttemptLimiter(windowMs: windowMs))
        }
        var window = AttemptLimiter.State()
        let day: Int64 = 86_400_000
        for hour in 0..<4 {
            let (attempt, limiter) = count(500)
            let decision: AttemptLimiter.Decision
            (window, decision) = limiter.decide(window, attempt, now: Int64(hour) * 3_600_000)
            #expect(decision == .allowed)
        }
        let (one, limiter) = count(1)
        #expect(limiter.decide(window, one, now: day - 1).1 == .refused(key: "discover:ann", retryAfterMs: 1))
        #expect(limiter.decide(window, one, now: day).1 == .allowed)
    }

    @Test func inputsOutOfTurnChangeNothing() {
        #expect(M.transition(.new, .counted, limits: limits) == (.new, []))
        #expect(M.transition(.answered, .ownersLooked(byPhone: [:], byHash: [:], contacts: []), limits: limits) == (.answered, []))
    }
}
