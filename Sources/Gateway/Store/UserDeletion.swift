/// What a user's deletion (`StoreWrite.deleteUser`) finds by the user's id beyond the columns that name it: the
/// idempotency keys, whose scopes embed the user (GatewayHub+Messages, +Groups, +Backend, +Approvals).
public enum UserDeletion {
    /// The idempotency scopes that are exactly the user's: direct and group messages it sent, publishes to it.
    public static func idempotencyScopes(of userId: String) -> [String] {
        ["message:" + userId, "group_message:" + userId, "publish:" + userId]
    }

    /// The start of the user's approval scopes (`approval:<user>␟<session>`): the separator cannot occur in an id, so
    /// no other user's scope starts with it.
    public static func approvalScopePrefix(of userId: String) -> String { "approval:" + userId + "\u{1F}" }
}
