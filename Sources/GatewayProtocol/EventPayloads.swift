/// The `data` objects of server → client events. Field names are the wire names.

public struct DeviceRef: Codable, Sendable, Equatable {
    public var deviceId: String
    public var clientType: String
    public init(deviceId: String, clientType: String) { self.deviceId = deviceId; self.clientType = clientType }
}

public struct WelcomeData: Codable, Sendable {
    public var userId: String
    public var deviceId: String
    public var clientType: String
    /// The newest offset in the user's log at connect time.
    public var latestOffset: Int64
    public var serverTime: Int64
    public init(userId: String, deviceId: String, clientType: String, latestOffset: Int64, serverTime: Int64) {
        self.userId = userId; self.deviceId = deviceId; self.clientType = clientType; self.latestOffset = latestOffset; self.serverTime = serverTime
    }
}

public struct ResumeData: Codable, Sendable {
    /// false when events after the requested offset were already pruned: the client must resync its state.
    public var recovered: Bool
    public var requestedOffset: Int64
    /// The offsets replayed (first...last); nil when nothing was missed.
    public var firstReplayed: Int64?
    public var lastReplayed: Int64?
    public init(recovered: Bool, requestedOffset: Int64, firstReplayed: Int64?, lastReplayed: Int64?) {
        self.recovered = recovered; self.requestedOffset = requestedOffset; self.firstReplayed = firstReplayed; self.lastReplayed = lastReplayed
    }
}

public struct MessageData: Codable, Sendable, Equatable {
    public var messageId: Int64
    public var from: String
    public var to: String
    public var text: String
    public var sentAt: Int64
    public var fromDisplayName: String?
    public init(messageId: Int64, from: String, to: String, text: String, sentAt: Int64, fromDisplayName: String?) {
        self.messageId = messageId; self.from = from; self.to = to; self.text = text; self.sentAt = sentAt; self.fromDisplayName = fromDisplayName
    }
}

public struct PresenceData: Codable, Sendable, Equatable {
    public var userId: String
    /// `online`, `away` or `offline`.
    public var status: String
    public var lastSeenAt: Int64?
    public init(userId: String, status: String, lastSeenAt: Int64?) { self.userId = userId; self.status = status; self.lastSeenAt = lastSeenAt }
}

public struct ActiveClientData: Codable, Sendable, Equatable {
    public var clientType: String
    public var deviceId: String
    public var lastActivityAt: Int64
    public init(clientType: String, deviceId: String, lastActivityAt: Int64) {
        self.clientType = clientType; self.deviceId = deviceId; self.lastActivityAt = lastActivityAt
    }
}

public struct SessionData: Codable, Sendable, Equatable {
    public var sessionId: String
    public var title: String?
    public var state: String
    public var activeClient: ActiveClientData?
    public var createdAt: Int64
    public init(sessionId: String, title: String?, state: String, activeClient: ActiveClientData?, createdAt: Int64) {
        self.sessionId = sessionId; self.title = title; self.state = state; self.activeClient = activeClient; self.createdAt = createdAt
    }
}

public struct SessionHandoffData: Codable, Sendable, Equatable {
    public var sessionId: String
    public var handedOffTo: DeviceRef
    public var previous: DeviceRef
    public init(sessionId: String, handedOffTo: DeviceRef, previous: DeviceRef) {
        self.sessionId = sessionId; self.handedOffTo = handedOffTo; self.previous = previous
    }
}

public struct ApprovalData: Codable, Sendable, Equatable {
    public var requestId: String
    public var sessionId: String
    public var toolName: String
    public var summary: String
    public var details: JSONValue?
    /// `pending`, `approved`, `denied` or `timed_out`.
    public var state: String
    public var createdAt: Int64
    public var expiresAt: Int64
    public var decidedBy: DeviceRef?
    public var resolvedAt: Int64?
    public init(requestId: String, sessionId: String, toolName: String, summary: String, details: JSONValue?, state: String,
                createdAt: Int64, expiresAt: Int64, decidedBy: DeviceRef?, resolvedAt: Int64?) {
        self.requestId = requestId; self.sessionId = sessionId; self.toolName = toolName; self.summary = summary; self.details = details
        self.state = state; self.createdAt = createdAt; self.expiresAt = expiresAt; self.decidedBy = decidedBy; self.resolvedAt = resolvedAt
    }
}
