/// The gateway's clock as seen from this device: the difference between `welcome.serverTime` and the device's clock
/// when the `welcome` arrived. Approval deadlines (`expiresAt`) are server times, so a countdown computed from a
/// device clock that is a minute off would be a minute off; one computed with this offset is not (the JavaScript
/// client does the same). ``SwitchboardClient/serverClock`` holds the current estimate, measured at every connection.
public struct ServerClock: Sendable, Equatable {
    /// Server time minus device time, in milliseconds (0 before the first `welcome`). It includes the `welcome`'s
    /// network delay, so it errs by up to one trip.
    public var offsetMilliseconds: Int64

    public init(offsetMilliseconds: Int64 = 0) { self.offsetMilliseconds = offsetMilliseconds }

    /// The offset measured from a `welcome` with `serverTime`, received when the device clock read `deviceNow`.
    public init(serverTime: Int64, receivedAt deviceNow: Int64) { offsetMilliseconds = serverTime - deviceNow }

    /// The server's time now, Unix milliseconds, when the device clock reads `deviceNow`.
    public func serverNow(deviceNow: Int64) -> Int64 { deviceNow + offsetMilliseconds }

    /// Seconds left to answer `approval` when the device clock reads `deviceNow`: never below 0, and never more than
    /// the request's whole lifetime (`expiresAt - createdAt`), which an offset inflated by a slow `welcome` could
    /// otherwise show.
    public func remainingSeconds(of approval: ApprovalData, deviceNow: Int64) -> Double {
        let left = approval.expiresAt - serverNow(deviceNow: deviceNow)
        let lifetime = approval.expiresAt - approval.createdAt
        return Double(max(0, min(left, lifetime))) / 1000
    }

    /// True once the deadline has passed on the server's clock (the server will send `approval_timeout`).
    public func isExpired(_ approval: ApprovalData, deviceNow: Int64) -> Bool {
        serverNow(deviceNow: deviceNow) >= approval.expiresAt
    }
}
