#if canImport(ActivityKit) && os(iOS)
import ActivityKit
import Foundation

/// Registers the Live Activity tokens of `Attributes` with the gateway as iOS hands them out (docs/PUSH.md): the
/// push-to-start token (so an approval can start an activity on a phone whose app is not running) and each running
/// activity's update token, for the session the activity shows. Tokens rotate: every new value is registered again.
///
/// ```swift
/// let observer = LiveActivityTokens.observe(ApprovalActivity.self, client: client, environment: .production) { activity in
///     activity.attributes.sessionId
/// }
/// // observer.cancel() stops observing (e.g. on sign-out).
/// ```
@available(iOS 17.2, *)
public enum LiveActivityTokens {
    /// Starts observing; returns the task doing it. `sessionId` names the session an activity shows (nil: not one
    /// of the gateway's, its token is not registered). A failed registration is retried with the next token
    /// change, or when the app observes again after reconnecting.
    public static func observe<Attributes: ActivityAttributes>(
        _ attributes: Attributes.Type, client: SwitchboardClient, environment: APNsEnvironment,
        sessionId: @escaping @Sendable (Activity<Attributes>) -> String?
    ) -> Task<Void, Never> {
        Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await token in Activity<Attributes>.pushToStartTokenUpdates {
                        try? await client.registerLiveActivityPushToStart(token: hex(token), environment: environment)
                    }
                }
                group.addTask {
                    // The activities already running (also those started by a push while the app was not running),
                    // then each new one.
                    await withTaskGroup(of: Void.self) { activities in
                        for activity in Activity<Attributes>.activities {
                            activities.addTask { await updates(of: activity, client, environment, sessionId) }
                        }
                        for await activity in Activity<Attributes>.activityUpdates {
                            activities.addTask { await updates(of: activity, client, environment, sessionId) }
                        }
                    }
                }
            }
        }
    }

    private static func updates<Attributes: ActivityAttributes>(
        of activity: Activity<Attributes>, _ client: SwitchboardClient, _ environment: APNsEnvironment,
        _ sessionId: @Sendable (Activity<Attributes>) -> String?
    ) async {
        guard let session = sessionId(activity) else { return }
        for await token in activity.pushTokenUpdates {
            try? await client.registerLiveActivityUpdate(token: hex(token), sessionId: session, environment: environment)
        }
    }

    /// APNs tokens are sent as lower-case hex.
    static func hex(_ token: Data) -> String {
        token.map { String(format: "%02x", $0) }.joined()
    }
}
#endif
