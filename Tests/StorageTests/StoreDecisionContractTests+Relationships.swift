import Gateway
import Testing
@testable import Storage

/// Friend requests and group joins, decided by every store in the commit's transaction.
extension StoreDecisionContractTests {
    static let marker = UserRecord(id: "loser-was-here", hexCode: "00000001", createdAt: 1)

    @Test(arguments: StoreFactory.all)
    func aPairHasOnePendingFriendRequestInEitherDirection(factory: StoreFactory) throws {
        let s = try factory.open()
        let annToBob = FriendRequestRecord(id: "frq_1", fromUserId: "ann", toUserId: "bob", createdAt: 1)
        let bobToAnn = FriendRequestRecord(id: "frq_2", fromUserId: "bob", toUserId: "ann", createdAt: 2)
        let again = FriendRequestRecord(id: "frq_3", fromUserId: "ann", toUserId: "bob", createdAt: 3)
        let annToCarol = FriendRequestRecord(id: "frq_4", fromUserId: "ann", toUserId: "carol", createdAt: 4)
        #expect(s.write([.createFriendRequest(annToBob)], [.upsertUser(Self.marker), .createFriendRequest(bobToAnn)],
                        [.createFriendRequest(again)], [.createFriendRequest(annToCarol)])
                == [nil, .friendRequestPending(current: annToBob), .friendRequestPending(current: annToBob), nil])
        #expect(try s.store.loadSnapshot().users.isEmpty)   // the loser's whole batch went
        #expect(try s.store.loadSnapshot().friendRequests == [annToBob, annToCarol])
        // Once answered, the pair may start again, from either side.
        var rejected = annToBob
        rejected.state = .rejected
        rejected.resolvedAt = 5
        #expect(s.write([.resolveFriendRequest(rejected)], [.createFriendRequest(bobToAnn)]) == [nil, nil])
        #expect(try s.store.loadSnapshot().friendRequests == [rejected, annToCarol, bobToAnn])
    }

    @Test(arguments: StoreFactory.all)
    func aFriendRequestIsAnsweredOnce(factory: StoreFactory) throws {
        let s = try factory.open()
        let request = FriendRequestRecord(id: "frq_1", fromUserId: "ann", toUserId: "bob", createdAt: 1)
        #expect(s.write([.createFriendRequest(request)]) == [nil])
        var accepted = request
        accepted.state = .accepted
        accepted.resolvedAt = 5
        var cancelled = request
        cancelled.state = .cancelled
        cancelled.resolvedAt = 6
        #expect(s.write([.resolveFriendRequest(accepted)], [.upsertUser(Self.marker), .resolveFriendRequest(cancelled)])
                == [nil, .friendRequestResolved(current: accepted)])
        #expect(try s.store.loadSnapshot().friendRequests == [accepted])
        #expect(try s.store.loadSnapshot().users.isEmpty)
        var unknown = cancelled
        unknown.id = "frq_9"
        #expect(s.write([.resolveFriendRequest(unknown)]) == [.friendRequestResolved(current: nil)])
    }

    @Test(arguments: StoreFactory.all)
    func aGroupJoinIsDecidedWithinTheGroupsLimits(factory: StoreFactory) throws {
        let s = try factory.open()
        let group = GroupRecord(id: "g1", ownerId: "ann", name: "Family", maxMembers: 3, roleLimits: ["parent": 1], createdAt: 1)
        let owner = GroupMemberRecord(groupId: "g1", userId: "ann", role: "owner", createdAt: 1)
        let bob = GroupMemberRecord(groupId: "g1", userId: "bob", role: "parent", createdAt: 2)
        #expect(s.write([.upsertGroup(group), .upsertGroupMember(owner)]) == [nil])
        // A second parent, the same member twice, and a member beyond the size each lose their whole batch.
        let carolParent = GroupMemberRecord(groupId: "g1", userId: "carol", role: "parent", createdAt: 3)
        let dave = GroupMemberRecord(groupId: "g1", userId: "dave", role: "member", createdAt: 4)
        let erin = GroupMemberRecord(groupId: "g1", userId: "erin", role: "member", createdAt: 5)
        #expect(s.write([.joinGroup(bob)], [.upsertUser(Self.marker), .joinGroup(carolParent)], [.joinGroup(bob)],
                        [.joinGroup(dave)], [.joinGroup(erin)])
                == [nil, .groupJoinRefused(group: group, members: [owner, bob]), .groupJoinRefused(group: group, members: [owner, bob]),
                    nil, .groupJoinRefused(group: group, members: [owner, bob, dave])])
        #expect(try s.store.loadSnapshot().users.isEmpty)
        // A member who left makes room; rejoining reactivates the row and keeps its first join time.
        var left = dave
        left.active = false
        var back = dave
        back.createdAt = 9
        #expect(s.write([.upsertGroupMember(left)], [.joinGroup(back)]) == [nil, nil])
        #expect(try s.store.loadSnapshot().groupMembers.filter(\.active).sorted { $0.userId < $1.userId } == [owner, bob, dave])
        #expect(s.write([.joinGroup(GroupMemberRecord(groupId: "g2", userId: "bob", role: "member", createdAt: 1))])
                == [.groupJoinRefused(group: nil, members: [])])
    }
}
