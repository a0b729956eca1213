/// The rules that bound what a device may store as Live Activity tokens, as pure functions: a token of bounded length,
/// and at most `limit` update tokens (one per session) per device, the one registered longest ago giving way to a new
/// session's. No threads, clock or store: the hub checks that the session exists and is the caller's before it asks,
/// and commits the deletions with the new token.
///
/// Replacing rather than refusing: a device's activities come and go with its sessions, the activity of an old
/// session has usually ended, and a refused registration would silently leave the newest activity without updates.
enum LiveActivityTokens {
    /// The longest Live Activity token accepted (start and update tokens are ActivityKit's hex push tokens, 80 to 100
    /// bytes today); other kinds keep the general 4 096-byte bound (a webhook token is a URL).
    static let maxTokenBytes = 256

    /// Whether `kind` is a Live Activity token kind.
    static func isLiveActivity(_ kind: String) -> Bool {
        kind == PushPolicy.TokenKind.liveActivityStart.rawValue || kind == PushPolicy.TokenKind.liveActivityUpdate.rawValue
    }

    /// The update tokens among `held` (one device's tokens) to delete so that `new` fits under `limit`: none when
    /// `new` is not an update token or replaces its session's token, else the oldest beyond the limit (by
    /// `updatedAt`, then session id).
    static func evicted(by new: PushTokenRecord, from held: [PushTokenRecord], limit: Int) -> [PushTokenRecord] {
        let kind = PushPolicy.TokenKind.liveActivityUpdate.rawValue
        guard new.kind == kind else { return [] }
        let others = held.filter { $0.kind == kind && $0.sessionId != new.sessionId }
        let excess = others.count + 1 - max(1, limit)
        guard excess > 0 else { return [] }
        return Array(others.sorted { ($0.updatedAt, $0.sessionId) < ($1.updatedAt, $1.sessionId) }.prefix(excess))
    }
}
