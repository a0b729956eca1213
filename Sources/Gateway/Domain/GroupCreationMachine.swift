import GatewayProtocol

/// Who may invite into a group (the `invitePolicy` wire and database string).
enum GroupInvitePolicy: String, Equatable {
    /// Any active member.
    case members
    case owner
}

/// Creating a group as a pure state machine: `nothing --create--> created` (the group and its owner as the first
/// member, role `owner`) when the owner exists, the fields keep their rules and a chosen id is free; refused
/// otherwise, in the order clients see the rules. No threads, clock, store or randomness: the hub draws the id when
/// none is chosen, reads a chosen id's group first, and commits the rows with `group_created` in the owner's log.
struct GroupCreationMachine {
    /// A group name's length bound, in characters after trimming.
    static let maxNameCharacters = 64

    /// What a creator asks for; nil fields take the defaults of `RelationshipSettings`.
    struct Request: Equatable {
        var ownerId: String
        /// The id the creator chose, or the one the hub drew.
        var id: String
        var name: String
        var kind: String?
        var maxMembers: Int?
        var invitePolicy: String?
        var roleLimits: [String: Int]?
    }

    enum Input: Equatable {
        /// `ownerExists`: the owner is a user.
        case create(Request, ownerExists: Bool)
    }

    enum Refusal: Error, Equatable {
        case ownerNotFound(String)
        /// The name breaks the shown-name rules (`GatewayHub.shownNameProblem`): the rule that failed.
        case invalidName(String)
        /// `maxMembers` outside 1…`limit`.
        case invalidMaxMembers(limit: Int)
        case invalidKind
        case invalidInvitePolicy
        case invalidRoleLimits
        case idTaken(String)
    }

    /// The event a created group appends to its owner's log.
    enum Event: String, Equatable {
        case created = "group_created"
    }

    enum Action: Equatable {
        /// Commit the group and its owner's member row with `event` in the owner's log.
        case commit(GroupRecord, owner: GroupMemberRecord, Event)
        case refuse(Refusal)
    }

    /// `state`: the group stored under the requested id, if any (nil before creation).
    static func transition(_ state: GroupRecord?, _ input: Input, limits: RelationshipSettings, now: Int64) -> (GroupRecord?, [Action]) {
        switch input {
        case .create(let request, let ownerExists):
            switch validated(request, ownerExists: ownerExists, limits: limits) {
            case .failure(let refusal): return (state, [.refuse(refusal)])
            case .success(let group):
                guard state == nil else { return (state, [.refuse(.idTaken(request.id))]) }
                var created = group
                created.createdAt = now
                let owner = GroupMemberRecord(groupId: created.id, userId: created.ownerId, role: "owner", createdAt: now)
                return (created, [.commit(created, owner: owner, .created)])
            }
        }
    }

    /// The field rules; the group (its `createdAt` still 0) when they hold.
    private static func validated(_ request: Request, ownerExists: Bool, limits: RelationshipSettings) -> Result<GroupRecord, Refusal> {
        guard ownerExists else { return .failure(.ownerNotFound(request.ownerId)) }
        // The display-name rules: a group's name is shown to its members and quoted in every invite text.
        let name = request.name.trimmedOfWhitespace
        if let problem = GatewayHub.shownNameProblem(name, what: "name", maxCharacters: maxNameCharacters) { return .failure(.invalidName(problem)) }
        let maxMembers = request.maxMembers ?? limits.defaultGroupMembers
        guard (1...limits.maxGroupMembers).contains(maxMembers) else { return .failure(.invalidMaxMembers(limit: limits.maxGroupMembers)) }
        let kind = request.kind ?? "group"
        guard GatewayHub.validRole(kind) else { return .failure(.invalidKind) }
        guard let policy = GroupInvitePolicy(rawValue: request.invitePolicy ?? GroupInvitePolicy.members.rawValue) else {
            return .failure(.invalidInvitePolicy)
        }
        let roleLimits = request.roleLimits ?? [:]
        guard !roleLimits.contains(where: { !GatewayHub.validRole($0.key) || $0.key == "owner" || $0.value < 0 }) else {
            return .failure(.invalidRoleLimits)
        }
        return .success(GroupRecord(id: request.id, ownerId: request.ownerId, name: name, kind: kind, maxMembers: maxMembers,
                                    invitePolicy: policy.rawValue, roleLimits: roleLimits, createdAt: 0))
    }
}

extension GatewayError {
    /// The wire error for a refused group creation.
    init(_ refusal: GroupCreationMachine.Refusal) {
        switch refusal {
        case .ownerNotFound(let id): self.init(.userNotFound, "no user \"\(id)\"")
        case .invalidName(let problem): self.init(.invalidField, problem)
        case .invalidMaxMembers(let limit): self.init(.invalidField, "maxMembers must be 1 to \(limit)")
        case .invalidKind: self.init(.invalidField, "kind must be 1 to 32 of a-z, 0-9, _ and -")
        case .invalidInvitePolicy: self.init(.invalidField, "invitePolicy must be \"members\" or \"owner\"")
        case .invalidRoleLimits: self.init(.invalidField, "roleLimits maps roles (a-z, 0-9, _ and -; not owner) to counts of 0 or more")
        case .idTaken(let id): self.init(.invalidField, "group \"\(id)\" already exists")
        }
    }
}
