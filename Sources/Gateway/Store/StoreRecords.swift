/// Durable records of the gateway domain, as the store keeps them. Times are Unix milliseconds.

/// One entry of a user's event log. Offsets are per user, start at 1 and have no gaps.
public struct StoredEvent: Sendable, Equatable {
    public var userId: String
    public var offset: Int64
    /// The event type as sent to clients (`message`, `approval_request`, ...).
    public var type: String
    /// The event's `data` object, JSON-encoded.
    public var payload: [UInt8]
    public var createdAt: Int64

    public init(userId: String, offset: Int64, type: String, payload: [UInt8], createdAt: Int64) {
        self.userId = userId; self.offset = offset; self.type = type; self.payload = payload; self.createdAt = createdAt
    }
}

public struct UserRecord: Sendable, Equatable {
    public var id: String
    /// 8 lowercase hex characters, unique (standalone mode; also assigned to backend-created users).
    public var hexCode: String
    public var displayName: String?
    public var createdAt: Int64

    public init(id: String, hexCode: String, displayName: String? = nil, createdAt: Int64) {
        self.id = id; self.hexCode = hexCode; self.displayName = displayName; self.createdAt = createdAt
    }
}

/// A device of a user. Device ids are chosen by clients (the token's `device_id`), so they are unique only per user:
/// everything about a device is keyed by `(userId, id)`.
public struct DeviceRecord: Sendable, Equatable {
    public var id: String
    public var userId: String
    /// `ios`, `android`, `desktop` or `web`.
    public var clientType: String
    /// SHA-256 (hex) of the secret a standalone device re-registers with (unique when present; never the secret).
    public var deviceToken: String?
    public var createdAt: Int64
    /// The highest offset this device acknowledged.
    public var ackedOffset: Int64

    public init(id: String, userId: String, clientType: String, deviceToken: String? = nil, createdAt: Int64, ackedOffset: Int64 = 0) {
        self.id = id; self.userId = userId; self.clientType = clientType; self.deviceToken = deviceToken
        self.createdAt = createdAt; self.ackedOffset = ackedOffset
    }
}

/// A contact relation, stored once per direction.
public struct ContactRecord: Sendable, Equatable {
    public var userId: String
    public var contactId: String
    public var createdAt: Int64
    /// false = removed (soft delete); a later add reactivates it and keeps `createdAt`.
    public var active: Bool

    public init(userId: String, contactId: String, createdAt: Int64, active: Bool = true) {
        self.userId = userId; self.contactId = contactId; self.createdAt = createdAt; self.active = active
    }
}

/// The device that last acted in a session.
public struct ActiveClient: Sendable, Equatable, Codable {
    public var clientType: String
    public var deviceId: String
    public var lastActivityAt: Int64

    public init(clientType: String, deviceId: String, lastActivityAt: Int64) {
        self.clientType = clientType; self.deviceId = deviceId; self.lastActivityAt = lastActivityAt
    }
}

/// A session's lifecycle. The raw values are the wire and database strings.
public enum SessionState: String, Sendable, Equatable, CaseIterable {
    case active
    case ended
}

public struct SessionRecord: Sendable, Equatable {
    public var id: String
    public var userId: String
    public var title: String?
    public var state: SessionState
    public var activeClient: ActiveClient?
    public var createdAt: Int64
    public var endedAt: Int64?

    public init(id: String, userId: String, title: String? = nil, state: SessionState = .active, activeClient: ActiveClient? = nil,
                createdAt: Int64, endedAt: Int64? = nil) {
        self.id = id; self.userId = userId; self.title = title; self.state = state; self.activeClient = activeClient
        self.createdAt = createdAt; self.endedAt = endedAt
    }
}

/// An approval request's lifecycle: `pending` until the first answer (`approved`/`denied`) or the deadline
/// (`timedOut`). The raw values are the wire and database strings.
public enum ApprovalState: String, Sendable, Equatable, CaseIterable {
    case pending
    case approved
    case denied
    case timedOut = "timed_out"
}

public struct ApprovalRecord: Sendable, Equatable {
    public var id: String
    public var userId: String
    public var sessionId: String
    public var toolName: String
    public var summary: String
    /// JSON-encoded details object, if any.
    public var details: [UInt8]?
    public var state: ApprovalState
    public var decidedByDeviceId: String?
    public var decidedByClientType: String?
    public var createdAt: Int64
    public var expiresAt: Int64
    public var resolvedAt: Int64?

    public init(id: String, userId: String, sessionId: String, toolName: String, summary: String, details: [UInt8]? = nil,
                state: ApprovalState = .pending, decidedByDeviceId: String? = nil, decidedByClientType: String? = nil,
                createdAt: Int64, expiresAt: Int64, resolvedAt: Int64? = nil) {
        self.id = id; self.userId = userId; self.sessionId = sessionId; self.toolName = toolName; self.summary = summary
        self.details = details; self.state = state; self.decidedByDeviceId = decidedByDeviceId
        self.decidedByClientType = decidedByClientType; self.createdAt = createdAt; self.expiresAt = expiresAt
        self.resolvedAt = resolvedAt
    }
}

public struct MessageRecord: Sendable, Equatable {
    /// Assigned by the domain, increasing across all conversations.
    public var id: Int64
    public var from: String
    public var to: String
    public var text: String
    public var sentAt: Int64

    public init(id: Int64, from: String, to: String, text: String, sentAt: Int64) {
        self.id = id; self.from = from; self.to = to; self.text = text; self.sentAt = sentAt
    }
}

/// A device's identity: its id is only unique within its user.
public struct DeviceKey: Hashable, Sendable {
    public var userId: String
    public var deviceId: String

    public init(userId: String, deviceId: String) { self.userId = userId; self.deviceId = deviceId }
}

extension DeviceRecord {
    public var key: DeviceKey { DeviceKey(userId: userId, deviceId: id) }
}

extension PushTokenRecord {
    public var deviceKey: DeviceKey { DeviceKey(userId: userId, deviceId: deviceId) }
}
