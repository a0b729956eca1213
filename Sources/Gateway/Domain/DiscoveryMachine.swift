import GatewayProtocol

/// Phone discovery as two pure state machines. No threads, clock or store: the hub reads the owners of numbers and
/// hashes, counts entries through `limitAttempt` (this node's `AttemptLimiter`, and the shared limiter behind its
/// port when the nodes share their limits), commits and replies.
///
/// - Attaching a phone (`PhoneState`): `attach` normalises the number and asks for its current owner; with the owner
///   known, the number moves to the user (the backend verified it; numbers get recycled). `detach` drops it.
/// - A discovery (`State`): `new --discover--> counting` (at most `discoveryMaxEntriesPerRequest` entries, every one
///   counted against the sliding windows of the user, the source address and the node) `--counted--> lookingUp --ownersLooked--> answered`.
struct DiscoveryMachine {
    // MARK: Attaching a phone

    /// One user's verified phone.
    struct PhoneState: Equatable {
        var userId: String
        var userExists: Bool
        /// E.164.
        var phone: String?
        /// The number being attached while its owner is read.
        var attaching: String?
    }

    enum PhoneInput: Equatable {
        /// In any format `PhoneNumber.normalise` accepts.
        case attach(String)
        case detach
        /// The current owner of the number being attached (nil: none).
        case ownerLooked(String?)
    }

    /// A phone row to change, memory and store alike.
    enum PhoneWrite: Equatable {
        case attach(UserPhoneRecord)
        case detach(userId: String)
    }

    enum PhoneAction: Equatable {
        case lookUpOwner(String)
        case commit([PhoneWrite])
        /// After the commit (if any): the E.164 number now attached, nil after detaching.
        case reply(String?)
        case refuse(Refusal)
    }

    static func transition(_ state: PhoneState, _ input: PhoneInput, now: Int64) -> (PhoneState, [PhoneAction]) {
        guard state.userExists else { return (state, [.refuse(.userNotFound(state.userId))]) }
        var next = state
        switch input {
        case .detach:
            guard state.phone != nil else { return (state, [.reply(nil)]) }
            next.phone = nil
            return (next, [.commit([.detach(userId: state.userId)]), .reply(nil)])
        case .attach(let raw):
            guard let e164 = PhoneNumber.normalise(raw) else { return (state, [.refuse(.phoneInvalid(raw))]) }
            next.attaching = e164
            return (next, [.lookUpOwner(e164)])
        case .ownerLooked(let owner):
            guard let e164 = state.attaching else { return (state, []) }
            var writes: [PhoneWrite] = []
            if let owner, owner != state.userId { writes.append(.detach(userId: owner)) }
            writes.append(.attach(UserPhoneRecord(userId: state.userId, phone: e164, verifiedAt: now)))
            next.phone = e164
            next.attaching = nil
            return (next, [.commit(writes), .reply(e164)])
        }
    }

    // MARK: Discovering

    /// An entry's answer (the `status` wire string).
    enum Status: String, Equatable {
        case contact
        /// A user who is not a contact (add them).
        case user
        /// Nobody has the number (invite them).
        case invite
        case `self`
        case invalid
    }

    /// One entry's answer; the hub shows `owner` as a user ref.
    struct Answer: Equatable {
        var input: String
        var status: Status
        var e164: String?
        var owner: String?
    }

    /// The entries of one discovery, as asked and as looked up: E.164 numbers and lower-case SHA-256 hex (nil: invalid).
    struct Query: Equatable {
        var userId: String
        var numbers: [String]
        var hashes: [String]
        var e164s: [String?]
        var lowered: [String?]
    }

    enum State: Equatable {
        case new
        case counting(Query)
        case lookingUp(Query)
        case answered
        case refused(Refusal)
    }

    enum Input: Equatable {
        /// `source`: the caller's address group (nil for the server API), counted besides the user and the node.
        case discover(userId: String, numbers: [String], hashes: [String], source: String?)
        /// The window counted the entries (a window that refused them answers `rate_limited` itself).
        case counted
        /// The owners of the valid numbers and hashes, and which of those owners are the user's contacts.
        case ownersLooked(byPhone: [String: String], byHash: [String: String], contacts: Set<String>)
    }

