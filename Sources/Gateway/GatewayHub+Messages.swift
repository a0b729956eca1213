import FoundationEssentials
import GatewayProtocol
import JSON

/// Direct messages between contacts: validation, idempotent send, history, unread counts, read marks.
extension GatewayHub {
    func sendMessage(_ command: SendMessageCommand, from client: GatewayClient, reply: Reply) {
        let relation = DirectMessage.Relation(areContacts: areContacts(client.userId, command.to),
                                              paused: relations.isPaused(client.userId, command.to))
        let text: String
        switch DirectMessage.check(text: command.text, relation: relation, maxCharacters: settings.maxMessageCharacters) {
        case .success(let accepted): text = accepted
        case .failure(let refusal): return reply.fail(GatewayError(refusal))
        }
        let scope = "message:" + client.userId
        // The id is reserved from the store (GatewayHub+Ids); one still found taken at the insert is asked for again
        // above the store's latest and the message sent again under it.
        func send(_ requestHash: String, attempt: Int, above: Int64 = 0, done: @escaping (Result<SentMessage, GatewayError>) -> Void) {
            withNewId(.message, above: above) { [self] reserved in
                switch reserved {
                case .success(let id): send(requestHash, id: id, attempt: attempt, done: done)
                case .failure(let error): done(.failure(error))
                }
            }
        }
        func send(_ requestHash: String, id: Int64, attempt: Int, done: @escaping (Result<SentMessage, GatewayError>) -> Void) {
            let message = DirectMessage.send(id: id, from: client.userId, to: command.to, text: text,
                                             senderDisplayName: users[client.userId]?.displayName, now: clock.now())
            var writes: [StoreWrite] = [.insertMessage(message.record)]
            if let key = command.clientMessageId {
                writes.append(.claimIdempotency(scope: scope, key: key, response: encode(message.reply), requestHash: requestHash,
                                                createdAt: message.record.sentAt))
            }
            let data = encode(message.event)
            commit(writes, events: message.logs.map { PendingEvent(userId: $0, type: "message", data: data, pushable: .message(message.event)) }, onConflict: { [self] conflict in
                if case .idTaken(.message, let latest) = conflict, attempt < Self.idAttempts {
                    return retryWithNewId(attempt: attempt + 1) { send(requestHash, attempt: attempt + 1, above: latest, done: done) }
                }
                if !settleIdempotency(after: conflict) {
                    done(.failure(GatewayError(.storageFailed, "could not store the message: \(conflict)")))
                }
            }) { outcome in
                if case .success = outcome { self.metrics.messagesSent.add(1, ordering: .relaxed) }
                done(outcome.map { _ in message.reply })
            }
        }
        let answer: (Result<SentMessage, GatewayError>) -> Void = { outcome in
            switch outcome {
            case .success(let sent): reply.ok(sent)
            case .failure(let error): reply.fail(error)
            }
        }
        guard let key = command.clientMessageId else { return send("", attempt: 1, done: answer) }
        idempotent(scope: scope, key: key, request: MessageRequest(to: command.to, text: text), perform: { send($0, attempt: 1, done: $1) },
                   completion: answer)
    }

    func history(_ command: HistoryCommand, for client: GatewayClient, reply: Reply) {
        let limit = command.limit ?? min(50, settings.historyPageLimit)
        guard (1...settings.historyPageLimit).contains(limit) else {
            return reply.fail(GatewayError(.invalidField, "limit must be between 1 and \(settings.historyPageLimit)"))
        }
        let (me, peer, store) = (client.userId, command.with, self.store)
        let names = users.mapValues(\.displayName)
        scheduler.runBlocking { [self] in
            let result = Result { try store.messages(between: me, and: peer, before: command.before, limit: limit) }
            scheduler.execute {
                switch result {
                case .success(let messages):
                    let list = messages.map {
                        MessageData(messageId: $0.id, from: $0.from, to: $0.to, text: $0.text, sentAt: $0.sentAt,
                                    fromDisplayName: names[$0.from] ?? nil)
                    }
                    reply.ok(HistoryPage(messages: list, hasMore: messages.count == limit))
                case .failure(let error):
                    reply.fail(GatewayError(.storageFailed, "\(error)"))
                }
            }
        }
    }

    func unreadCounts(for client: GatewayClient, reply: Reply) {
        let (me, store) = (client.userId, self.store)
        scheduler.runBlocking { [self] in
            let result = Result { try store.unreadCounts(userId: me) }
            scheduler.execute {
                switch result {
                case .success(let counts): reply.ok(["counts": counts])
                case .failure(let error): reply.fail(GatewayError(.storageFailed, "\(error)"))
                }
            }
        }
    }

    func markRead(_ command: MarkReadCommand, for client: GatewayClient, reply: Reply) {
        commit([.setReadMark(userId: client.userId, peerId: command.with, messageId: command.upTo)]) { outcome in
            switch outcome {
            case .success: reply.ok(Empty())
            case .failure(let error): reply.fail(error)
            }
        }
    }
}

struct SentMessage: Codable, Equatable, JSONWritable {
    var messageId: Int64
    var sentAt: Int64

    func writeJSON(to out: inout [UInt8]) {
        out += Array(#"{"messageId":\#(messageId),"sentAt":\#(sentAt)}"#.utf8)
    }
}

/// What a direct message with a `clientMessageId` asked for, as its digest is taken: the same bytes as the
/// `{"text":…,"to":…}` dictionary that earlier versions encoded (stored digests stay valid).
struct MessageRequest: Encodable, JSONWritable {
    var to: String
    var text: String

    func writeJSON(to out: inout [UInt8]) {
        out += Array(#"{"text":"#.utf8)
        JSONString.write(text, to: &out)
        out += Array(#","to":"#.utf8)
        JSONString.write(to, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

struct HistoryPage: Encodable {
    var messages: [MessageData]
    var hasMore: Bool
}

extension String {
    /// Without leading and trailing white space and newlines (Unicode-aware).
    var trimmedOfWhitespace: String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
