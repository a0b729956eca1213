import Foundation

/// What a device keeps between launches to be the same device: the standalone `deviceToken` secret (its identity,
/// docs/PROTOCOL.md "Standalone devices") and what the last registration returned. With an app backend only
/// `userId`/`deviceId` matter and `deviceToken` is whatever the backend's login keeps.
public struct DeviceIdentity: Sendable, Equatable, Codable {
    /// The device's secret for `POST /v1/devices/register`: about 128 random bits (``generateDeviceToken()``).
    public var deviceToken: String
    public var userId: String?
    public var deviceId: String?
    public var hexCode: String?

    public init(deviceToken: String, userId: String? = nil, deviceId: String? = nil, hexCode: String? = nil) {
        self.deviceToken = deviceToken; self.userId = userId; self.deviceId = deviceId; self.hexCode = hexCode
    }

    /// A new secret: two random UUIDs' hex digits (244 random bits), well above the server's strength rule.
    public static func generateDeviceToken() -> String {
        (UUID().uuidString + UUID().uuidString).replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// This identity with the user and device of a registration.
    public func registered(_ registration: StandaloneDevice.Registration) -> DeviceIdentity {
        DeviceIdentity(deviceToken: deviceToken, userId: registration.userId, deviceId: registration.deviceId, hexCode: registration.hexCode)
    }
}

/// Where the ``DeviceIdentity`` lives: ``KeychainStore`` (Apple platforms, survives reinstalls of the same app
/// group's apps), ``AppGroupFileStore`` (a directory shared with extensions, e.g. a notification service extension).
/// Implementations must be thread-safe.
public protocol IdentityStore: Sendable {
    /// The stored identity; nil on first launch (or when it could not be read).
    func loadIdentity() -> DeviceIdentity?
    /// Replaces the stored identity. Throws when it could not be written (the app should not register without it:
    /// a lost `deviceToken` is a lost user).
    func saveIdentity(_ identity: DeviceIdentity) throws
    /// Forgets the identity (sign-out).
    func removeIdentity() throws
}

/// The identity and the event offset as two files in one directory: an App Group container
/// (``AppGroupFileStore/init(appGroup:)``) so the app and its extensions (a notification service extension
/// registering, say) share the identity, or any directory (tests, Linux). Files are written atomically (a crash
/// leaves the old or the new content). The identity, `switchboard.identity.json`, is read from the file on every
/// ``loadIdentity()``; the offset, `switchboard.offset`, is kept like ``FileOffsetStore`` does: read once when the
/// store is made, so only one process (the one running the client) should write it.
/// `@unchecked Sendable`: the offset store is itself thread-safe and the identity file is read and written under `lock`.
public final class AppGroupFileStore: OffsetStore, IdentityStore, @unchecked Sendable {
    /// The directory holding both files.
    public let directory: String
    private let offsets: FileOffsetStore
    private let lock = NSLock()

    /// Uses `directory` (created when missing).
    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        offsets = FileOffsetStore(path: directory + "/switchboard.offset")
    }

    #if canImport(Darwin)
    /// Uses the container of the App Group `appGroup` (`group.com.example.app`, from the app's entitlements); nil
    /// when the app does not have that group.
    public convenience init?(appGroup: String) {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup) else { return nil }
        try? self.init(directory: container.appendingPathComponent("Switchboard", isDirectory: true).path)
    }
    #endif

    private var identityPath: String { directory + "/switchboard.identity.json" }

    public func load() -> Int64? { offsets.load() }
    public func save(_ offset: Int64) { offsets.save(offset) }

    public func loadIdentity() -> DeviceIdentity? {
        lock.withLock {
            guard let data = FileManager.default.contents(atPath: identityPath) else { return nil }
            return try? JSONDecoder().decode(DeviceIdentity.self, from: data)
        }
    }

    public func saveIdentity(_ identity: DeviceIdentity) throws {
        let data = try JSONEncoder().encode(identity)
        try lock.withLock { try data.write(to: URL(fileURLWithPath: identityPath), options: .atomic) }
    }

    public func removeIdentity() throws {
        try lock.withLock {
            guard FileManager.default.fileExists(atPath: identityPath) else { return }
            try FileManager.default.removeItem(atPath: identityPath)
        }
    }
}
