import Auth
import JSON
import Testing
@testable import switchboard_load

/// Token minting, the --mix split, the messages layout, the pacer and JSON quoting of the gateway scenarios.
struct GatewayPureLogicTests {
    @Test func mintedTokenVerifiesWithTheServersVerifierAndCarriesTheClaims() throws {
        let minter = try JWTMinter(secret: "load-secret-0123456789", lifetimeSeconds: 600)
        let token = minter.token(userId: "alice", deviceId: "phone-1", clientType: "ios", now: 1_800_000_000)
        let verifier = JWTVerifier(
            keys: [.hmac(secret: Array("load-secret-0123456789".utf8))], audience: nil, issuer: nil)
        let claims = try verifier.verify(token, now: 1_800_000_100)
        #expect(claims.subject == "alice")
        #expect(claims.string("device_id") == "phone-1")
        #expect(claims.string("client_type") == "ios")
        #expect(claims.expiresAt == 1_800_000_600)
        // A different secret must not verify, and the token expires after its lifetime (plus leeway).
        let other = JWTVerifier(
            keys: [.hmac(secret: Array("another-secret-0123456789".utf8))], audience: nil, issuer: nil)
        #expect(throws: JWTError.self) { _ = try other.verify(token, now: 1_800_000_100) }
        #expect(throws: JWTError.self) { _ = try verifier.verify(token, now: 1_800_000_700) }
    }

    @Test func requestPathAddsTokenAndOffset() throws {
        let minter = try JWTMinter(secret: "s")
        let path = minter.requestPath(base: "/v1/ws", userId: "u", deviceId: "d", clientType: "web", offset: 0)
        #expect(path.hasPrefix("/v1/ws?token="))
        #expect(path.hasSuffix("&offset=0"))
        #expect(path.split(separator: ".").count == 3)
        let withQuery = minter.requestPath(base: "/v1/ws?x=1", userId: "u", deviceId: "d", clientType: "web")
        #expect(withQuery.hasPrefix("/v1/ws?x=1&token=") && !withQuery.contains("offset"))
        #expect(throws: LoadTestError.self) { _ = try JWTMinter(secret: "") }
    }

    @Test func mixSplitsConnectionsByWeightWithEvenTwoDeviceShares() throws {
        let mix = try GatewayMix(parsing: "approvals=4,messages=4,handoff=2,presence=1,fanout=1")
        for total in [12, 100, 101, 999] {
            let parts = mix.split(total)
            #expect(parts.reduce(0) { $0 + $1.connections } == total)
            for part in parts where part.name == "approvals" || part.name == "handoff" {
                #expect(part.connections % 2 == 0)
            }
        }
        let parts = mix.split(120)
        #expect(parts.first { $0.name == "approvals" }?.connections == 40)
        #expect(parts.first { $0.name == "fanout" }?.connections == 10)
        #expect(throws: LoadTestError.self) { _ = try GatewayMix(parsing: "approvals=x") }
        #expect(throws: LoadTestError.self) { _ = try GatewayMix(parsing: "chat=1") }
        #expect(throws: LoadTestError.self) { _ = try GatewayMix(parsing: "approvals=0") }
    }

