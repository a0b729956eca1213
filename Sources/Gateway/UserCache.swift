import GatewayProtocol

/// Which users' records the hub holds in memory, and the work waiting for users to be read (docs/ARCHITECTURE.md,
/// "Memory and load on demand"). Bookkeeping only: the records themselves stay in the hub's maps (`users`, `devices`,
/// `contacts`, `pushTokens`, `notificationSettings`, `latestOffsets`). Hub thread only.
struct UserCache {
    /// An action waiting for every one of `users` to be loaded; `failed` answers it when a read fails.
    struct Waiting {
        var users: [String]
        var run: () -> Void
        var failed: (GatewayError) -> Void
    }

    /// Loaded users and when each was last used (a tick of `clock`): the least recently used are evicted first.
    private(set) var lastUse: [String: UInt64] = [:]
    private var clock: UInt64 = 0
    /// Reads in flight, by user; true when another read was asked for meanwhile (a change notice arrived).
    var reading: [String: Bool] = [:]
    /// Users to read at the end of this hub round.
    let toRead = RoundBatch<String>()
    /// Actions waiting, oldest first; per user, how many of them name it (a user's actions run in arrival order).
    var waiting: [Waiting] = []
    var waitingCount: [String: Int] = [:]
    /// Batches handed to the store and not yet reported, per user they change (such a user is not evicted, and a
    /// re-read is not applied over them).
    var writesInFlight: [String: Int] = [:]
    /// Writes queued so far per user, ever: a re-read started before one of them is read again.
    var writeCount: [String: Int] = [:]
    /// Loaded users to read again once their writes in flight are done (a change notice came while they had some).
    var rereadWhenIdle: Set<String> = []
    /// Users another node changed, whose records here wait to be replaced by a re-read (not loaded meanwhile).
    var stale: Set<String> = []
    /// An eviction is due (`GatewayHub.scheduleEviction`).
    var evictionScheduled = false
    /// Run once no read is queued or running and no action waits (`GatewayHub.whenUserReadsSettled`).
    private var whenSettled: [() -> Void] = []

    var count: Int { lastUse.count }

    func isLoaded(_ userId: String) -> Bool { lastUse[userId] != nil }

    /// No read is queued or running and no action waits for one.
    var isSettled: Bool { waiting.isEmpty && reading.isEmpty && toRead.isEmpty }

    /// Keeps `body` for the moment the cache is settled (`takeSettled`).
    mutating func whenSettled(_ body: @escaping () -> Void) { whenSettled.append(body) }

    /// When settled: the bodies kept for that moment, handed over once. Otherwise none.
    mutating func takeSettled() -> [() -> Void] {
        guard isSettled, !whenSettled.isEmpty else { return [] }
        defer { whenSettled = [] }
        return whenSettled
    }

    /// Marks the user loaded (if it was not) and most recently used.
    mutating func touch(_ userId: String) {
        clock &+= 1
        lastUse[userId] = clock
    }

    mutating func forget(_ userId: String) { lastUse[userId] = nil }

    /// Whether `users` can run now: all loaded and none named by an action still waiting.
    func ready(_ users: [String]) -> Bool {
        users.allSatisfy { lastUse[$0] != nil && waitingCount[$0] == nil }
    }

    mutating func enqueue(_ action: Waiting) {
        waiting.append(action)
        for user in action.users { waitingCount[user, default: 0] += 1 }
    }

    mutating func dequeued(_ action: Waiting) {
        for user in action.users {
            let left = (waitingCount[user] ?? 1) - 1
            waitingCount[user] = left > 0 ? left : nil
        }
    }

    /// Loaded users that `evictable` allows to forget, least recently used first, so that at most `keep` stay loaded.
    func victims(keep: Int, evictable: (String) -> Bool) -> [String] {
        guard lastUse.count > keep else { return [] }
        var excess = lastUse.count - keep
        var out: [String] = []
        for (user, _) in lastUse.sorted(by: { $0.value < $1.value }) where excess > 0 && evictable(user) {
            out.append(user)
            excess -= 1
        }
        return out
    }
}
