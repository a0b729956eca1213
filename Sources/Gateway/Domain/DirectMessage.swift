import GatewayProtocol

/// Sending a direct message as a pure decision: the rules (text, contacts, pauses) and what a send commits and
/// delivers. The hub supplies what it knows about the two users, assigns the id and runs the idempotency check; this
/// decides. No clock or store: `now` and the id come in.
struct DirectMessage {
    /// What the sender's relation to the recipient is, as the hub knows it.
    struct Relation: Equatable {
        var areContacts: Bool
        var paused: Bool
    }

    enum Refusal: Error, Equatable {
        case textEmpty
        case textTooLong(count: Int, limit: Int)
        /// Also for an unknown recipient: the answer must not tell which user ids exist.
        case notAContact
        case contactPaused
    }

    /// The rules, in the order clients see them; the text trimmed of surrounding white space on success.
    static func check(text: String, relation: Relation, maxCharacters: Int) -> Result<String, Refusal> {
        let trimmed: String
        switch MessageText.check(text, maxCharacters: maxCharacters) {
        case .success(let text): trimmed = text
        case .failure(.empty): return .failure(.textEmpty)
        case .failure(.tooLong(let count, let limit)): return .failure(.textTooLong(count: count, limit: limit))
        }
        guard relation.areContacts else { return .failure(.notAContact) }
        guard !relation.paused else { return .failure(.contactPaused) }
        return .success(trimmed)
    }

    /// What one accepted message commits: the message row and the same `message` event in both logs (the
    /// recipient's devices get it, the sender's other devices stay in sync), recipient first.
    struct Send: Equatable {
        var record: MessageRecord
        var event: MessageData
        /// Users whose logs get the event, in order.
        var logs: [String]
        var reply: SentMessage
    }

    static func send(id: Int64, from sender: String, to recipient: String, text: String, senderDisplayName: String?, now: Int64) -> Send {
        let record = MessageRecord(id: id, from: sender, to: recipient, text: text, sentAt: now)
        return Send(record: record,
                    event: MessageData(messageId: id, from: sender, to: recipient, text: text, sentAt: now, fromDisplayName: senderDisplayName),
                    logs: [recipient, sender], reply: SentMessage(messageId: id, sentAt: now))
    }
}

extension GatewayError {
    /// The wire error for a refused message.
    init(_ refusal: DirectMessage.Refusal) {
        switch refusal {
        case .textEmpty: self.init(MessageText.Refusal.empty)
        case .textTooLong(let count, let limit): self.init(MessageText.Refusal.tooLong(count: count, limit: limit))
        case .notAContact: self.init(.notAContact, "you can only message your contacts")
        case .contactPaused: self.init(.contactPaused, "this contact is paused")
        }
    }
}
