import Foundation
import SwitchboardClient

/// A `SwitchboardClient` for one device of a test gateway, with its events collected as they are handled.
final class TestDevice: @unchecked Sendable {
    // @unchecked: `seen` is guarded by `lock`; the rest is immutable.
    let client: SwitchboardClient
    let tokens = Recorder<SwitchboardClient.TokenRequest>()
    private let lock = NSLock()
    private var seen: [ClientEvent] = []
    private var consumer: Task<Void, Never>?

    /// `token` mints a token for each request (default: a valid one for `user`/`device`).
    init(port: @escaping @Sendable () -> UInt16, user: String, device: String, clientType: String = "ios",
         offsetStore: any OffsetStore = InMemoryOffsetStore(),
         token: (@Sendable (SwitchboardClient.TokenRequest) -> String)? = nil,
         configure: (inout SwitchboardClient.Configuration) -> Void = { _ in }) {
        let tokens = self.tokens
        var configuration = SwitchboardClient.Configuration(url: "ws://127.0.0.1:\(port())/v1/ws", offsetStore: offsetStore) { request in
            tokens.append(request)
            return token?(request) ?? GatewayTestServer.token(user: user, device: device, clientType: clientType)
        }
        // Short backoff windows: these tests restart servers and should not wait 30 s.
        configuration.reconnect = ReconnectPolicy(initialDelay: 0.2, maxDelay: 1)
        configure(&configuration)
        client = SwitchboardClient(configuration)
    }

    /// Connects and starts handling events (appending them to `events`).
    func start() async {
        await client.connect()
        let stream = client.events
        consumer = Task { [weak self] in
            for await event in stream {
                guard let self else { return }
                self.lock.withLock { self.seen.append(event) }
            }
        }
    }

    var events: [ClientEvent] { lock.withLock { seen } }

    /// Waits (polling, up to `seconds`) until `condition` holds for the events handled so far; returns them.
    @discardableResult
    func waitFor(_ what: String, seconds: Double = 30, _ condition: ([ClientEvent]) -> Bool) async throws -> [ClientEvent] {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            // Checked once more after the deadline: a task resumed late (a busy machine) must not fail a condition
            // that holds by then.
            let late = Date() >= deadline
            let now = events
            if condition(now) { return now }
            if late { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("timed out waiting for \(what); events: \(events)")
    }

    /// Waits until the client is connected (welcome received) `times` times in all.
    func waitConnected(times: Int = 1) async throws {
        try await waitFor("connected ×\(times)") { events in
            events.filter { if case .connection(.connected) = $0 { return true } else { return false } }.count >= times
        }
    }

    func stop() async {
        await client.disconnect()
        consumer?.cancel()
    }
}
