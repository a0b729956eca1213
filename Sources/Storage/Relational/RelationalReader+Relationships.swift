import Gateway

/// Relationship reads for loading users on demand (`UserEntry.relationships`) and the look-ups not keyed by user,
/// each by an index: friend requests by sender and by recipient, pauses and blocks by either side, the current connect code by
/// user (`connect_codes_one_current`), memberships by user (`group_members_by_user`) and by group (primary key),
/// invites by code and by (group, recipient), phones by user, number and hash (SchemaV2, SchemaV10).
extension RelationalReader {
    /// The relationship part of the whole snapshot (called inside `loadSnapshot`'s transaction).
    func loadRelationships(into s: inout GatewaySnapshot) throws(StorageError) {
        s.friendRequests = try db.query("SELECT \(StoreRows.friendRequestColumns) FROM friend_requests ORDER BY {rowOrder}") {
            row throws(StorageError) in try StoreRows.friendRequest(row, in: db.name)
        }
        s.contactPauses = try db.query("SELECT \(StoreRows.pauseColumns) FROM contact_pauses ORDER BY {rowOrder}") { StoreRows.pause($0) }
        s.blocks = try db.query("SELECT \(StoreRows.blockColumns) FROM user_blocks ORDER BY {rowOrder}") { StoreRows.block($0) }
        s.connectCodes = try db.query("SELECT \(StoreRows.connectCodeColumns) FROM connect_codes ORDER BY {rowOrder}") {
            StoreRows.connectCode($0)
        }
        s.groups = try db.query("SELECT \(StoreRows.groupColumns) FROM user_groups ORDER BY {rowOrder}") { StoreRows.group($0) }
        s.groupMembers = try db.query("SELECT \(StoreRows.memberColumns) FROM group_members ORDER BY {rowOrder}") { StoreRows.member($0) }
        s.invites = try db.query("SELECT \(StoreRows.inviteColumns) FROM invites ORDER BY {rowOrder}") {
            row throws(StorageError) in try StoreRows.invite(row, in: db.name)
        }
        s.userPhones = try db.query("SELECT \(StoreRows.phoneColumns) FROM user_phones ORDER BY {rowOrder}") { StoreRows.phone($0) }
    }

    /// `id`'s relationship rows (inside `userEntries`' transaction).
    func relationships(of id: String) throws(StorageError) -> UserRelationships {
        var r = UserRelationships()
        r.friendRequests = try db.query("""
            SELECT \(StoreRows.friendRequestColumns) FROM friend_requests WHERE from_user = ?1 OR to_user = ?1 ORDER BY {rowOrder}
            """) { $0.bind(1, id) } row: { row throws(StorageError) in try StoreRows.friendRequest(row, in: db.name) }
        r.contactPauses = try db.query("""
            SELECT \(StoreRows.pauseColumns) FROM contact_pauses WHERE user_id = ?1 OR contact_id = ?1 ORDER BY {rowOrder}
            """) { $0.bind(1, id) } row: { StoreRows.pause($0) }
        r.blocks = try db.query("""
            SELECT \(StoreRows.blockColumns) FROM user_blocks WHERE user_id = ?1 OR blocked_id = ?1 ORDER BY {rowOrder}
            """) { $0.bind(1, id) } row: { StoreRows.block($0) }
        r.connectCode = try db.queryFirst("""
            SELECT \(StoreRows.connectCodeColumns) FROM connect_codes WHERE user_id = ?1 AND revoked_at IS NULL
            """) { $0.bind(1, id) } row: { StoreRows.connectCode($0) }
        r.groups = try db.query("""
            SELECT \(StoreRows.groupColumns) FROM user_groups
            WHERE id IN (SELECT group_id FROM group_members WHERE user_id = ?1 AND active = TRUE) ORDER BY {rowOrder}
            """) { $0.bind(1, id) } row: { StoreRows.group($0) }
        r.groupMembers = try db.query("""
            SELECT \(StoreRows.memberColumns) FROM group_members
            WHERE group_id IN (SELECT group_id FROM group_members WHERE user_id = ?1 AND active = TRUE) ORDER BY {rowOrder}
            """) { $0.bind(1, id) } row: { StoreRows.member($0) }
        r.phone = try db.queryFirst("SELECT \(StoreRows.phoneColumns) FROM user_phones WHERE user_id = ?1") {
            $0.bind(1, id)
        } row: { StoreRows.phone($0) }
        return r
    }

    func connectCode(code: String) throws(StorageError) -> ConnectCodeRecord? {
        try db.queryFirst("SELECT \(StoreRows.connectCodeColumns) FROM connect_codes WHERE code = ?1") { $0.bind(1, code) } row: {
            StoreRows.connectCode($0)
        }
    }

    /// One invite by code, in any state.
    func invite(code: String) throws(StorageError) -> InviteRecord? {
        try db.queryFirst("SELECT \(StoreRows.inviteColumns) FROM invites WHERE code = ?1") { $0.bind(1, code) } row: {
            row throws(StorageError) in try StoreRows.invite(row, in: db.name)
        }
    }

    func latestInvite(groupId: String, recipient: String) throws(StorageError) -> InviteRecord? {
        try db.queryFirst("""
            SELECT \(StoreRows.inviteColumns) FROM invites WHERE group_id = ?1 AND recipient = ?2 ORDER BY created_at DESC LIMIT 1
            """) { $0.bind(1, groupId); $0.bind(2, recipient) } row: { row throws(StorageError) in try StoreRows.invite(row, in: db.name) }
    }

    func groupMemberIds(groupId: String) throws(StorageError) -> [String] {
        try db.query("SELECT user_id FROM group_members WHERE group_id = ?1 AND active = TRUE ORDER BY created_at, user_id") {
            $0.bind(1, groupId)
        } row: { $0.string(0) }
    }

    func phoneOwners(phones: [String], hashes: [String]) throws(StorageError) -> PhoneOwners {
        var owners = PhoneOwners()
        for phone in Set(phones) {
            if let owner = try db.queryFirst("SELECT user_id FROM user_phones WHERE phone = ?1", bind: { $0.bind(1, phone) },
                                             row: { $0.string(0) }) {
                owners.byPhone[phone] = owner
            }
        }
        for hash in Set(hashes) {
            if let owner = try db.queryFirst("SELECT user_id FROM user_phones WHERE phone_hash = ?1", bind: { $0.bind(1, hash) },
                                             row: { $0.string(0) }) {
                owners.byHash[hash] = owner
            }
        }
        return owners
    }
}
