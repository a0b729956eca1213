import GatewayProtocol

/// Sessions and approvals by id. A user's open sessions are read with the user (`UserEntry.openSessions`) and
/// forgotten with it; pending approvals are held from start. Anything else (an ended session, a decided approval,
/// a session another node created since the user was read) is read from the store when it is asked for, and kept
/// while its user is loaded. So after a restart `GET /v1/approvals/{id}` and the long-poll still answer with the
/// decision, a late `approve` gets `approval_already_resolved`, and an ended session stays ended.
extension GatewayHub {
    /// The session with this id, once its user is loaded (memory is then newer than the store: its writes may be in
    /// flight); `.success(nil)` when there is none. `userId`: the user asking (a device); that user is loaded first,
    /// and another user's session is answered as found but neither loaded nor kept (the caller refuses it).
    func withSession(_ id: String, of userId: String? = nil, _ body: @escaping (Result<SessionRecord?, GatewayError>) -> Void) {
        if let userId, !cache.isLoaded(userId) {
            return withUsers([userId], failed: { body(.failure($0)) }) { [self] in withSession(id, of: userId, body) }
        }
        if let held = sessions[id], cache.isLoaded(held.userId) {
            cache.touch(held.userId)
            return body(.success(held))
        }
        let store = self.store
        load(read: { try store.session(id: id) }) { [self] result in
            guard case .success(let found?) = result else { return body(result) }
            if let userId, found.userId != userId { return body(.success(found)) }
            withUsers([found.userId], failed: { body(.failure($0)) }) { [self] in
                if sessions[id] == nil { sessions[id] = found }   // not open, or created since the user was read
                body(.success(sessions[id]))
            }
        }
    }

    /// The approval with this id (from memory, else from the store); `.success(nil)` when there is none. A decided
    /// one read from the store is kept while its user is loaded.
    func withApproval(_ id: String, _ body: @escaping (Result<ApprovalRecord?, GatewayError>) -> Void) {
        if let held = approvals[id] { return body(.success(held)) }
        let store = self.store
        load(read: { try store.approval(id: id) }) { [self] result in
            body(result.map { found in
                guard let found else { return nil }
                // A create may have won meanwhile; `remember` so the pending gauge counts one another node created.
                if approvals[id] == nil && (found.state == .pending || cache.isLoaded(found.userId)) { remember(found) }
                return approvals[id] ?? found
            })
        }
    }

    /// Reads off the hub thread, continues on it.
    func load<R>(read: @escaping @Sendable () throws -> R, _ body: @escaping (Result<R, GatewayError>) -> Void) {
        let box = UncheckedBox(body)
        scheduler.runBlocking { [self] in
            let result = UncheckedBox(Result { try read() }.mapError { GatewayError.storageFailed("could not read the store: \($0)", cause: $0) })
            scheduler.execute { box.value(result.value) }
        }
    }
}
