import EventLoop
import Metrics

/// Prometheus text exposition (format 0.0.4) of every loop's counters, summed.
struct MetricsRenderer {
    let loops: [(loop: EventLoop, metrics: LoopMetrics)]

    func render() -> String {
        var out = ""
        func sum(_ pick: (LoopMetrics) -> Int) -> Int { loops.reduce(0) { $0 + pick($1.metrics) } }
        func metric(_ name: String, _ type: String, _ help: String, _ value: Int) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        metric("switchboard_connections_open", "gauge", "TCP connections currently open (HTTP and WebSocket).",
               sum { $0.connectionsOpen.load(ordering: .relaxed) })
        metric("switchboard_connections_accepted_total", "counter", "TCP connections accepted.",
               sum { $0.connectionsAccepted.load(ordering: .relaxed) })
        metric("switchboard_accept_errors_total", "counter", "accept() failures (EMFILE, ENFILE, ...); accepting pauses briefly after each.",
               sum { $0.acceptErrors.load(ordering: .relaxed) })
        metric("switchboard_http_requests_total", "counter", "HTTP requests parsed (including upgrade requests).",
               sum { $0.httpRequests.load(ordering: .relaxed) })
        metric("switchboard_websocket_upgrades_total", "counter", "Successful WebSocket upgrades.",
               sum { $0.upgrades.load(ordering: .relaxed) })
        metric("switchboard_websocket_messages_received_total", "counter", "Complete WebSocket data messages received.",
               sum { $0.messagesIn.load(ordering: .relaxed) })
        metric("switchboard_websocket_control_frames_received_total", "counter", "WebSocket ping, pong and close frames received.",
               sum { $0.controlFramesIn.load(ordering: .relaxed) })
        metric("switchboard_websocket_messages_sent_total", "counter", "WebSocket data messages sent.",
               sum { $0.messagesOut.load(ordering: .relaxed) })
        metric("switchboard_websocket_frames_sent_total", "counter", "WebSocket frames sent (data and control).",
               sum { $0.framesOut.load(ordering: .relaxed) })
        metric("switchboard_bytes_received_total", "counter", "Bytes read from sockets (after TLS: ciphertext).",
               sum { $0.bytesIn.load(ordering: .relaxed) })
        metric("switchboard_bytes_sent_total", "counter", "Bytes queued to sockets (after TLS: ciphertext).",
               sum { $0.bytesOut.load(ordering: .relaxed) })
        metric("switchboard_slow_consumer_closes_total", "counter", "Connections closed because their outbound queue exceeded websocket.max_outbound_bytes.",
               sum { $0.slowConsumerCloses.load(ordering: .relaxed) })
        metric("switchboard_ping_timeouts_total", "counter", "Connections dropped because the peer did not answer a keep-alive ping.",
               sum { $0.pingTimeouts.load(ordering: .relaxed) })
        metric("switchboard_tls_handshake_failures_total", "counter", "TLS handshakes that failed.",
               sum { $0.tlsHandshakeFailures.load(ordering: .relaxed) })
        metric("switchboard_websocket_compressions_total", "counter", "Outgoing messages run through zlib.",
               sum { $0.compressions.load(ordering: .relaxed) })
        metric("switchboard_websocket_shared_compressions_total", "counter",
               "Outgoing messages that reused another connection's compressed bytes (no context takeover, same loop).",
               sum { $0.sharedCompressions.load(ordering: .relaxed) })

        var merged: [String: [String: Int]] = [:]
        for (_, metrics) in loops {
            for (family, values) in metrics.labeledSnapshot() {
                for (label, n) in values { merged[family, default: [:]][label, default: 0] += n }
            }
        }
        let families: [(name: String, label: String, help: String)] = [
            ("switchboard_handshake_failures_total", "reason", "Refused WebSocket upgrades and malformed HTTP requests, by reason."),
            ("switchboard_websocket_closes_total", "code", "WebSocket connections closed, by close code (1006 = closed without a close frame)."),
            ("switchboard_http_responses_total", "status", "HTTP responses sent, by status."),
        ]
        for family in families {
            out += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) counter\n"
            for (label, n) in (merged[family.name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                out += "\(family.name){\(family.label)=\"\(label)\"} \(n)\n"
            }
        }

        out += "# HELP switchboard_loop_iterations_total Event loop iterations.\n# TYPE switchboard_loop_iterations_total counter\n"
        for (loop, _) in loops { out += "switchboard_loop_iterations_total{loop=\"\(loop.index)\"} \(loop.iterations)\n" }
        out += "# HELP switchboard_timers_pending Timers scheduled on each loop.\n# TYPE switchboard_timers_pending gauge\n"
        for (loop, _) in loops { out += "switchboard_timers_pending{loop=\"\(loop.index)\"} \(loop.pendingTimers)\n" }
        var process = PrometheusText()
        ProcessStats.render(into: &process)
        return out + process.text
    }
}
