import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSession for plain HTTP on Linux
#endif

/// The account and device lifecycle calls a device makes with its own token (docs/PROTOCOL.md, "Account and device
/// lifecycle"): in-app account deletion, and revoking a lost device. Plain HTTP calls, with or without a connected
/// ``SwitchboardClient``; a client whose socket the gateway closes for them stops (4010 / 4011: ``ReconnectPolicy``).
public enum AccountLifecycle {
    private struct Done: Decodable { var ok: Bool }

    /// `DELETE /v1/users/me`: deletes the user of `token` and everything stored of theirs (devices, tokens, push
    /// tokens, sessions, approvals, relationships, their log and messages). Every socket of the user closes with
    /// 4010 and the token is refused from then on. `gateway`: the gateway's base URL (`https://…` or `wss://…`).
    /// Throws ``ClientError/server(code:message:)`` for a refusal (`token_revoked`, `token_invalid`).
    public static func deleteAccount(gateway: String, token: String, session: URLSession = .shared) async throws {
        let _: Done = try await StandaloneDevice.send(
            "DELETE", "/v1/users/me", nil, gateway: gateway, token: token, session: session)
    }

    /// `DELETE /v1/users/me/devices/{deviceId}`: revokes one device of the user of `token` (this one too): its
    /// sockets close with 4011, its push tokens go and its tokens are refused from then on. A device id the user
    /// does not have (another user's) throws ``ClientError/server(code:message:)`` with `not_found`.
    public static func revokeDevice(_ deviceId: String, gateway: String, token: String, session: URLSession = .shared)
        async throws
    {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        guard let segment = deviceId.addingPercentEncoding(withAllowedCharacters: allowed) else {
            throw ClientError.invalidReply("device id \(deviceId) cannot be put in a path")
        }
        let _: Done = try await StandaloneDevice.send(
            "DELETE", "/v1/users/me/devices/" + segment, nil, gateway: gateway, token: token,
            session: session)
    }
}