    @Test func messagesLayoutUsesEveryConnectionAndHonoursTheOfflineFraction() {
        for connections in 2...200 {
            for fraction in [0.0, 0.1, 0.2, 0.5, 0.9] {
                let layout = MessagesWorkload.Layout(connections: connections, offlineFraction: fraction)
                #expect(2 * layout.onlinePairs + layout.offlinePairs == connections)
                if fraction == 0 { #expect(layout.offlinePairs <= 1) }
                if connections >= 100 && fraction > 0 {
                    let actual = Double(layout.offlinePairs) / Double(layout.offlinePairs + layout.onlinePairs)
                    #expect(abs(actual - fraction) < 0.05, "\(connections) \(fraction) → \(actual)")
                }
            }
        }
    }

    @Test func pacerOwesEventsInProportionToElapsedTimeAndNeverTwice() {
        var pacer = Pacer(perSecond: 200, startNs: 1_000_000_000)
        #expect(pacer.take(nowNs: 1_000_000_000) == 0)
        #expect(pacer.take(nowNs: 1_010_000_000) == 2)  // 10 ms at 200/s
        #expect(pacer.take(nowNs: 1_010_000_000) == 0)  // already taken
        #expect(pacer.take(nowNs: 2_000_000_000) == 198)  // the rest of the first second
        var total = 0
        var slow = Pacer(perSecond: 3, startNs: 0)
        for ms in stride(from: 0, through: 10_000, by: 7) { total += slow.take(nowNs: UInt64(ms) * 1_000_000) }
        #expect(total == 29)  // 3/s over 9.996 s
    }

    @Test func jsonQuotingRoundTripsThroughTheStrictParser() throws {
        for text in ["plain", "quote \" and \\ backslash", "tab\tnew\nline", "\u{01}\u{1F}", "ünïcødé ✓"] {
            let parsed = try JSONValue.parse(Array(text.jsonQuoted.utf8))
            #expect(parsed == .string(text))
        }
    }
}

/// The in-order, exactly-once check behind `fanout` (offsets) and `messages` (sequence numbers).
struct OrderedDeliveryVerifierTests {
    @Test func inOrderDeliveriesPass() {
        var verifier = OrderedDeliveryVerifier(first: 42)
        for offset in Int64(42)...Int64(60) { #expect(verifier.receive(offset) == .inOrder(skipped: 0)) }
        #expect(verifier.received == 19)
        #expect(verifier.missing(through: 60) == 0)
        #expect(verifier.missing(through: 63) == 3)
    }

    @Test func gapsAreLossesUnlessExcused() {
        var verifier = OrderedDeliveryVerifier(first: 0)
        #expect(verifier.receive(0) == .inOrder(skipped: 0))
        #expect(verifier.receive(4) == .inOrder(skipped: 3))
        #expect(verifier.receive(8, excused: { $0 == 6 }) == .inOrder(skipped: 2))
        #expect(verifier.nextExpected == 9)
    }

    @Test func duplicatesAndReorderingsAreCaught() {
        var verifier = OrderedDeliveryVerifier(first: 1)
        #expect(verifier.receive(1) == .inOrder(skipped: 0))
        #expect(verifier.receive(1) == .duplicateOrReordered)
        #expect(verifier.receive(3) == .inOrder(skipped: 1))
        #expect(verifier.receive(2) == .duplicateOrReordered)  // late: the gap was already counted as lost
        #expect(verifier.received == 2)
    }

    @Test func randomShufflesAreFlaggedExactlyWhenOrderBreaks() {
        var random = FastRandom(seed: 7)
        for _ in 0..<200 {
            var sequence = Array(Int64(0)..<Int64(30))
            let swaps = Int(random.next() % 3)
            for _ in 0..<swaps {
                let i = Int(random.next() % 30), j = Int(random.next() % 30)
                sequence.swapAt(i, j)
            }
            if random.next() % 2 == 0 { sequence.remove(at: Int(random.next() % 30)) }
            var verifier = OrderedDeliveryVerifier(first: 0)
            var flagged = 0, lost = 0
            for n in sequence {
                switch verifier.receive(n) {
                case .duplicateOrReordered: flagged += 1
                case .inOrder(let skipped): lost += skipped
                }
            }
            lost += verifier.missing(through: 29)
            let perfect = sequence == Array(Int64(0)..<Int64(30))
            #expect((flagged + lost == 0) == perfect)
            // Every number is accounted for exactly once: accepted, flagged, or counted as lost.
            #expect(verifier.received + lost >= 30 - flagged)
        }
    }
}

/// `messages` holds its traffic until every planned device is welcomed: a device connected without a resume offset
/// gets live events from its welcome's `latestOffset` on, so a message committed for it after its upgrade but before
/// its welcome never reaches it live (reported as lost or reordered), and a sender not yet welcomed cannot send
/// (reported as not sent). Releasing the traffic at the ramp's end (all upgrades done) did both.
struct WelcomeGateTests {
    /// What happens to a gate: device i welcomed or ended (both resolve it), or the driver asking for traffic.
    private enum Step {
        case welcome(Int)
        case end(Int)
        case rampEnded
    }

    /// Feeds `steps` in order to a gate for `devices` devices; returns, per step, whether it released the traffic.
    private func run(devices: Int, _ steps: [Step]) -> (releases: [Bool], gate: WelcomeGate) {
        var gate = WelcomeGate(devices: devices)
        var releases: [Bool] = []
        for step in steps {
            switch step {
            case .welcome(let index), .end(let index): releases.append(gate.resolved(index))
            case .rampEnded: releases.append(gate.requestTraffic())
            }
        }
        return (releases, gate)
    }

    @Test func theRampsEndAloneDoesNotReleaseTrafficWhileAWelcomeIsMissing() {
        // Every upgrade is done (the ramp is over) while device 1 still waits for its welcome: the old harness sent
        // here. Device 1's welcome releases the traffic, once.
        let (releases, gate) = run(
            devices: 3, [.welcome(0), .welcome(2), .rampEnded, .welcome(1), .welcome(1), .rampEnded])
        #expect(releases == [false, false, false, true, false, false])
        #expect(gate.isOpen)
        let (waiting, stillShut) = run(devices: 3, [.welcome(0), .welcome(2), .rampEnded])
        #expect(waiting == [false, false, false])
        #expect(stillShut.isOpen == false)
        #expect(stillShut.waitingCount == 1)
    }

    @Test func allWelcomedBeforeTheRampsEndReleasesAtTheRampsEnd() {
        let (releases, gate) = run(devices: 2, [.welcome(1), .welcome(0), .rampEnded])
        #expect(releases == [false, false, true])
        #expect(gate.isOpen)
    }

    @Test func aDeviceThatEndsUnwelcomedDoesNotHoldTheOthersBackAndExtrasAreIgnored() {
        // Index 5 is beyond the plan (a resume check's connection) and does not count; device 1's connection ends
        // without a welcome (a refused upgrade, say).
        let (releases, gate) = run(devices: 2, [.rampEnded, .welcome(5), .welcome(0), .end(1)])
        #expect(releases == [false, false, false, true])
        #expect(gate.waitingCount == 0)
    }

    @Test func noDevicesReleasesAtOnce() {
        #expect(run(devices: 0, [.rampEnded]).releases == [true])
    }
}