    enum Action: Equatable {
        /// Count `weight` entries under every counter in a sliding window of `windowMs`; `what` names the limits when
        /// one refuses.
        case count([AttemptLimiter.Counter], weight: Int, windowMs: Int64, what: String)
        /// Read the owners of the numbers and hashes, and which of them are contacts of `for`.
        case lookUp(phones: [String], hashes: [String], for: String)
        /// Each entry in the order asked: the numbers, then the hashes.
        case reply([Answer])
        case refuse(Refusal)
    }

    enum Refusal: Error, Equatable {
        case userNotFound(String)
        case phoneInvalid(String)
        case tooManyEntries(limit: Int, got: Int)
    }

    static func transition(_ state: State, _ input: Input, limits: RelationshipSettings) -> (State, [Action]) {
        switch (state, input) {
        case (.new, .discover(let userId, let numbers, let hashes, let source)):
            let total = numbers.count + hashes.count
            guard total <= limits.discoveryMaxEntriesPerRequest else {
                let refusal = Refusal.tooManyEntries(limit: limits.discoveryMaxEntriesPerRequest, got: total)
                return (.refused(refusal), [.refuse(refusal)])
            }
            let query = Query(userId: userId, numbers: numbers, hashes: hashes, e164s: numbers.map(PhoneNumber.normalise),
                              lowered: hashes.map(loweredHash))
            // Counted with every node's entries when the nodes share their limits (docs/CLUSTER.md): else a user
            // could look up as many numbers per window as there are nodes. Per user, per address and per node: new
            // identities from one address, or new addresses, do not bring new allowances beyond the node's.
            var counters = [AttemptLimiter.Counter(key: "discover:" + userId, limit: limits.discoveryMaxEntriesPerWindow),
                            AttemptLimiter.Counter(key: "discover-node", limit: limits.discoveryMaxEntriesPerNodePerWindow)]
            if let source {
                counters.append(AttemptLimiter.Counter(key: "discover-address:" + source, limit: limits.discoveryMaxEntriesPerAddressPerWindow))
            }
            let what = "discovery is limited to \(limits.discoveryMaxEntriesPerWindow) entries per user, "
                + "\(limits.discoveryMaxEntriesPerAddressPerWindow) per address and \(limits.discoveryMaxEntriesPerNodePerWindow) per node "
                + "per \(limits.discoveryWindowMs / 3_600_000) hours"
            return (.counting(query), [.count(counters, weight: total, windowMs: limits.discoveryWindowMs, what: what)])
        case (.counting(let query), .counted):
            return (.lookingUp(query), [.lookUp(phones: query.e164s.compactMap { $0 }, hashes: query.lowered.compactMap { $0 }, for: query.userId)])
        case (.lookingUp(let query), .ownersLooked(let byPhone, let byHash, let contacts)):
            func entry(_ input: String, _ key: String?, e164: String?, owners: [String: String]) -> Answer {
                guard let key else { return Answer(input: input, status: .invalid) }
                guard let owner = owners[key] else { return Answer(input: input, status: .invite, e164: e164) }
                let status: Status = owner == query.userId ? .self : contacts.contains(owner) ? .contact : .user
                return Answer(input: input, status: status, e164: e164, owner: owner)
            }
            let entries = zip(query.numbers, query.e164s).map { entry($0, $1, e164: $1, owners: byPhone) }
                + zip(query.hashes, query.lowered).map { entry($0, $1, e164: nil, owners: byHash) }
            return (.answered, [.reply(entries)])
        default:
            return (state, [])
        }
    }

    /// A SHA-256 hex digest in lower case; nil unless 64 hex digits.
    private static func loweredHash(_ hash: String) -> String? {
        let lowered = hash.lowercased()
        return lowered.utf8.count == 64 && lowered.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) ? lowered : nil
    }
}

extension GatewayError {
    /// The wire error for a refused phone change or discovery.
    init(_ refusal: DiscoveryMachine.Refusal) {
        switch refusal {
        case .userNotFound(let id): self.init(.userNotFound, "no user \"\(id)\"")
        case .phoneInvalid(let phone): self.init(phoneInvalid: phone)
        case .tooManyEntries(let limit, let got): self.init(.invalidField, "at most \(limit) entries per request (got \(got))")
        }
    }

    /// `phone_invalid` for a number `PhoneNumber.normalise` does not accept.
    init(phoneInvalid phone: String) {
        self.init(.phoneInvalid, "\"\(phone)\" is not an international number (+ and 8 to 15 digits)")
    }
}
