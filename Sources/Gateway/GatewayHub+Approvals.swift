import FoundationEssentials
import GatewayProtocol

/// Approval requests: the backend asks "may the agent run this?"; the first answer from any device wins, every
/// device learns the outcome, and unanswered requests time out (60 s by default) — also across restarts.
extension GatewayHub {
    public static func approvalData(_ a: ApprovalRecord) -> ApprovalData {
        ApprovalData(requestId: a.id, sessionId: a.sessionId, toolName: a.toolName, summary: a.summary,
                     details: a.details.flatMap { try? JSONValue.parse(Array($0)) },
                     state: a.state, createdAt: a.createdAt, expiresAt: a.expiresAt,
                     decidedBy: a.decidedByDeviceId.map { DeviceRef(deviceId: $0, clientType: a.decidedByClientType ?? "") },
                     resolvedAt: a.resolvedAt)
    }

    /// Backend: posts an approval request to a session. Answered after the request is durable; a retry with the same
    /// idempotency key returns the first answer and stores nothing.
    public func requestApproval(sessionId: String, toolName: String, summary: String, details: JSONValue?, timeoutMs: Int64?,
                                idempotencyKey: String?, completion: @escaping (Result<ApprovalData, GatewayError>) -> Void) {
        withOwnSession(sessionId, of: nil) { [self] found in
            guard case .success(let session) = found else { return completion(.failure(found.error!)) }
            requestApproval(in: session, toolName: toolName, summary: summary, details: details, timeoutMs: timeoutMs,
                            idempotencyKey: idempotencyKey, completion: completion)
        }
    }

    private func requestApproval(in session: SessionRecord, toolName: String, summary: String, details: JSONValue?, timeoutMs: Int64?,
                                 idempotencyKey: String?, completion: @escaping (Result<ApprovalData, GatewayError>) -> Void) {
        let sessionId = session.id
        guard session.state == "active" else {
            return completion(.failure(GatewayError(.sessionEnded, "session \"\(sessionId)\" has ended")))
        }
        let timeout = timeoutMs ?? settings.approvalDefaultTimeoutMs
        guard timeout >= settings.approvalMinTimeoutMs && timeout <= settings.approvalMaxTimeoutMs else {
            return completion(.failure(GatewayError(.timeoutOutOfRange,
                "timeoutSeconds must be between \(settings.approvalMinTimeoutMs / 1000) and \(settings.approvalMaxTimeoutMs / 1000)")))
        }
        let scope = Self.approvalScope(userId: session.userId, sessionId: sessionId)
        let create = { [self] (requestHash: String, done: @escaping (Result<ApprovalData, GatewayError>) -> Void) in
            latestApprovalSequence += 1
            let now = clock.now()
            let approval = ApprovalRecord(id: "apr_\(latestApprovalSequence)", userId: session.userId, sessionId: sessionId,
                                          toolName: toolName, summary: summary, details: details.map { encode($0) },
                                          createdAt: now, expiresAt: now + timeout)
            approvals[approval.id] = approval
            metrics.pendingApprovals.add(1, ordering: .relaxed)
            let data = Self.approvalData(approval)
            var writes: [StoreWrite] = [.upsertApproval(approval)]
            if let idempotencyKey {
                writes.append(.putIdempotency(scope: scope, key: idempotencyKey, response: encode(data), requestHash: requestHash, createdAt: now))
            }
            armTimeout(for: approval)
            commit(writes, events: [PendingEvent(userId: session.userId, type: "approval_request", data: encode(data))]) { outcome in
                done(outcome.map { _ in data })
            }
        }
        guard let idempotencyKey else { return create("", completion) }
        let request = ApprovalRequestFingerprint(toolName: toolName, summary: summary, details: details, timeoutMs: timeout)
        idempotent(scope: scope, key: idempotencyKey, request: request, perform: create, completion: completion)
    }

    /// A device answers. Exactly one answer wins; later ones get `approval_already_resolved` or `approval_expired`
    /// (also after a restart: a decided request is read back from the store).
    func answer(requestId: String, approve: Bool, client: GatewayClient, reply: Reply) {
        withApproval(requestId) { [self] found in
            do {
                try answer(found.get(), requestId: requestId, approve: approve, client: client, reply: reply)
            } catch let error as GatewayError {
                reply.fail(error)
            } catch {
                reply.fail(GatewayError(.internalError, "\(error)"))
            }
        }
    }

