import GatewayProtocol

/// Blocking a user (docs/PROTOCOL.md, "Blocking"). The rules are `BlockMachine`'s; this gathers the pair's blocks,
/// contact and pending requests, and commits what it decides. Only the blocker's log hears of a block; the blocked
/// user sees the contact end (`contact_removed`) and a pending request end, as for any removal or answer.
extension GatewayHub {
    /// `userId` blocks `otherId` (idempotent: blocking again answers the standing block). Ends their contact and any
    /// pending friend request between them in the same commit. Errors: `user_not_found`, `self_request`.
    public func blockUser(_ userId: String, _ otherId: String, completion: @escaping (Result<BlockData, GatewayError>) -> Void) {
        guard loaded([userId, otherId], failed: { completion(.failure($0)) }, retry: { [self] in
            blockUser(userId, otherId, completion: completion)
        }) else { return }
        do { try requireUser(userId); try requireUser(otherId) } catch {
            return completion(.failure(error as? GatewayError ?? GatewayError(.internalError, "\(error)")))
        }
        let pair = relations.blockState(userId, otherId)
        let ties = BlockMachine.Ties(areContacts: contacts[userId]?[otherId]?.active == true,
                                     pendingRequest: relations.pendingRequests[RelationshipState.pairKey(userId, otherId)] != nil
                                        || relations.pendingRequests[RelationshipState.pairKey(otherId, userId)] != nil)
        let now = clock.now()
        let (next, actions) = BlockMachine.transition(pair, .block(by: userId, other: otherId), ties: ties, now: now)
        let before = pairMemory(userId, otherId)
        var writes: [StoreWrite] = []
        var events: [PendingEvent] = []
        for action in actions {
            switch action {
            case .refuseSelf: return completion(.failure(GatewayError(.selfRequest, "you cannot block yourself")))
            case .commitBlock(let block):
                writes.append(.upsertBlock(block))
                events.append(PendingEvent(userId: userId, type: BlockMachine.Event.blocked.logType, data: encode(blockData(block))))
            case .endContact:
                if case .success(let (w, e)) = contactChange(userId, otherId, .remove) { writes += w; events += e }
            case .endRequests:
                let (w, e) = endPendingRequests(of: userId, with: otherId, now: now)
                writes += w; events += e
            case .commitUnblock: break
            }
        }
        guard let block = next.byMe else { return completion(.failure(GatewayError(.internalError, "no block decided"))) }
        guard !writes.isEmpty else { return completion(.success(blockData(block))) }   // already blocked
        relations.setBlock(block, by: userId, of: otherId)
        // A request another node answered first is decided again on the store's row (it is no longer pending).
        commitPairChange(writes, events: events, before: before, retry: { [self] in
            relations.setBlock(pair.byMe, by: userId, of: otherId)
            blockUser(userId, otherId, completion: completion)
        }) { [self] outcome in
            if case .failure = outcome { relations.setBlock(pair.byMe, by: userId, of: otherId) }
            completion(outcome.map { _ in blockData(block) })
        }
    }

    /// `userId` lifts its block of `otherId` (idempotent). Nothing that the block ended comes back: the two connect
    /// again as strangers would. Errors: `user_not_found`.
    public func unblockUser(_ userId: String, _ otherId: String, completion: @escaping (Result<Void, GatewayError>) -> Void) {
        guard loaded([userId, otherId], failed: { completion(.failure($0)) }, retry: { [self] in
            unblockUser(userId, otherId, completion: completion)
        }) else { return }
        do { try requireUser(userId) } catch {
            return completion(.failure(error as? GatewayError ?? GatewayError(.internalError, "\(error)")))
        }
        let pair = relations.blockState(userId, otherId)
        let (_, actions) = BlockMachine.transition(pair, .unblock, ties: BlockMachine.Ties(), now: clock.now())
        guard let block = pair.byMe, actions.contains(.commitUnblock) else { return completion(.success(())) }
        relations.setBlock(nil, by: userId, of: otherId)
        commit([.deleteBlock(userId: userId, blockedId: otherId)],
               events: [PendingEvent(userId: userId, type: BlockMachine.Event.unblocked.logType, data: encode(blockData(block)))]) { [self] outcome in
            if case .failure = outcome { relations.setBlock(block, by: userId, of: otherId) }
            completion(outcome.map { _ in () })
        }
    }

    /// The users `userId` blocked, oldest block first.
    public func blocks(of userId: String) -> [BlockData] {
        (relations.blocks[userId] ?? [:]).values.sorted { ($0.createdAt, $0.blockedId) < ($1.createdAt, $1.blockedId) }.map(blockData)
    }

    func blockData(_ block: BlockRecord) -> BlockData { BlockData(user: userRef(block.blockedId), blockedAt: block.createdAt) }

    /// The writes and events that end the pending requests between the blocker and `other`: the blocker's own
    /// cancelled, the other's rejected, each with its event in both logs (as a cancel or a rejection would be).
    private func endPendingRequests(of blocker: String, with other: String, now: Int64) -> ([StoreWrite], [PendingEvent]) {
        var writes: [StoreWrite] = []
        var events: [PendingEvent] = []
        for (from, to, answer) in [(blocker, other, FriendRequestAction.cancel), (other, blocker, .reject)] {
            guard let id = relations.pendingRequests[RelationshipState.pairKey(from, to)],
                  let request = relations.friendRequests[id] else { continue }
            for case .commitResolution(let resolved, let event) in FriendRequestMachine.transition(request, .answer(answer, by: blocker), now: now).1 {
                relations.put(resolved)
                writes.append(.resolveFriendRequest(resolved))
                let data = encode(friendRequestData(resolved))
                events += [PendingEvent(userId: from, type: event.logType, data: data), PendingEvent(userId: to, type: event.logType, data: data)]
            }
        }
        return (writes, events)
    }
}
