import FoundationEssentials
import GatewayProtocol
import Metrics

/// Approval requests: the backend asks "may the agent run this?"; the first answer from any device wins, every
/// device learns the outcome, and unanswered requests time out (60 s by default) — also across restarts.
extension GatewayHub {
    public static func approvalData(_ a: ApprovalRecord) -> ApprovalData {
        ApprovalData(
            requestId: a.id, sessionId: a.sessionId, toolName: a.toolName, summary: a.summary,
            details: a.details.flatMap { try? JSONValue.parse(Array($0)) },
            state: a.state.rawValue, createdAt: a.createdAt, expiresAt: a.expiresAt,
            decidedBy: a.decidedByDeviceId.map { DeviceRef(deviceId: $0, clientType: a.decidedByClientType ?? "") },
            resolvedAt: a.resolvedAt)
    }

    /// Backend: posts an approval request to a session. Answered after the request is durable; a retry with the same
    /// idempotency key returns the first answer and stores nothing.
    public func requestApproval(
        sessionId: String, toolName: String, summary: String, details: JSONValue?, timeoutMs: Int64?,
        idempotencyKey: String?, completion: @escaping (Result<ApprovalData, GatewayError>) -> Void
    ) {
        withOwnSession(sessionId, of: nil) { [self] found in
            guard case .success(let session) = found else { return completion(.failure(found.error!)) }
            requestApproval(
                in: session, toolName: toolName, summary: summary, details: details, timeoutMs: timeoutMs,
                idempotencyKey: idempotencyKey, completion: completion)
        }
    }

    private func requestApproval(
        in session: SessionRecord, toolName: String, summary: String, details: JSONValue?, timeoutMs: Int64?,
        idempotencyKey: String?, completion: @escaping (Result<ApprovalData, GatewayError>) -> Void
    ) {
        let sessionId = session.id
        guard session.state == .active else {
            return completion(.failure(GatewayError(.sessionEnded, "session \"\(sessionId)\" has ended")))
        }
        let timeout: Int64
        do { timeout = try ApprovalTimeout(settings).checked(timeoutMs) } catch { return completion(.failure(error)) }
        let scope = Self.approvalScope(userId: session.userId, sessionId: sessionId)
        let spec = ApprovalSpec(
            session: session, toolName: toolName, summary: summary, details: details, timeoutMs: timeout,
            idempotencyKey: idempotencyKey, scope: scope)
        let create = { [self] (requestHash: String, done: @escaping (Result<ApprovalData, GatewayError>) -> Void) in
            createApproval(spec, requestHash: requestHash, attempt: 1, done: done)
        }
        guard let idempotencyKey else { return create("", completion) }
        let request = ApprovalRequestFingerprint(
            toolName: toolName, summary: summary, details: details, timeoutMs: timeout)
        idempotency.run(scope: scope, key: idempotencyKey, request: request, perform: create, completion: completion)
    }

    /// What a new approval request asked for.
    private struct ApprovalSpec {
        var session: SessionRecord
        var toolName: String
        var summary: String
        var details: JSONValue?
        var timeoutMs: Int64
        var idempotencyKey: String?
        var scope: String
    }

    /// Creates the approval under an id reserved from the store (GatewayHub+Ids). The idempotency key is the store's
    /// decision: a key another node claimed answers with its response; an id still found taken at the insert is asked
    /// for again above the store's latest.
    private func createApproval(
        _ spec: ApprovalSpec, requestHash: String, attempt: Int, above: Int64 = 0,
        done: @escaping (Result<ApprovalData, GatewayError>) -> Void
    ) {
        ids.reserve(.approval, above: above) { [self] reserved in
            switch reserved {
            case .success(let sequence):
                createApproval(spec, sequence: sequence, requestHash: requestHash, attempt: attempt, done: done)
            case .failure(let error): done(.failure(error))
            }
        }
    }

