import GatewayProtocol

/// The contact between two users as a pure state machine over its two rows (one per direction): `add` makes both
/// active (a removed contact is reactivated and keeps its creation time; adding a contact again changes nothing),
/// `remove` is a soft delete of both rows that also clears the pauses, so a later reconnection starts unpaused.
/// No threads, clock or store: the hub checks the users, commits the rows with `contact_added`/`contact_removed` in
/// both users' logs (and, on an add, accepts any pending friend request between the two in the same batch), and
/// exchanges presence after an add.
struct ContactMachine {
    /// The pair's rows.
    struct State: Equatable {
        var a: String
        var b: String
        /// `a`'s row for `b`; nil when the two were never contacts.
        var aToB: ContactRecord?
        var bToA: ContactRecord?

        var areContacts: Bool { aToB?.active == true && bToA?.active == true }
    }

    enum Input: Equatable {
        /// `missingUser`: the first of the two that is not a user, if any.
        case add(missingUser: String?)
        case remove
    }

    enum Refusal: Error, Equatable {
        case ownContact
        case userNotFound(String)
        case notAContact(String, String)
    }

    /// The event a change appends to both users' logs.
    enum Event: String, Equatable {
        case added = "contact_added"
        case removed = "contact_removed"
    }

    enum Action: Equatable {
        /// Delete the pauses between the two (before a removal's rows).
        case clearPauses
        /// Commit the rows with `event` in both users' logs.
        case commit([ContactRecord], Event)
        /// After the commit: each sees the other's presence.
        case exchangePresence
        case refuse(Refusal)
    }

    static func transition(_ state: State, _ input: Input, now: Int64) -> (State, [Action]) {
        var next = state
        switch input {
        case .add(let missingUser):
            guard state.a != state.b else { return (state, [.refuse(.ownContact)]) }
            if let missingUser { return (state, [.refuse(.userNotFound(missingUser))]) }
            guard !state.areContacts else { return (state, []) }
            next.aToB = active(state.aToB ?? ContactRecord(userId: state.a, contactId: state.b, createdAt: now), true)
            next.bToA = active(state.bToA ?? ContactRecord(userId: state.b, contactId: state.a, createdAt: now), true)
            return (next, [.commit([next.aToB!, next.bToA!], .added), .exchangePresence])
        case .remove:
            guard state.aToB != nil || state.bToA != nil else { return (state, [.refuse(.notAContact(state.a, state.b))]) }
            next.aToB = state.aToB.map { active($0, false) }
            next.bToA = state.bToA.map { active($0, false) }
            return (next, [.clearPauses, .commit([next.aToB, next.bToA].compactMap { $0 }, .removed)])
        }
    }

    private static func active(_ row: ContactRecord, _ active: Bool) -> ContactRecord {
        var row = row
        row.active = active
        return row
    }
}

extension GatewayError {
    /// The wire error for a refused contact change.
    init(_ refusal: ContactMachine.Refusal) {
        switch refusal {
        case .ownContact: self.init(.invalidField, "a user cannot be their own contact")
        case .userNotFound(let id): self.init(.userNotFound, "no user \"\(id)\": users are created first (POST /v1/users, or a first connect with their token)")
        case .notAContact(let a, let b): self.init(.notAContact, "\"\(a)\" and \"\(b)\" are not contacts")
        }
    }
}
