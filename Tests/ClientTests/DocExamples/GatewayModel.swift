import Observation
import SwitchboardClient

/// What the screen shows — the pending approval and the handoff banner — fed by the client's events.
@MainActor @Observable final class GatewayModel {
    var approval: ApprovalData?
    var banner: String?
    /// The server's clock as measured at the last connection: the countdown uses it, not the phone's clock.
    var clock = ServerClock()
    let client: SwitchboardClient
    let deviceId: String

    init(client: SwitchboardClient, deviceId: String) { self.client = client; self.deviceId = deviceId }

    func run() async {
        await client.connect()
        for await event in client.events {
            switch event {
            case .connection(.connected): clock = await client.serverClock
            case .approvalRequest(let request): approval = request
            case .approvalResolved(let done), .approvalTimeout(let done):
                if approval?.requestId == done.requestId { approval = nil }
            case .sessionHandoff(let handoff) where handoff.previous.deviceId == deviceId:
                banner = handoff.handedOffTo.clientType == "desktop" ? "Continued on your Mac" : "Continued on another device"
            case .sessionHandoff(let handoff) where handoff.handedOffTo.deviceId == deviceId: banner = nil  // ours again
            case .resync: approval = try? await client.pendingApprovals().approvals.first
            default: break
            }
        }
    }

    func answer(approve: Bool) async throws {
        guard let id = approval?.requestId else { return }
        do { _ = approve ? try await client.approve(id) : try await client.deny(id) }
        catch let error as ClientError where error.isApprovalAlreadyResolved || error.isApprovalExpired {}  // decided elsewhere
        approval = nil
    }
}