    private func createApproval(
        _ spec: ApprovalSpec, sequence: Int64, requestHash: String, attempt: Int,
        done: @escaping (Result<ApprovalData, GatewayError>) -> Void
    ) {
        let now = clock.now()
        let approval = ApprovalRecord(
            id: "apr_\(sequence)", userId: spec.session.userId, sessionId: spec.session.id,
            toolName: spec.toolName, summary: spec.summary, details: spec.details.map { encode($0) },
            createdAt: now, expiresAt: now + spec.timeoutMs)
        remember(approval)
        let data = Self.approvalData(approval)
        var writes: [StoreWrite] = [.createApproval(approval)]
        if let key = spec.idempotencyKey {
            writes.append(
                .claimIdempotency(
                    scope: spec.scope, key: key, response: encode(data), requestHash: requestHash, createdAt: now))
        }
        armTimeout(for: approval)
        // Not created after all (nothing was stored): forget it.
        let forget = { [self] in approvals.forget(approval) }
        commit(
            writes,
            events: [
                PendingEvent(
                    userId: approval.userId, type: .approvalRequest, data: encode(data), pushable: .approval(data))
            ],
            onConflict: { [self] conflict in
                forget()
                if case .idTaken(.approval, let latest) = conflict, attempt < IdDesk.attempts {
                    return ids.retry(attempt: attempt + 1) { [self] in
                        createApproval(spec, requestHash: requestHash, attempt: attempt + 1, above: latest, done: done)
                    }
                }
                if !idempotency.settle(after: conflict) {
                    done(.failure(GatewayError(.storageFailed, "could not store the request: \(conflict)")))
                }
            }
        ) { outcome in
            if case .failure = outcome { forget() }
            done(outcome.map { _ in data })
        }
    }

    /// A device answers. Exactly one answer wins; later ones get `approval_already_resolved` or `approval_expired`
    /// (also after a restart: a decided request is read back from the store; and across nodes: the store decides).
    func answer(requestId: String, approve: Bool, client: GatewayClient, reply: Reply) {
        withApproval(requestId) { [self] found in
            switch found {
            case .failure(let error):
                reply.fail(error)
            case .success(let approval?) where approval.userId == client.userId:
                step(
                    approval,
                    .answer(approve: approve, by: DeviceRef(deviceId: client.deviceId, clientType: client.clientType)),
                    answeredBy: client, reply: reply)
            case .success:
                reply.fail(GatewayError(.notFound, requestId: requestId))
            }
        }
    }

    /// Decisions replayed after the store reported a changed session before giving up (see `commitDecision`).
    static let decisionAttempts = 3

    /// The coordinator's half of `ApprovalMachine`: feeds `input` to the approval's machine, keeps the new state and
    /// carries out the actions. `client` is the answering device (an answer is activity in the session), `reply` gets
    /// an answer's outcome.
    func step(
        _ approval: ApprovalRecord, _ input: ApprovalMachine.Input, answeredBy client: GatewayClient? = nil,
        reply: Reply? = nil, attempt: Int = 1
    ) {
        let (next, actions) = ApprovalMachine.transition(approval, input, now: clock.now())
        remember(next)
        for action in actions {
            switch action {
            case .cancelTimer:
                approvals.cancelTimer(of: approval.id)
            case .refuse(let refusal):
                reply?.fail(GatewayError(refusal, requestId: approval.id))
            case .finished(let final):
                approvals.finished(final)
                deliveryWithdraw(approval: final.id, of: final.userId)
            case .wakeWaiters(let final):
                approvals.wakeWaiters(of: final)
            case .commitDecision(let decided, let event):
                commitDecision(
                    decided, event, from: approval, input: input, answeredBy: client, reply: reply, attempt: attempt)
            }
        }
    }