    private func answer(_ found: ApprovalRecord?, requestId: String, approve: Bool, client: GatewayClient, reply: Reply) throws {
        guard var approval = found, approval.userId == client.userId else {
            throw GatewayError(.approvalNotFound, "no approval request \"\(requestId)\"")
        }
        switch approval.state {
        case "pending" where clock.now() < approval.expiresAt:
            break
        case "pending", "timed_out":
            throw GatewayError(.approvalExpired, "approval request \"\(requestId)\" timed out")
        default:
            throw GatewayError(.approvalAlreadyResolved, "approval request \"\(requestId)\" was already \(approval.state)")
        }
        approval.state = approve ? "approved" : "denied"
        approval.decidedByDeviceId = client.deviceId
        approval.decidedByClientType = client.clientType
        approval.resolvedAt = clock.now()
        approvals[requestId] = approval
        approvalTimers.removeValue(forKey: requestId)?.cancel()
        metrics.pendingApprovals.subtract(1, ordering: .relaxed)
        metrics.approvalsResolved.add(1, ordering: .relaxed)
        // Answering is acting in the session: it may hand the session over to this device.
        let (sessionWrites, sessionEvents) = activity(in: approval.sessionId, by: client)
        let data = Self.approvalData(approval)
        commit([.upsertApproval(approval)] + sessionWrites,
               events: [PendingEvent(userId: approval.userId, type: "approval_resolved", data: encode(data))] + sessionEvents) { [self] outcome in
            switch outcome {
            case .success:
                reply.ok(data)
                finished(approval)
            case .failure(let error):
                reply.fail(error)
            }
        }
    }

    func armTimeout(for approval: ApprovalRecord) {
        approvalTimers[approval.id] = scheduler.schedule(at: approval.expiresAt) { [self] in
            approvalTimers[approval.id] = nil
            timeOut(approval.id)
        }
    }

    private func timeOut(_ requestId: String) {
        guard var approval = approvals[requestId], approval.state == "pending" else { return }
        approval.state = "timed_out"
        approval.resolvedAt = clock.now()
        approvals[requestId] = approval
        metrics.pendingApprovals.subtract(1, ordering: .relaxed)
        metrics.approvalsTimedOut.add(1, ordering: .relaxed)
        let data = Self.approvalData(approval)
        commit([.upsertApproval(approval)], events: [PendingEvent(userId: approval.userId, type: "approval_timeout", data: encode(data))]) { [self] outcome in
            if case .success = outcome { finished(approval) }
        }
    }

    /// Tells long-polling backends and the webhook observer.
    private func finished(_ approval: ApprovalRecord) {
        for waiter in approvalWaiters.removeValue(forKey: approval.id) ?? [] { waiter(approval) }
        approvalObserver?.approvalFinished(approval)
    }

    /// The state of an approval request held in memory (pending ones, and decided ones seen since start).
    public func approval(_ id: String) -> ApprovalData? { approvals[id].map(Self.approvalData) }

    /// Backend long-poll: answers when the request is resolved or timed out, or after `waitMs` with its current state
    /// (`waitMs` 0: at once). Decided requests are read back from the store after a restart.
    public func waitForApproval(_ id: String, waitMs: Int64, completion: @escaping (Result<ApprovalData?, GatewayError>) -> Void) {
        withApproval(id) { [self] found in
            switch found {
            case .failure(let error): completion(.failure(error))
            case .success(nil): completion(.success(nil))
            case .success(let approval?): wait(for: approval, waitMs: waitMs) { completion(.success($0)) }
            }
        }
    }

    private func wait(for approval: ApprovalRecord, waitMs: Int64, completion: @escaping (ApprovalData?) -> Void) {
        let id = approval.id
        guard approval.state == "pending", waitMs > 0 else { return completion(Self.approvalData(approval)) }
        var done = false
        let timer = scheduler.schedule(at: clock.now() + waitMs) { [self] in
            guard !done else { return }
            done = true
            completion(approvals[id].map(Self.approvalData))
        }
        approvalWaiters[id, default: []].append { final in
            guard !done else { return }
            done = true
            timer.cancel()
            completion(Self.approvalData(final))
        }
    }

    /// Pending approvals of a user (the badge count is their number).
    public func pendingApprovals(of userId: String) -> [ApprovalData] {
        approvals.values.filter { $0.userId == userId && $0.state == "pending" }.sorted { $0.createdAt < $1.createdAt }.map(Self.approvalData)
    }
}

/// What an approval request asked, for the idempotency check.
struct ApprovalRequestFingerprint: Encodable {
    var toolName: String
    var summary: String
    var details: JSONValue?
    var timeoutMs: Int64
}
