import Gateway

/// Approvals and agent sessions: the decisions (an approval decided once, a session's active client moved only from
/// the one the caller saw, a session ended once) and the replacing writes. Insertion order (`seq`) comes from the
/// dialect (`{seq:table}`).
struct SessionWriteApplier<DB: SQLExecutor> {
    let db: DB

    func run(_ write: StoreWrite) throws(StorageError) {
        switch write {
        case .decideApproval(let a):
            try db.run("""
                UPDATE approvals SET state = ?2, decided_by_device_id = ?3, decided_by_client_type = ?4, resolved_at = ?5
                WHERE id = ?1 AND state = 'pending'
                """) {
                $0.bind(1, a.id); $0.bind(2, a.state.rawValue); $0.bind(3, a.decidedByDeviceId)
                $0.bind(4, a.decidedByClientType); $0.bind(5, a.resolvedAt)
            }
            if db.changes == 0 { throw StorageError(conflict: .approvalDecided(current: try reader.approval(id: a.id))) }
        case .upsertApproval(let a):
            try db.run(ApprovalSQL.upsert) { Self.bind(a, &$0) }
        case .createApproval(let a):
            if !(try db.insertUnlessTaken(ApprovalSQL.create) { Self.bind(a, &$0) }) {
                throw StorageError(conflict: .idTaken(.approval, latest: try reader.latestApprovalSequence()))
            }
        case .setSessionActiveClient(let sessionId, let expected, let new):
            try db.run("""
                UPDATE sessions SET active_client_type = ?2, active_device_id = ?3, active_last_activity_at = ?4
                WHERE id = ?1 AND state = 'active' AND active_client_type IS NOT DISTINCT FROM CAST(?5 AS TEXT)
                    AND active_device_id IS NOT DISTINCT FROM CAST(?6 AS TEXT)
                    AND active_last_activity_at IS NOT DISTINCT FROM CAST(?7 AS BIGINT)
                """) {
                $0.bind(1, sessionId); $0.bind(2, new.clientType); $0.bind(3, new.deviceId); $0.bind(4, new.lastActivityAt)
                $0.bind(5, expected?.clientType); $0.bind(6, expected?.deviceId); $0.bind(7, expected?.lastActivityAt)
            }
            if db.changes == 0 { throw StorageError(conflict: .sessionChanged(current: try reader.session(id: sessionId))) }
        case .endSession(let sessionId, let endedAt):
            try db.run("UPDATE sessions SET state = 'ended', ended_at = ?2 WHERE id = ?1 AND state = 'active'") {
                $0.bind(1, sessionId); $0.bind(2, endedAt)
            }
            if db.changes == 0 { throw StorageError(conflict: .sessionChanged(current: try reader.session(id: sessionId))) }
        case .upsertSession(let s):
            try db.run("""
                INSERT INTO sessions (id, user_id, title, state, active_client_type, active_device_id,
                    active_last_activity_at, created_at, ended_at, seq)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, {seq:sessions})
                ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, title = excluded.title,
                    state = excluded.state, active_client_type = excluded.active_client_type,
                    active_device_id = excluded.active_device_id,
                    active_last_activity_at = excluded.active_last_activity_at, created_at = excluded.created_at,
                    ended_at = excluded.ended_at, seq = excluded.seq
                """) {
                $0.bind(1, s.id); $0.bind(2, s.userId); $0.bind(3, s.title); $0.bind(4, s.state.rawValue)
                $0.bind(5, s.activeClient?.clientType); $0.bind(6, s.activeClient?.deviceId)
                $0.bind(7, s.activeClient?.lastActivityAt); $0.bind(8, s.createdAt); $0.bind(9, s.endedAt)
            }
        default:
            preconditionFailure("not an approval or session write")
        }
    }

    private var reader: RelationalReader<DB> { RelationalReader(db: db) }

    private static func bind(_ a: ApprovalRecord, _ s: inout DB.Statement) {
        s.bind(1, a.id); s.bind(2, a.userId); s.bind(3, a.sessionId); s.bind(4, a.toolName)
        s.bind(5, a.summary); s.bind(6, a.details); s.bind(7, a.state.rawValue); s.bind(8, a.decidedByDeviceId)
        s.bind(9, a.decidedByClientType); s.bind(10, a.createdAt); s.bind(11, a.expiresAt); s.bind(12, a.resolvedAt)
    }
}

/// The approval inserts (generic types cannot hold static stored properties).
private enum ApprovalSQL {
    static let insert = """
        INSERT INTO approvals (id, user_id, session_id, tool_name, summary, details, state,
            decided_by_device_id, decided_by_client_type, created_at, expires_at, resolved_at, seq)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, {seq:approvals})
        """

    /// `createApproval`: a plain insert whose taken id is the caller's to report.
    static let create = insert + " {ifAbsent:id}"

    static let upsert = insert + """

        ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, session_id = excluded.session_id,
            tool_name = excluded.tool_name, summary = excluded.summary, details = excluded.details,
            state = excluded.state, decided_by_device_id = excluded.decided_by_device_id,
            decided_by_client_type = excluded.decided_by_client_type, created_at = excluded.created_at,
            expires_at = excluded.expires_at, resolved_at = excluded.resolved_at, seq = excluded.seq
        """
}
