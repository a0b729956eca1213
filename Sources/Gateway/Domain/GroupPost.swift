import GatewayProtocol

/// Posting to a group as a pure decision: a text message (the direct-message text rules) or an app-defined event,
/// from an active member or (events only) the backend, as one event in the log of every active member, the sender
/// included. A post changes no state (groups keep no history): the decision is what to commit and answer. No threads,
/// clock or store: the hub loads the group, reads what `State` names and runs a message's `clientMessageId` through
/// its idempotency check (the key is the hub's, as for direct messages), then commits the events.
struct GroupPost {
    enum Input: Equatable {
        case message(from: String, text: String, clientMessageId: String?)
        /// `from`: a member, or nil for the backend.
        case event(from: String?, name: String, payload: JSONValue?)

        /// The sender; nil for the backend.
        var sender: String? {
            switch self {
            case .message(let from, _, _): from
            case .event(let from, _, _): from
            }
        }
    }

    /// What the hub knows of the group and the sender.
    struct State: Equatable {
        var groupId: String
        /// The active members, oldest first (the order the events are appended in); nil when there is no such group.
        var activeMembers: [String]?
        /// The sender as members see it; nil for the backend.
        var sender: UserRef?
    }

    enum Refusal: Error, Equatable {
        case text(MessageText.Refusal)
        /// An event name outside 1…64 characters, or with control characters.
        case invalidName
        case groupNotFound(groupId: String)
        case notAMember
    }

    /// The event a post appends.
    enum Event: String, Equatable {
        case message = "group_message"
        case event = "group_event"
    }

    enum Action: Equatable {
        /// Append `group_message` with this data to `logs`, in order (push policy sees it typed).
        case commitMessage(GroupMessageData, logs: [String])
        /// Append `group_event` with this data to `logs`, in order.
        case commitEvent(GroupEventData, logs: [String])
        /// Answer (after the commit) with when it was sent; a message's `clientMessageId` keeps this answer.
        case reply(SentAt)
        case refuse(Refusal)
    }

    /// The content rules, which come first and need no group (the hub checks them before it loads one): the input
    /// with a message's text trimmed, or the refusal.
    static func checkContent(_ input: Input, maxCharacters: Int) -> Result<Input, Refusal> {
        switch input {
        case .message(let from, let raw, let key):
            return MessageText.check(raw, maxCharacters: maxCharacters).map { .message(from: from, text: $0, clientMessageId: key) }
                .mapError { .text($0) }
        case .event(_, let name, _):
            return GatewayHub.validEventName(name) ? .success(input) : .failure(.invalidName)
        }
    }

    /// The rules in the order clients see them (content, group, membership), then what an accepted post commits.
    static func transition(_ state: State, _ input: Input, maxCharacters: Int, now: Int64) -> [Action] {
        let post: Input
        switch checkContent(input, maxCharacters: maxCharacters) {
        case .success(let checked): post = checked
        case .failure(let refusal): return [.refuse(refusal)]
        }
        guard let members = state.activeMembers else { return [.refuse(.groupNotFound(groupId: state.groupId))] }
        if let sender = post.sender, !members.contains(sender) { return [.refuse(.notAMember)] }
        let reply = Action.reply(SentAt(sentAt: now))
        switch post {
        case .message(let from, let text, let key):
            // A member's reference is always known (loading the group loads its members).
            let ref = state.sender ?? UserRef(userId: from, hexCode: "", displayName: nil)
            return [.commitMessage(GroupMessageData(groupId: state.groupId, from: ref, text: text, sentAt: now, clientMessageId: key),
                                   logs: members), reply]
        case .event(_, let name, let payload):
            return [.commitEvent(GroupEventData(groupId: state.groupId, from: state.sender, name: name, payload: payload, sentAt: now),
                                 logs: members), reply]
        }
    }
}

extension GatewayError {
    /// The wire error for a refused post.
    init(_ refusal: GroupPost.Refusal) {
        switch refusal {
        case .text(let text): self.init(text)
        case .invalidName: self.init(.invalidField, "name must have 1 to 64 characters")
        case .groupNotFound(let groupId): self.init(.groupNotFound, "no group \"\(groupId)\"")
        case .notAMember: self.init(.notAMember, "you are not a member of this group")
        }
    }
}
