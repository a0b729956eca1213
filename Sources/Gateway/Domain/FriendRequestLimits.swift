/// Which `AttemptLimiter` counters a friend request feeds, so hex codes cannot be enumerated and a known code cannot
/// be used to flood its owner's log. Pure: the hub feeds the counters to `limitAttempt` (this node's counters, and
/// every node's with shared limits).
///
/// - A **miss** (no user has the code) counts as a guess per user, per source address (when the request came from a
///   device) and for the whole node, like failed connect codes; once any of them is full the request is refused
///   before the code is looked at, so even a right guess is refused.
/// - A request to a user that **exists** counts per sender and per sender → recipient pair; a **cancel** counts per
///   pair too, because a request and its cancel are two durable events in the recipient's log.
struct FriendRequestLimits: Equatable {
    var perUser: Int
    var perAddress: Int
    var perNode: Int
    var sendsPerSender: Int
    var perPair: Int

    init(_ settings: RelationshipSettings) {
        perUser = settings.hexCodeMissesPerUserPerHour
        perAddress = settings.hexCodeMissesPerAddressPerHour
        perNode = settings.hexCodeMissesPerNodePerHour
        sendsPerSender = settings.friendRequestsPerHour
        perPair = settings.friendRequestsPerPairPerHour
    }

    /// What the client is told when a guessing counter is full.
    static let missesRefused = "too many friend requests to unknown hex codes"
    /// What the client is told when a sending counter is full.
    static let sendsRefused = "too many friend requests"

    /// The counters a hex code that nobody has is counted under (`source`: the device's address group, nil for the
    /// server API).
    func misses(by userId: String, source: String?) -> [AttemptLimiter.Counter] {
        var counters = [AttemptLimiter.Counter(key: "hex-user:" + userId, limit: perUser),
                        AttemptLimiter.Counter(key: "hex-node", limit: perNode)]
        if let source { counters.append(AttemptLimiter.Counter(key: "hex-address:" + source, limit: perAddress)) }
        return counters
    }

    /// The counters of a request from `sender` to the existing user `recipient`.
    func send(from sender: String, to recipient: String) -> [AttemptLimiter.Counter] {
        [AttemptLimiter.Counter(key: "friend-sender:" + sender, limit: sendsPerSender), pair(sender, recipient)]
    }

    /// The counter of a cancel of `sender`'s request to `recipient`.
    func cancel(from sender: String, to recipient: String) -> [AttemptLimiter.Counter] { [pair(sender, recipient)] }

    private func pair(_ sender: String, _ recipient: String) -> AttemptLimiter.Counter {
        // User ids never hold a newline (`Identifier`), so the key is unambiguous.
        AttemptLimiter.Counter(key: "friend-pair:" + sender + "\n" + recipient, limit: perPair)
    }
}
