/// The push rule of every durable event kind (docs/PUSH.md, "Push rule per event kind"): what a push of it does on
/// the device, or that it is never pushed. Pure; `PushPolicy` builds the jobs and `DeliveryMachine` times the alerts.
///
/// Two principles under the table: what a person must see or answer is an **alert** (waiting for the acknowledgement
/// deadline on devices with a socket, pushed at once to the others); what only keeps an app's lists current is a
/// **background** push to devices without a socket, and only when the user opted in where it is not the app's own
/// state; and the recipient's **own action** (its copy of a message it sent, a block it made) is never an alert.
enum PushRule: Equatable, Sendable {
    /// A visible notification, timed by `DeliveryMachine` with this delay kind.
    case alert(DeliveryMachine.Kind)
    /// A silent push to the devices that are not connected.
    case background(BackgroundGate)
    /// Never pushed: the event reaches the device in the log when it resumes.
    case never

    /// Which setting a background push also needs, beyond `backgroundNotifications`.
    enum BackgroundGate: Equatable, Sendable {
        /// None: the push keeps a notification already shown true (clears an answered approval, ends a session).
        case always
        /// `contactUpdates` (off by default: battery).
        case contactUpdates
    }

    /// The rule for an event of `type` in the log of a user.
    /// - Parameters:
    ///   - notification: the backend attached a `notification` object (`BackendNotification`) to it.
    ///   - ownAction: the user whose log it is caused it (sent the message, made the request, blocked).
    static func rule(for type: LogEventType, notification: Bool = false, ownAction: Bool = false) -> PushRule {
        switch type {
        // A person wrote to the user, or an agent waits for an answer: alerts.
        case .message, .groupMessage:
            return ownAction ? .never : .alert(.standard)
        case .approvalRequest:
            return .alert(.approval)
        // Keeps a shown alert true: an answered or expired request clears it (same collapse id); a moved or ended
        // session updates the device that held it.
        case .approvalResolved, .approvalTimeout, .sessionHandoff, .sessionEnded:
            return .background(.always)
        // Backend-published: pushed only when the backend asks for it, as an alert like a message.
        case .custom, .sessionEvent, .groupEvent:
            return notification ? .alert(.standard) : .never
        // Someone waits for the user's answer.
        case .friendRequest:
            return ownAction ? .background(.contactUpdates) : .alert(.standard)
        // The app's contact list changes; nothing to answer.
        case .friendRequestAccepted, .friendRequestCancelled, .contactAdded, .contactRemoved,
             .groupCreated, .groupMemberJoined, .groupMemberLeft:
            return .background(.contactUpdates)
        // The other side paused or resumed: the app greys out (or restores) the chat; the side that paused knows.
        case .contactPaused, .contactResumed:
            return ownAction ? .never : .background(.contactUpdates)
        // A rejection stays quiet (the requester is not told at once, as in every messenger); app-to-app events
        // between contacts are the apps' data (an app that wants a notice sends a message or has its backend
        // publish `custom` with a notification); the user's own code, invites and blocks are its own doing.
        case .friendRequestRejected, .contactEvent, .connectCodeChanged, .inviteCreated, .sessionCreated,
             .userBlocked, .userUnblocked:
            return .never
        }
    }
}
