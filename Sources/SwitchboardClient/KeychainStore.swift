#if canImport(Security)
import Foundation
import Security

/// The identity and the event offset in the Keychain (generic passwords of `service`, accounts `identity` and
/// `offset`), readable after the first unlock so a push that wakes the app in the background can still connect, and
/// never migrated to another phone (`…ThisDeviceOnly`: a device's identity belongs to that device). With
/// `accessGroup` (a Keychain access group from the entitlements) the app's extensions share it.
///
/// The identity is what matters here: the Keychain keeps it across reinstalls of the app, so a standalone device
/// stays the same user. The offset is written on every acknowledgement; an app that handles many events may prefer
/// ``AppGroupFileStore`` or ``FileOffsetStore`` for it.
/// `@unchecked Sendable`: the cached offset is guarded by `lock`; the Keychain calls are thread-safe.
public final class KeychainStore: OffsetStore, IdentityStore, @unchecked Sendable {
    /// A Keychain call failed with this `OSStatus`.
    public struct KeychainError: Error, Sendable, Equatable {
        public var status: Int32
    }

    public let service: String
    public let accessGroup: String?
    private let lock = NSLock()
    private var offset: Int64?

    public init(service: String = "switchboard", accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
        offset = Self.read(service, accessGroup, account: "offset").flatMap { Int64(String(decoding: $0, as: UTF8.self)) }
    }

    public func load() -> Int64? { lock.withLock { offset } }

    public func save(_ offset: Int64) {
        lock.withLock {
            self.offset = offset
            // A failed write loses only progress: the events are replayed after a restart.
            try? Self.write(service, accessGroup, account: "offset", Data("\(offset)".utf8))
        }
    }

    public func loadIdentity() -> DeviceIdentity? {
        Self.read(service, accessGroup, account: "identity").flatMap { try? JSONDecoder().decode(DeviceIdentity.self, from: $0) }
    }

    public func saveIdentity(_ identity: DeviceIdentity) throws {
        try Self.write(service, accessGroup, account: "identity", try JSONEncoder().encode(identity))
    }

    public func removeIdentity() throws {
        let status = SecItemDelete(Self.query(service, accessGroup, account: "identity") as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }

    private static func query(_ service: String, _ accessGroup: String?, account: String) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                    kSecAttrAccount as String: account]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    private static func read(_ service: String, _ accessGroup: String?, account: String) -> Data? {
        var query = query(service, accessGroup, account: account)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess else { return nil }
        return item as? Data
    }

    private static func write(_ service: String, _ accessGroup: String?, account: String, _ data: Data) throws {
        let query = query(service, accessGroup, account: account)
        let updated = SecItemUpdate(query as CFDictionary, [kSecValueData as String: data] as CFDictionary)
        if updated == errSecSuccess { return }
        guard updated == errSecItemNotFound else { throw KeychainError(status: updated) }
        var item = query
        item[kSecValueData as String] = data
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let added = SecItemAdd(item as CFDictionary, nil)
        guard added == errSecSuccess else { throw KeychainError(status: added) }
    }
}
#endif
