import Gateway
import Testing
import TestSupport
@testable import Storage

/// `deviceOwners(deviceId:)` (a device named without its user) reads through the `devices_by_id` index (schema 11) on
/// both engines, not through every device row.
@Suite struct DeviceIdIndexTests {
    static let devices: [StoreWrite] = [
        .upsertDevice(DeviceRecord(id: "phone", userId: "ann", clientType: "ios", createdAt: 1)),
        .upsertDevice(DeviceRecord(id: "phone", userId: "ben", clientType: "ios", createdAt: 2)),
        .upsertDevice(DeviceRecord(id: "desk", userId: "ann", clientType: "desktop", createdAt: 3)),
    ]

    @Test func sqliteReadsADevicesOwnersThroughTheIndex() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("gateway.db")
        let store = try openStore(path)
        defer { store.close() }
        #expect(commit(store, [Self.devices]) == [nil])
        #expect(try store.deviceOwners(deviceId: "phone") == ["ann", "ben"])
        let db = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { db.close() }
        let plan = try db.query("EXPLAIN QUERY PLAN " + deviceOwnersSQL) { $0.bind(1, "phone") } row: { $0.string(3) }
        #expect(plan.contains { $0.contains("USING INDEX devices_by_id") }, "\(plan)")
    }

    @Test func postgresReadsADevicesOwnersThroughTheIndex() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let store = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { store.close() }
        #expect(commit(store, [Self.devices]) == [nil])
        #expect(try store.deviceOwners(deviceId: "phone") == ["ann", "ben"])
        let db = try PostgresDatabase(options: PostgresStoreOptions(url: url))
        defer { db.close() }
        // A three-row table is read whole whatever its indexes: the planner is told scans cost too much, so the plan
        // names the index only if there is one on the device id.
        try db.execute("SET enable_seqscan = off")
        let plan = try db.query("EXPLAIN " + db.sql(deviceOwnersSQL).replacingOccurrences(of: "$1", with: "'phone'"))
            .map { $0.string(0) }
        #expect(plan.contains { $0.contains("devices_by_id") }, "\(plan)")
    }
}
