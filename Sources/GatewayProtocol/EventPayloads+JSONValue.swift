/// A value as a ``JSONValue`` tree: exactly the tree ``JSONValue/parse(_:)`` gives for the bytes
/// `ServerFrames.encode` writes for it (absent optionals left out). Push policy hands an event's data to a notice this
/// way instead of parsing the JSON just encoded; `EventJSONValueTests` checks each conformance against that parse.
public protocol JSONValueConvertible {
    var jsonValue: JSONValue { get }
}

extension DeviceRef: JSONValueConvertible {
    public var jsonValue: JSONValue { .object(["deviceId": .string(deviceId), "clientType": .string(clientType)]) }
}

extension SessionHandoffData: JSONValueConvertible {
    public var jsonValue: JSONValue {
        .object(["sessionId": .string(sessionId), "handedOffTo": handedOffTo.jsonValue, "previous": previous.jsonValue])
    }
}

extension ApprovalData: JSONValueConvertible {
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "requestId": .string(requestId), "sessionId": .string(sessionId), "toolName": .string(toolName),
            "summary": .string(summary), "state": .string(state), "createdAt": .int(createdAt), "expiresAt": .int(expiresAt),
        ]
        if let details { members["details"] = details }
        if let decidedBy { members["decidedBy"] = decidedBy.jsonValue }
        if let resolvedAt { members["resolvedAt"] = .int(resolvedAt) }
        return .object(members)
    }
}

extension UserRef: JSONValueConvertible {
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["userId": .string(userId), "hexCode": .string(hexCode), "name": .string(name)]
        if let displayName { members["displayName"] = .string(displayName) }
        return .object(members)
    }
}

extension FriendRequestData: JSONValueConvertible {
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "requestId": .string(requestId), "from": from.jsonValue, "to": to.jsonValue, "state": .string(state),
            "createdAt": .int(createdAt),
        ]
        if let resolvedAt { members["resolvedAt"] = .int(resolvedAt) }
        return .object(members)
    }
}
