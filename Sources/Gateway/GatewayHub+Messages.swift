import FoundationEssentials
import GatewayProtocol
import JSON

/// Direct messages between contacts: validation, idempotent send, history, unread counts, read marks. The rules are
/// `DirectMessage`'s, `HistoryPaging`'s and `ReadMarks`'; this reads and commits what they decide.
extension GatewayHub {
    func sendMessage(_ command: SendMessageCommand, from client: GatewayClient, reply: Reply) {
        let relation = DirectMessage.Relation(
            areContacts: areContacts(client.userId, command.to),
            paused: relations.isPaused(client.userId, command.to))
        let text: String
        switch DirectMessage.check(text: command.text, relation: relation, maxCharacters: settings.maxMessageCharacters)
        {
        case .success(let accepted): text = accepted
        case .failure(let refusal): return reply.fail(GatewayError(refusal))
        }
        let scope = "message:" + client.userId
        // The id is reserved from the store (GatewayHub+Ids); one still found taken at the insert is asked for again
        // above the store's latest and the message sent again under it.
        func send(
            _ requestHash: String, attempt: Int, above: Int64 = 0,
            done: @escaping (Result<SentMessage, GatewayError>) -> Void
        ) {
            ids.reserve(.message, above: above) { reserved in
                switch reserved {
                case .success(let id): send(requestHash, id: id, attempt: attempt, done: done)
                case .failure(let error): done(.failure(error))
                }
            }
        }
        func send(
            _ requestHash: String, id: Int64, attempt: Int, done: @escaping (Result<SentMessage, GatewayError>) -> Void
        ) {
            let message = DirectMessage.send(
                id: id, from: client.userId, to: command.to, text: text,
                senderDisplayName: users[client.userId]?.displayName, now: clock.now())
            var writes: [StoreWrite] = [.insertMessage(message.record)]
            if let key = command.clientMessageId {
                writes.append(
                    .claimIdempotency(
                        scope: scope, key: key, response: encode(message.reply), requestHash: requestHash,
                        createdAt: message.record.sentAt))
            }
            let data = encode(message.event)
            commit(
                writes,
                events: message.logs.map {
                    PendingEvent(userId: $0, type: .message, data: data, pushable: .message(message.event))
                },
                onConflict: { [self] conflict in
                    if case .idTaken(.message, let latest) = conflict, attempt < IdDesk.attempts {
                        return ids.retry(attempt: attempt + 1) {
                            send(requestHash, attempt: attempt + 1, above: latest, done: done)
                        }
                    }
                    if !idempotency.settle(after: conflict) {
                        done(.failure(GatewayError(.storageFailed, "could not store the message: \(conflict)")))
                    }
                }
            ) { outcome in
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
        // The commit carries the claim and nothing reaches a device before it, so the claim is the look-up.
        idempotency.run(
            scope: scope, key: key, request: MessageRequest(to: command.to, text: text), check: .claimInCommit,
            perform: { send($0, attempt: 1, done: $1) }, completion: answer)
    }

    /// Feeds `HistoryPaging` the command, reads the page it names off the hub thread and answers with the page.
    func history(_ command: HistoryCommand, for client: GatewayClient, reply: Reply) {
        let ask = HistoryPaging.Input.ask(
            reader: client.userId, peer: command.with, before: command.before, limit: command.limit)
        page(.idle, ask, reply: reply)
    }

    private func page(_ state: HistoryPaging.State, _ input: HistoryPaging.Input, reply: Reply) {
        let (next, actions) = HistoryPaging.transition(state, input, maxLimit: settings.historyPageLimit)
        for action in actions {
            switch action {
            case .refuse(let refusal): reply.fail(GatewayError(refusal))
            case .reply(let page): reply.ok(page)
            case .read(let page):
                let store = self.store
                scheduler.runBlocking(in: .user(page.reader)) { [self] in
                    let result = Result {
                        try store.messages(between: page.reader, and: page.peer, before: page.before, limit: page.limit)
                    }
                    scheduler.execute { [self] in
                        switch result {
                        case .success(let rows):
                            // The two users' names as they are now (a page only holds their messages).
                            var names: [String: String] = [:]
                            for user in [page.reader, page.peer] { names[user] = users[user]?.displayName }
                            self.page(next, .rows(rows, displayNames: names), reply: reply)
                        case .failure(let error):
                            reply.fail(GatewayError(.storageFailed, "\(error)"))
                        }
                    }
                }
            }
        }
    }

    /// A store read: the counting rule is `ReadMarks.unreadCounts`, applied by the store's query.
    func unreadCounts(for client: GatewayClient, reply: Reply) {
        let (me, store) = (client.userId, self.store)
        scheduler.runBlocking(in: .user(me)) { [self] in
            let result = Result { try store.unreadCounts(userId: me) }
            scheduler.execute {
                switch result {
                case .success(let counts): reply.ok(["counts": counts])
                case .failure(let error): reply.fail(GatewayError(.storageFailed, "\(error)"))
                }
            }
        }
    }

    /// Reads the conversation's newest message id off the hub thread, feeds `ReadMarks` the mark with it and commits
    /// what it decides. The hub holds no marks (an empty state): every mark is committed and the store keeps the
    /// larger one, so two devices or nodes marking at once never move it back.
    func markRead(_ command: MarkReadCommand, for client: GatewayClient, reply: Reply) {
        let (me, store) = (client.userId, self.store)
        scheduler.runBlocking(in: .user(me)) { [self] in
            let newest = Result {
                try store.messages(between: me, and: command.with, before: nil, limit: 1).first?.id ?? 0
            }
            scheduler.execute { [self] in
                switch newest {
                case .success(let newest): markRead(command, newest: newest, for: client, reply: reply)
                case .failure(let error): reply.fail(GatewayError(.storageFailed, "\(error)"))
                }
            }
        }
    }

    private func markRead(_ command: MarkReadCommand, newest: Int64, for client: GatewayClient, reply: Reply) {
        let (_, actions) = ReadMarks.transition(
            ReadMarks.State(), .markRead(peer: command.with, upTo: command.upTo, newest: newest))
        var writes: [StoreWrite] = []
        for action in actions {
            switch action {
            case .refuse(let newest):
                return reply.fail(
                    GatewayError(
                        .invalidField,
                        "upTo \(command.upTo) is outside this conversation: mark 0 to \(newest), the newest messageId you received"
                    ))
            case .commitMark(let peer, let upTo):
                writes.append(.setReadMark(userId: client.userId, peerId: peer, messageId: upTo))
            case .reply:
                guard !writes.isEmpty else { return reply.ok(Empty()) }
                commit(writes) { outcome in
                    switch outcome {
                    case .success: reply.ok(Empty())
                    case .failure(let error): reply.fail(error)
                    }
                }
            }
        }
    }
}

struct SentMessage: Codable, Equatable, JSONWritable {
    var messageId: Int64
    var sentAt: Int64

    func writeJSON(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"messageId":"#.utf8)
        JSONInteger.write(messageId, to: &out)
        out.append(contentsOf: #","sentAt":"#.utf8)
        JSONInteger.write(sentAt, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

/// What a direct message with a `clientMessageId` asked for, as its digest is taken: the same bytes as the
/// `{"text":…,"to":…}` dictionary that earlier versions encoded (stored digests stay valid).
struct MessageRequest: Encodable, JSONWritable {
    var to: String
    var text: String

    func writeJSON(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"text":"#.utf8)
        JSONString.write(text, to: &out)
        out.append(contentsOf: #","to":"#.utf8)
        JSONString.write(to, to: &out)
        out.append(UInt8(ascii: "}"))
    }
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
