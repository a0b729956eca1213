@testable import Gateway
import GatewayProtocol
import Testing

/// `ContactMachine` alone: adding (new, reactivated keeping the creation time, already contacts), removing (soft,
/// clearing the pauses, again), and the refusals.
@Suite struct ContactMachineTests {
    typealias M = ContactMachine
    let fresh = M.State(a: "ann", b: "bob")

    func row(_ user: String, _ contact: String, at: Int64, active: Bool = true) -> ContactRecord {
        ContactRecord(userId: user, contactId: contact, createdAt: at, active: active)
    }

    @Test func addingMakesBothRowsAndExchangesPresence() {
        let (added, actions) = M.transition(fresh, .add(missingUser: nil), now: 50)
        #expect(added == M.State(a: "ann", b: "bob", aToB: row("ann", "bob", at: 50), bToA: row("bob", "ann", at: 50)) && added.areContacts)
        #expect(actions == [.commit([row("ann", "bob", at: 50), row("bob", "ann", at: 50)], .added), .exchangePresence])
        #expect(M.Event.added.rawValue == "contact_added" && M.Event.removed.rawValue == "contact_removed")
        // Again: nothing to do.
        #expect(M.transition(added, .add(missingUser: nil), now: 60) == (added, []))
    }

    @Test func addingARemovedContactReactivatesItKeepingItsCreationTime() {
        let removed = M.State(a: "ann", b: "bob", aToB: row("ann", "bob", at: 5, active: false), bToA: row("bob", "ann", at: 6, active: false))
        let (added, actions) = M.transition(removed, .add(missingUser: nil), now: 50)
        #expect(actions.first == .commit([row("ann", "bob", at: 5), row("bob", "ann", at: 6)], .added) && added.areContacts)
    }

    @Test func removingIsASoftDeleteOfBothRowsThatClearsThePauses() {
        let contacts = M.State(a: "ann", b: "bob", aToB: row("ann", "bob", at: 5), bToA: row("bob", "ann", at: 6))
        let (removed, actions) = M.transition(contacts, .remove, now: 50)
        let rows = [row("ann", "bob", at: 5, active: false), row("bob", "ann", at: 6, active: false)]
        #expect(removed == M.State(a: "ann", b: "bob", aToB: rows[0], bToA: rows[1]) && !removed.areContacts)
        #expect(actions == [.clearPauses, .commit(rows, .removed)])
        // A removed contact is removed again (both logs hear of it); only a pair that never was contacts is refused.
        #expect(M.transition(removed, .remove, now: 60).1 == [.clearPauses, .commit(rows, .removed)])
        let oneSided = M.State(a: "ann", b: "bob", aToB: nil, bToA: row("bob", "ann", at: 6))
        #expect(M.transition(oneSided, .remove, now: 60).1 == [.clearPauses, .commit([rows[1]], .removed)])
    }

    @Test func refusals() {
        #expect(M.transition(M.State(a: "ann", b: "ann"), .add(missingUser: nil), now: 1) == (M.State(a: "ann", b: "ann"), [.refuse(.ownContact)]))
        #expect(M.transition(fresh, .add(missingUser: "bob"), now: 1) == (fresh, [.refuse(.userNotFound("bob"))]))
        #expect(M.transition(fresh, .remove, now: 1) == (fresh, [.refuse(.notAContact("ann", "bob"))]))
        #expect(GatewayError(M.Refusal.ownContact) == GatewayError(.invalidField, "a user cannot be their own contact"))
        #expect(GatewayError(M.Refusal.notAContact("ann", "bob")) == GatewayError(.notAContact, "\"ann\" and \"bob\" are not contacts"))
    }
}
