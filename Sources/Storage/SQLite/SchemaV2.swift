/// Relationships: friend requests, contact pauses, connect codes, groups and members, invites, verified phones.
///
/// The uniqueness rules of the domain are constraints here, so they hold even if two hubs (or a bug) race:
/// one pending request per direction (partial UNIQUE index), one current connect code per user and codes unique
/// across users, one phone per user and one user per phone. Tables keep rowids so snapshots list rows in
/// first-insert order, like the in-memory reference store. `groups` is an SQL keyword (window frames), hence
/// `user_groups`.
enum SchemaV2 {
    static let sql = """
    CREATE TABLE friend_requests (
        id TEXT PRIMARY KEY NOT NULL,
        from_user TEXT NOT NULL,
        to_user TEXT NOT NULL,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        resolved_at INTEGER
    );
    CREATE UNIQUE INDEX friend_requests_one_pending ON friend_requests (from_user, to_user) WHERE state = 'pending';
    CREATE TABLE contact_pauses (
        user_id TEXT NOT NULL,
        contact_id TEXT NOT NULL,
        paused_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, contact_id)
    );
    CREATE TABLE connect_codes (
        code TEXT PRIMARY KEY NOT NULL,
        user_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
    );
    CREATE UNIQUE INDEX connect_codes_one_current ON connect_codes (user_id) WHERE revoked_at IS NULL;
    CREATE TABLE user_groups (
        id TEXT PRIMARY KEY NOT NULL,
        owner_id TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        max_members INTEGER NOT NULL,
        invite_policy TEXT NOT NULL,
        role_limits TEXT NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE group_members (
        group_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        role TEXT NOT NULL,
        active INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (group_id, user_id)
    );
    CREATE INDEX group_members_by_user ON group_members (user_id);
    CREATE TABLE invites (
        code TEXT PRIMARY KEY NOT NULL,
        group_id TEXT NOT NULL,
        inviter_id TEXT NOT NULL,
        recipient TEXT,
        role TEXT NOT NULL,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_by TEXT,
        used_at INTEGER
    );
    CREATE INDEX invites_by_recipient ON invites (group_id, recipient, created_at);
    CREATE TABLE user_phones (
        user_id TEXT PRIMARY KEY NOT NULL,
        phone TEXT NOT NULL UNIQUE,
        verified_at INTEGER NOT NULL
    );
    """
}
