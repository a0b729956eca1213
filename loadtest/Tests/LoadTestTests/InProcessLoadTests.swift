import Testing
@testable import switchboard_load

/// The whole client side (ramp → hold → drain → close, the echo session and the verifier) over real loopback
/// sockets against `TestEchoServer`.
struct InProcessLoadTests {
    private func run(_ scenario: any Scenario, server: TestEchoServer, connections: Int, loops: Int = 1,
                     sources: [String] = []) throws -> LoadStats {
        let settings = try ClientSettings(
            target: TargetURL(parsing: server.url), sourceAddresses: sources, insecure: false, caFile: nil, deflate: false,
            maxMessageBytes: 1 << 20, closeTimeoutMs: 500)
        let load = InProcessLoad(
            scenario: scenario, settings: settings, connections: connections, connectsPerSecond: 2000, loops: loops,
            holdSeconds: 0.3, drainTimeoutSeconds: 0.5, firstConnectionIndex: 0, seed: 1)
        try load.start()
        let deadline = MonotonicClock.nanoseconds() + 10_000_000_000
        while !load.isFinished && MonotonicClock.nanoseconds() < deadline { MonotonicClock.sleep(nanoseconds: 5_000_000) }
        #expect(load.isFinished, "the run must stop by itself")
        #expect(load.poll().open == 0)
        return try load.finish()
    }

    @Test func echoOverLoopbackVerifiesEverything() throws {
        let server = try TestEchoServer()
        defer { server.stop() }
        let stats = try run(EchoScenario(size: 100, depth: 3), server: server, connections: 6, loops: 2)
        #expect(stats.connectAttempts == 6)
        #expect(stats.connectsSucceeded == 6)
        #expect(stats.upgradeLatency.count == 6)
        #expect(stats.messagesSent > 6 * 3)
        #expect(stats.messagesReceived == stats.messagesSent)
        #expect(stats.roundTripLatency.count == UInt64(stats.messagesReceived))
        #expect(stats.errors.isEmpty, "\(stats.errors)")
        #expect(!stats.hasVerificationFailures)
    }

    @Test func droppedEchoesAreCountedAsLost() throws {
        let server = try TestEchoServer(dropEvery: 5)
        defer { server.stop() }
        let stats = try run(EchoScenario(size: 20, depth: 2), server: server, connections: 2)
        #expect(stats.echoesLost > 0)
        #expect(stats.errors["echo_lost"] == stats.echoesLost)
        #expect(stats.messagesReceived + stats.echoesLost == stats.messagesSent)
    }

    @Test func connectHoldsAndClosesCleanly() throws {
        let server = try TestEchoServer()
        defer { server.stop() }
        let stats = try run(ConnectScenario(), server: server, connections: 10)
        #expect(stats.connectsSucceeded == 10)
        #expect(stats.messagesSent == 0)
        #expect(stats.errors.isEmpty, "\(stats.errors)")
    }

    @Test func inFlightCapBoundsConcurrentAttempts() throws {
        let server = try TestEchoServer()
        defer { server.stop() }
        let settings = try ClientSettings(
            target: TargetURL(parsing: server.url), sourceAddresses: [], insecure: false, caFile: nil, deflate: false,
            maxMessageBytes: 1 << 20, closeTimeoutMs: 500)
        // A rate this high would start all 40 in the first tick; the cap must hold them to 3 at a time.
        let load = InProcessLoad(
            scenario: ConnectScenario(), settings: settings, connections: 40, connectsPerSecond: 1_000_000, loops: 1,
            holdSeconds: 0, drainTimeoutSeconds: 0.5, firstConnectionIndex: 0, seed: 1, maxInFlight: 3)
        try load.start()
        let deadline = MonotonicClock.nanoseconds() + 10_000_000_000
        while !load.isFinished && MonotonicClock.nanoseconds() < deadline { MonotonicClock.sleep(nanoseconds: 5_000_000) }
        let stats = try load.finish()
        #expect(stats.connectsSucceeded == 40)
        #expect(stats.peakAttemptsInFlight == 3)
        #expect(stats.rampSeconds > 0)
        #expect(stats.errors.isEmpty, "\(stats.errors)")
    }

    @Test func refusedConnectionsAreReportedByKind() throws {
        let server = try TestEchoServer()
        let url = server.url
        server.stop()
        let settings = try ClientSettings(
            target: TargetURL(parsing: url), sourceAddresses: [], insecure: false, caFile: nil, deflate: false,
            maxMessageBytes: 1 << 20)
        let load = InProcessLoad(
            scenario: ConnectScenario(), settings: settings, connections: 3, connectsPerSecond: 1000, loops: 1,
            holdSeconds: 0, drainTimeoutSeconds: 0, firstConnectionIndex: 0, seed: 2)
        try load.start()
        while !load.isFinished { MonotonicClock.sleep(nanoseconds: 5_000_000) }
        let stats = try load.finish()
        #expect(stats.connectsSucceeded == 0)
        #expect(stats.errorCount == 3)
        #expect(stats.errors.keys.allSatisfy { $0.hasPrefix("connect_") }, "\(stats.errors)")
    }

    @Test func boundSourceAddressesConnect() throws {
        let server = try TestEchoServer()
        defer { server.stop() }
        let stats = try run(ConnectScenario(), server: server, connections: 4, sources: ["127.0.0.2", "127.0.0.3"])
        #expect(stats.connectsSucceeded == 4)
        #expect(stats.errors.isEmpty, "\(stats.errors)")
    }

    @Test func sourceAddressNotOnThisHostIsReported() throws {
        let server = try TestEchoServer()
        defer { server.stop() }
        // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to this host, so bind() fails with EADDRNOTAVAIL.
        let stats = try run(ConnectScenario(), server: server, connections: 2, sources: ["192.0.2.1"])
        #expect(stats.connectsSucceeded == 0)
        #expect(stats.errors == ["bind_address_unavailable": 2])
    }
}
