/// Open sessions indexed by their user: the hub reads a user's open sessions with the user (`UserEntry.openSessions`)
/// instead of every open session at start, which was all `sessions_open` served.
enum SchemaV12 {
    static let version = 12
    static let sql = """
    DROP INDEX sessions_open;
    CREATE INDEX sessions_open_by_user ON sessions (user_id) WHERE state <> 'ended';
    """
}
