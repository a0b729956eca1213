import Foundation
import Glibc
import TestSupport

/// Debian's nginx running the committed `config/nginx/switchboard.conf` in front of two real `switchboard serve`
/// nodes, each with its own SQLite database and `server.trusted_proxies = ["127.0.0.1"]` (nginx's address as they
/// see it). Everything is stopped on deinit.
final class NginxFixture {
    static let nginx = "/usr/sbin/nginx"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: nginx) }

    /// The committed file, found from this source file's path.
    static let committedConfig = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/nginx/switchboard.conf").path

    private let nodeDirectories: [TemporaryDirectory]
    private let directory: TemporaryDirectory
    private(set) var nodes: [(process: Process, port: UInt16)] = []
    private var proxy: Process?
    /// nginx's listening port: what clients connect to.
    private(set) var port: UInt16 = 0

    /// With `lingeringDrain`, a node told to stop (SIGTERM) keeps draining for up to a minute while a client does not
    /// answer its close frame, instead of exiting at once: long enough to watch it refuse upgrades.
    init(lingeringDrain: Bool = false) throws {
        directory = try TemporaryDirectory()
        nodeDirectories = [try TemporaryDirectory(), try TemporaryDirectory()]
        for nodeDirectory in nodeDirectories {
            nodes.append(
                try GatewayProcess.launch(
                    directory: nodeDirectory, trustedProxies: ["127.0.0.1"],
                    drainTimeoutMs: lingeringDrain ? 60_000 : 0,
                    extraSections: lingeringDrain ? "[websocket]\nclose_timeout_ms = 60_000" : ""))
        }
        let committed = try String(contentsOfFile: Self.committedConfig, encoding: .utf8)
        // A port that was free a moment ago can be taken by a parallel test before nginx binds it: try a few.
        var lastFailure: Error?
        for _ in 0..<3 {
            do {
                try startProxy(committed)
                return
            } catch let failure as ProxyBindFailure {
                lastFailure = failure
            }
        }
        throw lastFailure!
    }

    deinit {
        if let proxy { Self.stop(proxy) }
        for node in nodes where node.process.isRunning {
            kill(node.process.processIdentifier, SIGKILL)
            node.process.waitUntilExit()
        }
    }

    /// SIGTERM to node `index` (it starts draining); returns at once.
    func stopNode(_ index: Int) {
        kill(nodes[index].process.processIdentifier, SIGTERM)
    }

    /// `kill -9` of node `index`; returns once it is gone.
    func killNode(_ index: Int) {
        kill(nodes[index].process.processIdentifier, SIGKILL)
        nodes[index].process.waitUntilExit()
    }

    /// `switchboard_gateway_connected_devices` of node `index`, read from the node itself (not through nginx).
    func connectedDevices(onNode index: Int) throws -> Int {
        guard let value = try metric("switchboard_gateway_connected_devices", onNode: index) else {
            throw TestFailure("no switchboard_gateway_connected_devices in /metrics")
        }
        return value
    }

    /// The value of the /metrics line that starts with `series` (name and labels) on node `index`; nil when the
    /// series is absent (a labelled counter appears at its first increment).
    func metric(_ series: String, onNode index: Int) throws -> Int? {
        let client = try RawClient(port: nodes[index].port)
        client.send("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let text = String(decoding: try client.readResponse().body, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(series + " ") }) else { return nil }
        return Int(line.dropFirst(series.count + 1))
    }

    /// A device connected through nginx (token in the query), its `welcome` already read.
    func connect(user: String, device: String) throws -> GatewayTestClient {
        let client = try GatewayTestClient(
            port: port, path: "/v1/ws?token=\(GatewayTestServer.token(user: user, device: device))")
        let welcome = try client.next("welcome", timeout: 10)
        guard GatewayJSON.string(welcome, "data", "deviceId") == device else {
            throw TestFailure("bad welcome: \(welcome)")
        }
        return client
    }

    /// The committed file with its upstream `server host:port …;` lines pointed at `nodes` (same count required, the
    /// parameters after the address kept) and its `listen` lines replaced by one `listen <listen>;`. Comment lines
    /// stay as they are. Throws when the file no longer has the lines this relies on.
    static func rewrite(_ committed: String, listen: String, nodes: [String]) throws -> String {
        var output: [String] = []
        var servers = 0
        var listens = 0
        for line in committed.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }
            let words = line.dropFirst(indent.count).split(separator: " ", maxSplits: 2)
            if words.count >= 2, words[0] == "server", words[1].contains(":") {
                guard servers < nodes.count else {
                    throw TestFailure("\(committedConfig): more upstream servers than \(nodes.count)")
                }
                let rest = words.count > 2 ? " " + words[2] : ";"
                output.append(indent + "server \(nodes[servers])" + rest)
                servers += 1
            } else if words.first == "listen" {
                if listens == 0 { output.append(indent + "listen \(listen);") }
                listens += 1
            } else {
                output.append(String(line))
            }
        }
        guard servers == nodes.count, listens > 0 else {
            throw TestFailure(
                "\(committedConfig): expected \(nodes.count) upstream server lines and a listen line, found \(servers) and \(listens)"
            )
        }
        return output.joined(separator: "\n")
    }

    /// The main configuration around the committed file: what nginx.conf on Debian provides (events, the http context
    /// that includes conf.d) plus the test's own paths for the pid, logs and temporary files.
    private func mainConfig(including file: String) -> String {
        let d = directory.path
        // As root, nginx would run its worker as `nobody`, which cannot enter this test's private directory.
        let user = geteuid() == 0 ? "user root;\n" : ""
        return """
            \(user)worker_processes 1;
            daemon off;
            pid \(d)/nginx.pid;
            error_log \(d)/error.log notice;
            events { worker_connections 512; }
            http {
                access_log off;
                client_body_temp_path \(d)/client_body;
                proxy_temp_path \(d)/proxy;
                fastcgi_temp_path \(d)/fastcgi;
                uwsgi_temp_path \(d)/uwsgi;
                scgi_temp_path \(d)/scgi;
                include \(file);
            }

            """
    }

    private struct ProxyBindFailure: Error, CustomStringConvertible { let description: String }

    private var errorLog: String { (try? String(contentsOfFile: directory.path + "/error.log", encoding: .utf8)) ?? "" }

    /// Starts nginx on a fresh port and waits until `/readyz` answers 200 through it (10 s at most).
    private func startProxy(_ committed: String) throws {
        port = try freeLoopbackPort()
        let site = directory.path + "/switchboard.conf"
        try Self.rewrite(committed, listen: "127.0.0.1:\(port)", nodes: nodes.map { "127.0.0.1:\($0.port)" })
            .write(toFile: site, atomically: true, encoding: .utf8)
        let main = directory.path + "/nginx.conf"
        try mainConfig(including: site).write(toFile: main, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: directory.path + "/error.log")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.nginx)
        // -e: the log for start-up messages, before the configuration is read (the compiled-in one is in /var/log).
        process.arguments = ["-e", directory.path + "/error.log", "-p", directory.path, "-c", main]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let ready = try eventually(within: 10, every: 0.02) {
            if let ready = try? GatewayHTTP.request(port: port, "GET", "/readyz", key: nil, timeoutSeconds: 2),
                ready.status == 200
            {
                return true
            }
            guard process.isRunning else {
                let log = errorLog
                if log.contains("Address already in use") { throw ProxyBindFailure(description: "nginx: \(log)") }
                throw TestFailure("nginx exited with \(process.terminationStatus): \(log)")
            }
            return false
        }
        if ready {
            proxy = process
            return
        }
        Self.stop(process)
        throw TestFailure("nginx did not pass /readyz within 10 s: \(errorLog)")
    }

    /// SIGTERM (nginx's fast shutdown: the master stops its worker, then exits); SIGKILL to the master and its
    /// children if that takes more than 10 s, so no worker outlives the test holding the port.
    private static func stop(_ process: Process) {
        guard process.isRunning else { return }
        let master = process.processIdentifier
        kill(master, SIGTERM)
        eventually(within: 10, every: 0.02) { !process.isRunning }
        guard process.isRunning else { return }
        for child in children(of: master) { kill(child, SIGKILL) }
        kill(master, SIGKILL)
        process.waitUntilExit()
    }

    /// Processes whose parent is `pid`, from /proc/<pid>/stat (field 4).
    private static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let candidate = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? candidate : nil
        }
    }
}
