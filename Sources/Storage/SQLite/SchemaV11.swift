/// Presence push claims (`StoreWrite.claimPresencePush`): per user, when the latest background presence push was
/// claimed, so that of the nodes holding a watcher exactly one sends each push (docs/CLUSTER.md). And an index on
/// the device id alone: `deviceOwners(deviceId:)` (the server API naming a device without its user) read every
/// device row, as the primary key starts with the user.
enum SchemaV11 {
    static let version = 11
    static let sql = """
    CREATE TABLE presence_push_claims (
        user_id TEXT PRIMARY KEY NOT NULL,
        sent_at INTEGER NOT NULL
    );
    CREATE INDEX devices_by_id ON devices (id);
    """
}
