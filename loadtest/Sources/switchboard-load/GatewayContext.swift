import EventLoop
import Glibc
import JSON

/// What a workload gets from its coordinator. Loop-confined.
struct GatewayContext: @unchecked Sendable {
    // @unchecked: loop-confined; Sendable only so completions can carry it back to its loop.
    let driver: LoopDriver
    let backend: BackendPool
    let environment: GatewayEnvironment
    /// Prefix of this component's user ids.
    let prefix: String

    var loop: EventLoop { driver.loop }
    var minter: JWTMinter { environment.minter }

    /// A device on the planned or an extra connection.
    func device(handler: GatewayDeviceHandler, userId: String, deviceId: String, clientType: String, tag: Int,
                slot: Int, resumeOffset: Int64? = nil) -> GatewayDevice {
        GatewayDevice(driver: driver, handler: handler, minter: minter, basePath: environment.basePath, userId: userId,
                      deviceId: deviceId, clientType: clientType, tag: tag, slot: slot, resumeOffset: resumeOffset)
    }

    /// Queues a server-API call; `completion` runs on the loop with the result and the call's latency in µs.
    func call(_ method: String, _ path: String, body: @escaping @Sendable (UInt64) -> String?,
              completion: @escaping (Result<APIClient.Response, APIClient.Failure>, UInt64) -> Void) {
        let loop = self.loop
        let hop = UnsafeTransfer(completion)
        backend.submit(BackendPool.Job(method: method, path: path, body: body) { result, sentAt in
            let micros = MonotonicClock.microseconds(since: sentAt)
            loop.execute { hop.value(result, micros) }
        })
    }

    /// Records an API failure as an error kind ("api_409", "api_connect").
    func recordAPIFailure(_ result: Result<APIClient.Response, APIClient.Failure>) {
        switch result {
        case .success(let response): driver.recordError("api_\(response.status)")
        case .failure(let failure): driver.recordError(failure.kind)
        }
    }
}

/// Moves a loop-confined value into a `@Sendable` closure that only runs it back on the same loop.
struct UnsafeTransfer<T>: @unchecked Sendable {
    // @unchecked: the value is only used back on the loop it came from.
    let value: T
    init(_ value: T) { self.value = value }
}

extension Dictionary where Key == String, Value == JSONValue {
    func int(_ key: String) -> Int64? { self[key]?.int64Value }
    func string(_ key: String) -> String? { self[key]?.stringValue }
    func object(_ key: String) -> [String: JSONValue] {
        if case .object(let object)? = self[key] { return object }
        return [:]
    }
}

/// Wall-clock microseconds (CLOCK_REALTIME), for comparing with the server's Unix-millisecond timestamps.
func wallClockMicroseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
}
