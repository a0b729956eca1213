/// A revocation of a user's device tokens: one device (`deviceId`) revoked, or every device of a deleted user
/// (`deviceId` nil). Kept after the device or user is gone, because the tokens live on in the apps until they
/// expire; a token is refused while it was issued before `revokedAt` (`refuses(issuedAt:)`).
public struct RevocationRecord: Sendable, Equatable {
    public var userId: String
    /// nil: the whole user (deleted).
    public var deviceId: String?
    /// Unix milliseconds.
    public var revokedAt: Int64

    public init(userId: String, deviceId: String?, revokedAt: Int64) {
        self.userId = userId; self.deviceId = deviceId; self.revokedAt = revokedAt
    }

    /// How the store spells the whole user in `device_revocations.device_id` (not a valid device id, so no device can
    /// be mistaken for it).
    public static let wholeUser = "*"

    /// Whether a token issued at `issuedAt` (its `iat`, Unix seconds; nil when it has none) is refused by this
    /// revocation. `iat` has whole seconds only, so a token from the second of the revocation is refused too: a
    /// token is accepted only when its second began at or after the revocation.
    public func refuses(issuedAt: Int64?) -> Bool {
        guard let issuedAt, issuedAt < Int64.max / 1000 else { return true }
        return issuedAt * 1000 < revokedAt
    }
}

extension [RevocationRecord] {
    /// The revocation that refuses a token of `deviceId` issued at `issuedAt`, if any (the user's deletion first).
    public func refusing(deviceId: String, issuedAt: Int64?) -> RevocationRecord? {
        first { $0.deviceId == nil && $0.refuses(issuedAt: issuedAt) }
            ?? first { $0.deviceId == deviceId && $0.refuses(issuedAt: issuedAt) }
    }
}