    /// Commits a decision as a compare-and-set (`decideApproval`: only a still-pending approval is decided) with its
    /// event and, for an answer, the session activity. The store's answer decides: when another writer decided first,
    /// its row replaces ours and the input is run again against it (an answer is then refused); when the session's
    /// active client changed, the session is corrected and the whole decision retried.
    private func commitDecision(
        _ decided: ApprovalRecord, _ event: ApprovalMachine.Event, from original: ApprovalRecord,
        input: ApprovalMachine.Input, answeredBy client: GatewayClient?, reply: Reply?, attempt: Int
    ) {
        let data = Self.approvalData(decided)
        var writes: [StoreWrite] = [.decideApproval(decided)]
        // In the decision's transaction: the backend hears of every decision that was stored, and only of those.
        if settings.backendWebhooks.approvals {
            writes.append(.enqueuePush(BackendWebhook.approval(decided, now: clock.now())))
        }
        var events = [
            PendingEvent(userId: decided.userId, type: event.logType, data: encode(data), pushable: .approval(data))
        ]
        if let client {
            let (sessionWrites, sessionEvents) = activity(in: decided.sessionId, by: client)
            writes += sessionWrites
            events += sessionEvents
        }
        // Nothing was stored: the approval is pending again, so a later answer or the deadline can still decide it.
        let undo = { [self] in
            remember(original)
            armTimeout(for: original, notBefore: clock.now() + Self.retryDelayMs)
        }
        commit(
            writes, events: events,
            onConflict: { [self] conflict in
                switch conflict {
                case .approvalDecided(let current):
                    step(decided, .storeDecided(current), reply: reply)
                    if let current { step(current, input, answeredBy: client, reply: reply, attempt: attempt + 1) }
                case .sessionChanged(let current) where attempt < Self.decisionAttempts:
                    storeChanged(current, sessionId: decided.sessionId)
                    undo()
                    step(original, input, answeredBy: client, reply: reply, attempt: attempt + 1)
                default:
                    undo()
                    reply?.fail(GatewayError(.storageFailed, "could not store the decision: \(conflict)"))
                }
            }
        ) { [self] outcome in
            switch outcome {
            case .success:
                if decided.state == .timedOut {
                    metrics.approvalsTimedOut.add(1, ordering: .relaxed)
                } else {
                    metrics.approvalsResolved.add(1, ordering: .relaxed)
                    metrics.approvalAnswerSeconds.observe(Int(clock.now() - decided.createdAt))
                }
                reply?.ok(data)
                step(decided, .committed)
            case .failure(let error):
                undo()
                reply?.fail(error)
            }
        }
    }

    /// How long after a failed commit an expired approval's timeout is tried again (not at once: the store is failing).
    static let retryDelayMs: Int64 = 1_000

    /// Keeps `approval` in memory (`ApprovalDesk`).
    func remember(_ approval: ApprovalRecord) { approvals.remember(approval) }

    /// Arms the deadline (not before `notBefore`: used after a failed commit). When it fires, the machine decides.
    func armTimeout(for approval: ApprovalRecord, notBefore: Int64 = 0) {
        approvals.armDeadline(of: approval, notBefore: notBefore) { [self] current in step(current, .deadline) }
    }

    // MARK: The deadline sweep (several nodes)

    /// Approvals past their deadline read per sweep at most (the rest wait for the next sweep).
    static let approvalSweepBatch = 500

    /// Every `approvalSweepIntervalMs`, asks the store for pending approvals past their deadline and feeds each its
    /// `deadline`: approvals another node created (and may have died with) still time out, and `decideApproval`
    /// keeps the timeout to one however many nodes sweep.
    func scheduleApprovalSweep() {
        _ = scheduler.schedule(at: clock.now() + settings.approvalSweepIntervalMs) { [self] in
            let (store, now) = (self.store, clock.now())
            scheduler.runBlocking { [self] in
                let due = Result { try store.pendingApprovals(dueBy: now, limit: Self.approvalSweepBatch) }
                scheduler.execute { [self] in
                    if case .success(let rows) = due {
                        for row in rows {
                            if approvals[row.id] == nil { remember(row) }
                            if let current = approvals[row.id] { step(current, .deadline) }
                        }
                    }
                    // A failed read is retried by the next sweep.
                    scheduleApprovalSweep()
                }
            }
        }
    }

    /// The state of an approval request held in memory (pending ones, and decided ones seen since start).
    public func approval(_ id: String) -> ApprovalData? { approvals[id].map(Self.approvalData) }

    /// Backend long-poll: answers when the request is resolved or timed out, or after `waitMs` with its current state
    /// (`waitMs` 0: at once). Decided requests are read back from the store after a restart.
    public func waitForApproval(
        _ id: String, waitMs: Int64, completion: @escaping (Result<ApprovalData?, GatewayError>) -> Void
    ) {
        withApproval(id) { [self] found in
            switch found {
            case .failure(let error): completion(.failure(error))
            case .success(nil): completion(.success(nil))
            case .success(let approval?): approvals.wait(for: approval, waitMs: waitMs) { completion(.success($0)) }
            }
        }
    }

    /// The scope of approval-request keys: one user's one session.
    static func approvalScope(userId: String, sessionId: String) -> String {
        "approval:" + userId + "\u{1F}" + sessionId
    }

    /// Pending approvals of a user (the badge count is their number).
    public func pendingApprovals(of userId: String) -> [ApprovalData] {
        approvals.pending(of: userId).map(Self.approvalData)
    }
}

/// What an approval request asked, for the idempotency check.
struct ApprovalRequestFingerprint: Encodable {
    var toolName: String
    var summary: String
    var details: JSONValue?
    var timeoutMs: Int64
}
