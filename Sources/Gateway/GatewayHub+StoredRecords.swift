import GatewayProtocol

/// Sessions and approvals that are no longer live (ended, decided) are not loaded at start: memory holds open
/// sessions and pending approvals, and anything else is read from the store when it is asked for, then kept. So
/// after a restart `GET /v1/approvals/{id}` and the long-poll still answer with the decision, a late `approve` gets
/// `approval_already_resolved`, and an ended session stays ended.
extension GatewayHub {
    /// The session with this id (from memory, else from the store); `.success(nil)` when there is none.
    func withSession(_ id: String, _ body: @escaping (Result<SessionRecord?, GatewayError>) -> Void) {
        let store = self.store
        withRecord(\.sessions, id: id, read: { try store.session(id: id) }, body)
    }

    /// The approval with this id (from memory, else from the store); `.success(nil)` when there is none.
    func withApproval(_ id: String, _ body: @escaping (Result<ApprovalRecord?, GatewayError>) -> Void) {
        let store = self.store
        // Kept through `remember` so the pending gauge counts one another node created and this node read.
        withRecord(\.approvals, id: id, read: { try store.approval(id: id) }, keep: { [self] in remember($0) }, body)
    }

    private func withRecord<R>(_ cache: ReferenceWritableKeyPath<GatewayHub, [String: R]>, id: String,
                               read: @escaping @Sendable () throws -> R?, keep: ((R) -> Void)? = nil,
                               _ body: @escaping (Result<R?, GatewayError>) -> Void) {
        if let record = self[keyPath: cache][id] { return body(.success(record)) }
        load(read: read) { [self] result in
            body(result.map { found in
                guard let found else { return nil }
                if self[keyPath: cache][id] == nil {       // a create may have won meanwhile
                    if let keep { keep(found) } else { self[keyPath: cache][id] = found }
                }
                return self[keyPath: cache][id]
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
