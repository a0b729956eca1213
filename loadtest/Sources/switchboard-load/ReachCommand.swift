import ArgumentParser

/// `reach` options.
struct ReachArguments: ParsableArguments {
    @Option(help: "send_message commands per second, in total.")
    var messageRate = 100.0
    @Option(help: "Share of the recipients (0 … 1) that are suspended: socket open, never acknowledge.")
    var suspendedFraction = 0.25
    @Option(help: "Share of the recipients (0 … 1) that say app_state background and never acknowledge.")
    var backgroundFraction = 0.25
    @Option(help: "The gateway's gateway.push_ack_delay_ms (the suspended devices' push bound is this + 500 ms).")
    var pushAckDelayMs = 5000.0
    @Option(help: "host:port the harness receives the gateway's webhook pushes on (the gateway's push.webhook_url).")
    var pushSink = "127.0.0.1:7499"

    func validate() throws {
        guard messageRate > 0 else { throw ValidationError("--message-rate must be above 0") }
        guard (0...1).contains(suspendedFraction), (0...1).contains(backgroundFraction),
            suspendedFraction + backgroundFraction <= 1
        else {
            throw ValidationError(
                "--suspended-fraction and --background-fraction must be 0 … 1 and add up to at most 1")
        }
        guard pushAckDelayMs >= 0 else { throw ValidationError("--push-ack-delay-ms must be 0 or more") }
        guard sinkEndpoint != nil else { throw ValidationError("--push-sink must be host:port, got \(pushSink)") }
    }

    var sinkEndpoint: (host: String, port: UInt16)? {
        guard let colon = pushSink.lastIndex(of: ":"), let port = UInt16(pushSink[pushSink.index(after: colon)...]),
            colon > pushSink.startIndex
        else { return nil }
        return (String(pushSink[..<colon]), port)
    }
}

/// `reach`.
struct ReachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "Messages to active, suspended and backgrounded phones: each must be acknowledged or pushed.",
        discussion: """
            --connections/2 pairs of contacts; each sender's desktop sends send_message at random to its \
            partner's phone, which is active (acknowledges each event at once), suspended (--suspended-fraction: \
            never acknowledges) or in the background (--background-fraction: says app_state background, never \
            acknowledges). Each phone registers a webhook push token; point the gateway's push.webhook_url at \
            http://<--push-sink>/ and set --push-ack-delay-ms to its gateway.push_ack_delay_ms. Reported per kind: \
            the share reached (acknowledged or pushed), push latency after the send (suspended: target p99 ≤ delay \
            + 500 ms; background: ≤ 500 ms), pushes of acknowledged messages and duplicate pushes (both must be 0). \
            A message that reaches its phone neither way is a failure. 
            """ + gatewayDiscussion)

    @OptionGroup var options: CommonOptions
    @OptionGroup var gateway: GatewayOptions
    @OptionGroup var reach: ReachArguments

    func validate() throws {
        guard options.connections >= 2, options.connections % 2 == 0 else {
            throw ValidationError("--connections must be even and at least 2 (a sender and a phone per pair)")
        }
    }

    func run() throws {
        let endpoint = reach.sinkEndpoint!
        let (sink, server) = try ReachPushSink.start(host: endpoint.host, port: endpoint.port)
        defer { server.shutdown() }
        let workload = ReachWorkload.Options(
            messageRate: reach.messageRate, suspendedFraction: reach.suspendedFraction,
            backgroundFraction: reach.backgroundFraction, ackDelayMs: reach.pushAckDelayMs, sink: sink)
        try GatewayRun.execute(
            "reach", options: options, gateway: gateway,
            components: [GatewayComponent(kind: .reach(workload), connections: options.connections)],
            parameters: [
                "message_rate": "\(reach.messageRate)", "suspended_fraction": "\(reach.suspendedFraction)",
                "background_fraction": "\(reach.backgroundFraction)", "push_ack_delay_ms": "\(reach.pushAckDelayMs)"
            ],
            minimumDrain: reach.pushAckDelayMs / 1000 + 5)
    }
}
