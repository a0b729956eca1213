import Foundation
import Gateway
import Testing
@testable import Storage

/// A database file migrated only up to `version`, holding `rows`: what an older build left behind.
func databaseAt(version: Int, in directory: TemporaryDirectory, rows: String) throws -> String {
    let path = directory.path()
    let db = try SQLiteConnection(path: path, readOnly: false, busyTimeoutMs: 1000)
    defer { db.close() }
    try SchemaMigrations.migrate(db, migrations: SchemaMigrations.all.filter { $0.version <= version })
    try db.execute(rows)
    return path
}

/// Migration 5 re-keys devices and push tokens by (user, device) and keeps every existing row.
@Suite struct DeviceScopeMigrationTests {
    @Test func devicesAndTokensOfAVersion4FileKeepTheirRowsAndGainTheirUser() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(try databaseAt(version: 4, in: directory, rows: """
            INSERT INTO devices (id, user_id, client_type, device_token, created_at, acked_offset) VALUES
                ('d1', 'u1', 'ios', NULL, 10, 3), ('d2', 'u2', 'web', 'secret', 11, 0);
            INSERT INTO push_tokens (device_id, kind, session_id, token, environment, updated_at) VALUES
                ('d1', 'apns', '', 'aa', 'sandbox', 20), ('d2', 'webhook', '', 'hook', NULL, 21), ('gone', 'fcm', '', 'x', NULL, 22);
            """))
        defer { store.close() }
        let snapshot = try store.loadSnapshot()
        #expect(snapshot.devices == [DeviceRecord(id: "d1", userId: "u1", clientType: "ios", createdAt: 10, ackedOffset: 3),
                                     DeviceRecord(id: "d2", userId: "u2", clientType: "web",
                                                  deviceToken: "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b", createdAt: 11)])
        #expect(snapshot.pushTokens == [PushTokenRecord(userId: "u1", deviceId: "d1", kind: "apns", token: "aa", environment: "sandbox", updatedAt: 20),
                                        PushTokenRecord(userId: "u2", deviceId: "d2", kind: "webhook", token: "hook", updatedAt: 21)])
        // The same device id for another user is now a second device, not a takeover of the first.
        #expect(commit(store, [[.upsertDevice(DeviceRecord(id: "d1", userId: "u3", clientType: "android", createdAt: 30)),
                                .upsertPushToken(PushTokenRecord(userId: "u3", deviceId: "d1", kind: "apns", token: "bb", updatedAt: 31))]]) == [nil])
        let after = try store.loadSnapshot()
        #expect(after.devices.filter { $0.id == "d1" }.map(\.userId) == ["u1", "u3"])
        #expect(after.pushTokens.filter { $0.deviceId == "d1" }.map(\.token) == ["aa", "bb"])
    }
}

/// Migration 6 replaces clear standalone device secrets by their SHA-256.
@Suite struct DeviceSecretMigrationTests {
    @Test func clearSecretsOfAVersion5FileAreHashed() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(try databaseAt(version: 5, in: directory, rows: """
            INSERT INTO devices (id, user_id, client_type, device_token, created_at, acked_offset) VALUES
                ('d1', 'u1', 'ios', 'secret', 10, 0), ('d2', 'u2', 'web', NULL, 11, 0);
            """))
        defer { store.close() }
        // `echo -n secret | sha256sum`
        #expect(try store.loadSnapshot().devices.map(\.deviceToken)
                == ["2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b", nil])
    }
}
