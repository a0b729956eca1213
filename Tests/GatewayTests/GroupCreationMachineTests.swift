@testable import Gateway
import GatewayProtocol
import Testing

/// `GroupCreationMachine` alone: the created group and its owner, the defaults, and every refusal in rule order.
@Suite struct GroupCreationMachineTests {
    let limits = RelationshipSettings()

    func create(_ request: GroupCreationMachine.Request, ownerExists: Bool = true, existing: GroupRecord? = nil)
        -> (GroupRecord?, [GroupCreationMachine.Action]) {
        GroupCreationMachine.transition(existing, .create(request, ownerExists: ownerExists), limits: limits, now: 5_000)
    }

    func request(name: String = "Family", kind: String? = nil, maxMembers: Int? = nil, invitePolicy: String? = nil,
                 roleLimits: [String: Int]? = nil) -> GroupCreationMachine.Request {
        .init(ownerId: "olga", id: "fam", name: name, kind: kind, maxMembers: maxMembers, invitePolicy: invitePolicy, roleLimits: roleLimits)
    }

    func refusal(_ result: (GroupRecord?, [GroupCreationMachine.Action])) -> GroupCreationMachine.Refusal? {
        guard case .refuse(let refusal)? = result.1.first, result.1.count == 1 else { return nil }
        return refusal
    }

    func refusedName(_ result: (GroupRecord?, [GroupCreationMachine.Action])) -> String? {
        guard case .invalidName(let problem)? = refusal(result) else { return nil }
        return problem
    }

    @Test func createsTheGroupWithItsOwnerAsFirstMemberAndTheDefaults() {
        let (group, actions) = create(request(name: "  Family \n"))
        let expected = GroupRecord(id: "fam", ownerId: "olga", name: "Family", kind: "group", maxMembers: 12, invitePolicy: "members",
                                   roleLimits: [:], createdAt: 5_000)
        #expect(group == expected)
        #expect(actions == [.commit(expected, owner: GroupMemberRecord(groupId: "fam", userId: "olga", role: "owner", createdAt: 5_000), .created)])
        #expect(GroupCreationMachine.Event.created.rawValue == "group_created")
    }

    @Test func takesTheChosenFields() {
        let (group, _) = create(request(kind: "family", maxMembers: 256, invitePolicy: "owner", roleLimits: ["parent": 2, "kid": 0]))
        #expect(group?.kind == "family" && group?.maxMembers == 256 && group?.invitePolicy == GroupInvitePolicy.owner.rawValue)
        #expect(group?.roleLimits == ["parent": 2, "kid": 0])
        #expect(create(request(maxMembers: 1)).0?.maxMembers == 1)
        #expect(create(request(name: String(repeating: "é", count: 64))).0 != nil)
    }

    @Test func refusesEachFieldRule() {
        #expect(refusal(create(request(), ownerExists: false)) == .ownerNotFound("olga"))
        for name in ["", "   ", String(repeating: "x", count: 65), "a\u{7}b"] {
            #expect(refusedName(create(request(name: name))) != nil)
        }
        for max in [0, -1, 257] { #expect(refusal(create(request(maxMembers: max))) == .invalidMaxMembers(limit: 256)) }
        for kind in ["", "Family", "a b", String(repeating: "k", count: 33)] { #expect(refusal(create(request(kind: kind))) == .invalidKind) }
        #expect(refusal(create(request(invitePolicy: "anyone"))) == .invalidInvitePolicy)
        for limits in [["owner": 1], ["Parent": 1], ["kid": -1]] {
            #expect(refusal(create(request(roleLimits: limits))) == .invalidRoleLimits)
        }
        let existing = GroupRecord(id: "fam", ownerId: "pete", name: "Other", maxMembers: 3, createdAt: 1)
        #expect(create(request(), existing: existing) == (existing, [.refuse(.idTaken("fam"))]))
    }

    /// Group names are quoted in invite texts sent by SMS and e-mail: the display-name rules keep out characters that
    /// reorder or hide text.
    @Test(arguments: [
        "Family\u{202E}gnp.exe", "\u{2067}Family", "Fam\u{200B}ily", "a\u{200E}b", "a\u{FEFF}b", "ok\u{E0041}",
    ])
    func formatCharactersInANameAreRefused(_ name: String) {
        let problem = refusedName(create(request(name: name)))
        #expect(problem?.contains("format characters") == true, "\(name.debugDescription): \(String(describing: problem))")
        #expect(GatewayError(GroupCreationMachine.Refusal.invalidName(problem ?? "")).code == .invalidField)
    }

    @Test(arguments: ["Family", "Zoë's 李雷", "👩\u{200D}💻 team", "مرحبا"])
    func ordinaryNamesPass(_ name: String) {
        #expect(create(request(name: name)).0?.name == name)
    }

    @Test func refusesInRuleOrder() {
        // The owner before the fields, the fields before the id.
        #expect(refusal(create(request(name: ""), ownerExists: false)) == .ownerNotFound("olga"))
        #expect(refusedName(create(request(name: "", maxMembers: 0))) != nil)
        let existing = GroupRecord(id: "fam", ownerId: "pete", name: "Other", maxMembers: 3, createdAt: 1)
        #expect(refusal(create(request(kind: "Bad"), existing: existing)) == .invalidKind)
    }

    @Test func refusalsKeepTheirWireErrors() {
        #expect(GatewayError(GroupCreationMachine.Refusal.ownerNotFound("olga")).code == .userNotFound)
        #expect(GatewayError(GroupCreationMachine.Refusal.invalidMaxMembers(limit: 256)).message == "maxMembers must be 1 to 256")
        #expect(GatewayError(GroupCreationMachine.Refusal.idTaken("fam")).message == "group \"fam\" already exists")
    }
}
