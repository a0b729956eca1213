/// The pauses on one contact as one side sees them, as a pure state machine: each side pauses and resumes its own
/// pause (both idempotent); the contact is paused while either side's pause stands. No threads, clock or store: the
/// hub commits the pause row with a `contact_paused`/`contact_resumed` event in both users' logs.
struct ContactPauseMachine {
    /// The pauses between the actor and its contact.
    struct State: Equatable {
        /// The actor's own pause.
        var byMe: ContactPauseRecord?
        var byThem: Bool
        var paused: Bool { byMe != nil || byThem }
    }

    enum Input: Equatable {
        /// `by` pauses its contact `contact`.
        case pause(by: String, contact: String)
        case resume
    }

    /// The event a change appends to both users' logs.
    enum Event: String, Equatable {
        case paused = "contact_paused"
        case resumed = "contact_resumed"
    }

    enum Action: Equatable {
        /// Commit the actor's pause row with the event; `paused`: whether the contact is paused after it.
        case commitPause(ContactPauseRecord, Event, paused: Bool)
        /// Delete the actor's pause row with the event.
        case commitResume(Event, paused: Bool)
        /// After the commit: nothing pauses the contact any more, so the two see each other's presence again.
        case exchangePresence
        /// Not a contact (`not_a_contact`).
        case refuseNotAContact
    }

    static func transition(_ state: State, _ input: Input, isContact: Bool, now: Int64) -> (State, [Action]) {
        guard isContact else { return (state, [.refuseNotAContact]) }
        var next = state
        switch input {
        case .pause(let user, let contact):
            guard state.byMe == nil else { return (state, []) }
            let pause = ContactPauseRecord(userId: user, contactId: contact, pausedAt: now)
            next.byMe = pause
            return (next, [.commitPause(pause, .paused, paused: true)])
        case .resume:
            guard state.byMe != nil else { return (state, []) }
            next.byMe = nil
            return (next, [.commitResume(.resumed, paused: next.paused)] + (next.paused ? [] : [.exchangePresence]))
        }
    }
}
