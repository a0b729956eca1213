@testable import Gateway
import GatewayProtocol
import Testing

/// `GroupMembership` alone: joining within the limits, former members coming back, leaving and removal rights.
@Suite struct GroupMembershipTests {
    let group = GroupRecord(id: "g1", ownerId: "ann", name: "Family", maxMembers: 3, roleLimits: ["child": 1], createdAt: 1_000)

    func state(_ members: [GroupMemberRecord]) -> GroupMembership.State {
        GroupMembership.State(group: group, members: Dictionary(uniqueKeysWithValues: members.map { ($0.userId, $0) }))
    }

    var owner: GroupMemberRecord { GroupMemberRecord(groupId: "g1", userId: "ann", role: "owner", createdAt: 1_000) }

    @Test func aJoinAddsTheMemberAndTellsEveryActiveMemberIncludingIt() {
        let (next, actions) = GroupMembership.transition(state([owner]), .join(user: "bob", role: "member"), now: 2_000)
        let bob = GroupMemberRecord(groupId: "g1", userId: "bob", role: "member", createdAt: 2_000)
        #expect(next.members["bob"] == bob)
        #expect(actions == [.commitMember(bob, .joined, notify: ["ann", "bob"])])
        #expect(GroupMembership.Event.joined.rawValue == "group_member_joined")
    }

    @Test func aFormerMemberIsReactivatedWithItsOriginalJoinTimeAndNewRole() {
        var former = GroupMemberRecord(groupId: "g1", userId: "bob", role: "member", createdAt: 1_500)
        former.active = false
        let (next, _) = GroupMembership.transition(state([owner, former]), .join(user: "bob", role: "child"), now: 9_000)
        #expect(next.members["bob"] == GroupMemberRecord(groupId: "g1", userId: "bob", role: "child", createdAt: 1_500))
    }

    @Test func joinsAreRefusedForBadRolesMembersAndFullGroups() {
        let bob = GroupMemberRecord(groupId: "g1", userId: "bob", role: "child", createdAt: 2_000)
        let s = state([owner, bob])
        #expect(GroupMembership.transition(s, .join(user: "cid", role: "owner"), now: 3_000).1 == [.refuse(.invalidRole)])
        #expect(GroupMembership.transition(s, .join(user: "cid", role: "Bad Role"), now: 3_000).1 == [.refuse(.invalidRole)])
        #expect(GroupMembership.transition(s, .join(user: "bob", role: "member"), now: 3_000).1 == [.refuse(.alreadyMember)])
        #expect(GroupMembership.transition(s, .join(user: "cid", role: "child"), now: 3_000).1 == [.refuse(.roleFull(role: "child", limit: 1))])
        let (full, _) = GroupMembership.transition(s, .join(user: "cid", role: "member"), now: 3_000)
        #expect(full.active.count == 3)
        #expect(GroupMembership.transition(full, .join(user: "dan", role: "member"), now: 3_000).1 == [.refuse(.full)])
        #expect(GatewayError(.full, group: group).code == .groupFull)
    }

    @Test func leavingTellsEveryoneWhoWasAMemberAndIsASoftDelete() {
        let bob = GroupMemberRecord(groupId: "g1", userId: "bob", role: "member", createdAt: 2_000)
        let (next, actions) = GroupMembership.transition(state([owner, bob]), .remove(user: "bob", by: "bob"), now: 3_000)
        var left = bob
        left.active = false
        #expect(next.members["bob"] == left && next.active.map(\.userId) == ["ann"])
        #expect(actions == [.commitMember(left, .left, notify: ["ann", "bob"])])
        // The owner and the backend remove; another member may not; nobody removes the owner or a non-member.
        #expect(GroupMembership.transition(state([owner, bob]), .remove(user: "bob", by: "ann"), now: 3_000).1.count == 1)
        #expect(GroupMembership.transition(state([owner, bob]), .remove(user: "bob", by: nil), now: 3_000).1.count == 1)
        #expect(GroupMembership.transition(state([owner, bob]), .remove(user: "ann", by: "bob"), now: 3_000).1 == [.refuse(.onlyTheOwnerRemoves)])
        #expect(GroupMembership.transition(state([owner, bob]), .remove(user: "ann", by: "ann"), now: 3_000).1 == [.refuse(.ownerCannotLeave)])
        #expect(GroupMembership.transition(next, .remove(user: "bob", by: nil), now: 3_000).1 == [.refuse(.notAMember(user: "bob"))])
    }

    /// Another node's join won: the store's rows replace the known ones, and the join decided again on them is
    /// refused by the limit it reached (or as already a member), with nothing to commit.
    @Test func aJoinDecidedAgainOnTheStoresRowsIsRefusedByTheLimitTheyReach() {
        let carol = GroupMemberRecord(groupId: "g1", userId: "carol", role: "child", createdAt: 1_500)
        let (stored, actions) = GroupMembership.transition(state([owner]), .storeDecided(group: group, members: [owner, carol]), now: 2_000)
        #expect(actions.isEmpty && stored == state([owner, carol]))
        #expect(GroupMembership.transition(stored, .join(user: "bob", role: "child"), now: 2_000).1 == [.refuse(.roleFull(role: "child", limit: 1))])
        #expect(GroupMembership.transition(stored, .join(user: "carol", role: "member"), now: 2_000).1 == [.refuse(.alreadyMember)])
        let dave = GroupMemberRecord(groupId: "g1", userId: "dave", role: "member", createdAt: 1_600)
        let (full, _) = GroupMembership.transition(stored, .storeDecided(group: group, members: [owner, carol, dave]), now: 2_000)
        #expect(GroupMembership.transition(full, .join(user: "bob", role: "member"), now: 2_000).1 == [.refuse(.full)])
    }

    /// The one capacity rule the stores decide with: inactive rows do not count.
    @Test func capacityCountsActiveMembersOnly() {
        var left = GroupMemberRecord(groupId: "g1", userId: "carol", role: "child", createdAt: 1_500)
        left.active = false
        #expect(group.capacityRefusal(joining: "child", members: [owner, left]) == nil)
        left.active = true
        #expect(group.capacityRefusal(joining: "child", members: [owner, left]) == .roleFull(role: "child", limit: 1))
        #expect(group.capacityRefusal(joining: "member", members: [owner, left]) == nil)
    }
}
