import ArgumentParser

/// Options shared by every scenario. Parsed on the main thread; workers re-parse the same arguments.
struct CommonOptions: ParsableArguments {
    @Option(help: "Server to load: ws://host:port/path or wss://host:port/path.")
    var url = "ws://127.0.0.1:7420/"

    @Option(help: "Another node of the same cluster (repeat for more): connections are spread over --url and these. The gateway scenarios put a user's devices on consecutive nodes (phone and desktop apart; a message's sender and recipient apart), so the latencies they report are cross-node; the server API stays on --url (or --api-url).")
    var nodeUrl: [String] = []

    @Option(help: "Connections to open in total (across all workers and loops).")
    var connections = 100

    @Option(help: "Connects started per second during the ramp, in total.")
    var rate = 1000.0

    @Option(help: "Seconds to hold (and to send: echo and the gateway scenarios) after the ramp finished.")
    var duration = 10.0

    @Option(help: "Most connection attempts (TCP connect + upgrade) in flight at once, in total; 0 = no cap, --rate alone paces the ramp. With a high --rate this measures upgrades per second at a fixed concurrency (e.g. --in-flight 256 --rate 1000000).")
    var inFlight = 0

    @Option(help: "Worker processes. Each is this program re-executed with its share of connections and rate; the parent merges their results. Use more than one when a single process cannot open enough sockets or saturates a core.")
    var workers = 1

    @Option(help: "Client event loops (threads) per process.")
    var loops = 1

    @Option(help: "Comma-separated local addresses to bind client sockets to, in rotation (e.g. 127.0.0.1,127.0.0.2). Each source has its own ephemeral port range towards the server, so N sources allow about N × 28 000 connections.")
    var sourceAddresses: String?

    @Flag(help: "Offer permessage-deflate (RFC 7692) in every upgrade request.")
    var deflate = false

    @Flag(help: "wss:// only: do not verify the server certificate (self-signed test servers).")
    var insecure = false

    @Option(help: "wss:// only: PEM file of CA certificates to verify the server against (default: the system store).")
    var caFile: String?

    @Option(help: "Seconds the drain phase waits for in-flight messages before counting them as lost.")
    var drainTimeout = 5.0

    @Option(help: "PID of the server under test (a process listening on a TCP port; anything else is refused): report its CPU seconds (/proc/PID/stat utime+stime) and RSS (/proc/PID/status VmRSS) before and after, and messages per server CPU-second.")
    var serverPid: Int32?

    @Option(help: "Write the full report as JSON to this file.")
    var json: String?

    @Option(help: "Write a self-contained HTML report (inline SVG charts, no external assets) to this file.")
    var html: String?

    @Option(help: .hidden)
    var workerIndex: Int?

    /// The source addresses as a list (empty when not given).
    var sourceAddressList: [String] {
        (sourceAddresses ?? "").split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
    }

    func validate() throws {
        guard connections >= 1 && connections <= 10_000_000 else {
            throw ValidationError("--connections must be between 1 and 10000000")
        }
        guard rate > 0 else { throw ValidationError("--rate must be above 0 connects per second") }
        guard duration >= 0 && duration <= 86_400 else { throw ValidationError("--duration must be 0 … 86400 seconds") }
        guard inFlight >= 0 else { throw ValidationError("--in-flight must be 0 (no cap) or more") }
        guard (1...256).contains(workers) else { throw ValidationError("--workers must be between 1 and 256") }
        guard workers <= connections else { throw ValidationError("--workers must not exceed --connections") }
        guard (1...256).contains(loops) else { throw ValidationError("--loops must be between 1 and 256") }
        guard drainTimeout >= 0 && drainTimeout <= 600 else {
            throw ValidationError("--drain-timeout must be 0 … 600 seconds")
        }
        if let serverPid, serverPid <= 0 { throw ValidationError("--server-pid must be a process id") }
        do { _ = try TargetURL(parsing: url) } catch { throw ValidationError(error.description) }
        for other in nodeUrl {
            do { _ = try TargetURL(parsing: other) } catch { throw ValidationError("--node-url: \(error.description)") }
        }
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (no Foundation needed).
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(scalars[first...last])
    }
}
