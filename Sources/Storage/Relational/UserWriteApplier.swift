import Gateway

/// Users, their devices (with each device's acknowledged offset) and contacts.
struct UserWriteApplier<Engine: EngineWrites> {
    let engine: Engine
    private var db: Engine.DB { engine.db }

    func run(_ write: StoreWrite, receipt: inout StoreReceipt) throws(StorageError) {
        switch write {
        case .insertUser(let u):
            receipt.users.append(try engine.insertUser(u))
        case .upsertUser(let u):
            try db.run("""
                INSERT INTO users (id, hex_code, display_name, created_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (id) DO UPDATE SET hex_code = excluded.hex_code, display_name = excluded.display_name,
                    created_at = excluded.created_at
                """) { $0.bind(1, u.id); $0.bind(2, u.hexCode); $0.bind(3, u.displayName); $0.bind(4, u.createdAt) }
        case .upsertDevice(let d):
            // The whole record is replaced, ack included (as the reference store does); acks only rise via setDeviceAck.
            try db.run("""
                INSERT INTO devices (id, user_id, client_type, device_token, created_at, acked_offset)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT (user_id, id) DO UPDATE SET client_type = excluded.client_type,
                    device_token = excluded.device_token, created_at = excluded.created_at,
                    acked_offset = excluded.acked_offset
                """) {
                $0.bind(1, d.id); $0.bind(2, d.userId); $0.bind(3, d.clientType); $0.bind(4, d.deviceToken)
                $0.bind(5, d.createdAt); $0.bind(6, d.ackedOffset)
            }
        case .upsertContact(let c):
            // Reactivating a removed contact keeps the relation's original creation time.
            try db.run("""
                INSERT INTO contacts (user_id, contact_id, created_at, active) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (user_id, contact_id) DO UPDATE SET active = excluded.active
                """) { $0.bind(1, c.userId); $0.bind(2, c.contactId); $0.bind(3, c.createdAt); $0.bind(4, c.active) }
        case .setDeviceAck(let userId, let deviceId, let offset):
            // An unknown device is ignored, like the reference store.
            try db.run("UPDATE devices SET acked_offset = {greatest}(acked_offset, ?2) WHERE user_id = ?3 AND id = ?1") {
                $0.bind(1, deviceId); $0.bind(2, offset); $0.bind(3, userId)
            }
        default:
            preconditionFailure("not a user or device write")
        }
    }
}
