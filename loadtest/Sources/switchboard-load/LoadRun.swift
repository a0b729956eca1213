import ArgumentParser
import Foundation

/// The coordinator of one run, on the main thread: checks limits, starts the load (in-process loops or worker
/// processes), prints a progress line every second on stderr, samples the server's /proc entries, and at the end
/// prints the table and writes the JSON/HTML reports. In a worker it only runs `WorkerMain`.
///
/// Exit status: 0 when the report passed, 1 when anything failed, 64 for bad options, 70 for machine limits or a
/// broken run. The run is bounded: it gives up at ramp time + handshake timeout + duration + drain + close + 30 s.
struct LoadRun {
    let options: CommonOptions
    let scenario: any Scenario

    func execute() throws {
        do {
            try executeChecked()
        } catch let error as LoadTestError {
            FileHandle.standardError.write(Data("switchboard-load: \(error)\n".utf8))
            switch error {
            case .usage: throw ExitCode(64)
            case .limits, .runtime: throw ExitCode(70)
            }
        }
    }

    private func executeChecked() throws {
        let target = try TargetURL(parsing: options.url)
        let settings = try ClientSettings(
            target: target, sourceAddresses: options.sourceAddressList, insecure: options.insecure,
            caFile: options.caFile, deflate: options.deflate, maxMessageBytes: scenario.maxMessageBytes,
            otherNodes: options.nodeUrl.map { try TargetURL(parsing: $0) })
        if let index = options.workerIndex {
            WorkerMain.run(index: index, options: options, scenario: scenario, settings: settings)
            return
        }
        let perProcess = RunPlan.share(of: options.connections, part: 0, parts: options.workers).count
        try ResourceLimits.ensureDescriptors(for: perProcess, workers: options.workers)
        let portRange = ResourceLimits.ephemeralPortRange()
        try ResourceLimits.ensurePorts(for: options.connections, sourceCount: settings.sources.count, range: portRange)
        if let warning = ResourceLimits.portSearchWarning(
            for: options.connections, sourceCount: settings.sources.count, range: portRange) {
            FileHandle.standardError.write(Data("switchboard-load: warning: \(warning)\n".utf8))
        }
        try scenario.prepare()
        let sampler = try options.serverPid.map { pid throws(LoadTestError) in try ServerProcessSampler(pid: pid) }
        if let sampler { FileHandle.standardError.write(Data("switchboard-load: measuring the server \(sampler.description)\n".utf8)) }

        let source: any LoadSource = options.workers > 1
            ? WorkerPool(arguments: Array(CommandLine.arguments.dropFirst()), count: options.workers)
            : InProcessLoad(
                scenario: scenario, settings: settings, connections: options.connections,
                connectsPerSecond: options.rate, loops: options.loops, holdSeconds: options.duration,
                drainTimeoutSeconds: options.drainTimeout, firstConnectionIndex: 0, seed: 0x5EED_1234,
                maxInFlight: options.inFlight)
        let observed = try observe(source, sampler: sampler)
        let report = LoadReport(
            scenario: scenario, options: options, stats: observed.stats, wallSeconds: observed.wallSeconds,
            samples: observed.samples, server: observed.server)
        print(TextReport(report: report).render(), terminator: "")
        try writeFiles(report)
        if !report.passed { throw ExitCode(1) }
    }

    /// Runs the load to completion, one progress line per second.
    private func observe(_ source: any LoadSource, sampler: ServerProcessSampler?) throws
        -> (stats: LoadStats, wallSeconds: Double, samples: [LoadReport.SecondSample], server: LoadReport.ServerUsage?) {
        let before = sampler?.sample()
        var peakRSS = before?.rssBytes ?? 0
        // RSS at the sample with the most connections open: the closing burst (close frames queued for thousands of
        // sockets) must not inflate the per-connection figure.
        var heldRSS: Int?
        var maxOpen = 0
        var lastCPU = before?.cpuSeconds
        let start = MonotonicClock.nanoseconds()
        let boundSeconds = Double(options.connections) / options.rate + 10 + options.duration + options.drainTimeout + 33
        let deadline = start + UInt64(boundSeconds * 1e9)
        try source.start()
        var samples: [LoadReport.SecondSample] = []
        var nextTick = start + 1_000_000_000
        var lastMessages = 0
        var lastTickTime = start
        while !source.isFinished {
            MonotonicClock.sleep(nanoseconds: 50_000_000)
            let now = MonotonicClock.nanoseconds()
            if now >= deadline {
                FileHandle.standardError.write(Data("switchboard-load: run exceeded \(Int(boundSeconds)) s, stopping\n".utf8))
                break
            }
            guard now >= nextTick else { continue }
            nextTick += 1_000_000_000
            let progress = source.poll()
            let interval = Double(now - lastTickTime) / 1e9
            let server = sampler?.sample()
            if let server {
                peakRSS = max(peakRSS, server.rssBytes)
                if progress.open > maxOpen {
                    maxOpen = progress.open
                    heldRSS = server.rssBytes
                } else if progress.open == maxOpen && progress.open > 0 {
                    heldRSS = max(heldRSS ?? 0, server.rssBytes)
                }
            }
            var cpuPercent: Double?
            if let server, let last = lastCPU { cpuPercent = (server.cpuSeconds - last) / interval * 100 }
            lastCPU = server?.cpuSeconds ?? lastCPU
            let sample = LoadReport.SecondSample(
                elapsedSeconds: Double(now - start) / 1e9, open: progress.open,
                messagesPerSecond: Double(progress.messagesReceived - lastMessages) / interval,
                errors: progress.errors, serverCPUPercent: cpuPercent, serverRSSBytes: server?.rssBytes)
            samples.append(sample)
            lastMessages = progress.messagesReceived
            lastTickTime = now
            FileHandle.standardError.write(Data(progressLine(sample).utf8))
        }
        let stats = try source.finish()
        let wall = Double(MonotonicClock.nanoseconds() - start) / 1e9
        var usage: LoadReport.ServerUsage?
        if let sampler, let before {
            let after = sampler.sample() ?? before
            peakRSS = max(peakRSS, after.rssBytes)
            let cpu = after.cpuSeconds - before.cpuSeconds
            // Runs shorter than one sample fall back to the peak and the connections opened.
            let held = heldRSS ?? peakRSS
            let heldConnections = maxOpen > 0 ? maxOpen : stats.connectsSucceeded
            usage = LoadReport.ServerUsage(
                pid: sampler.pid, cpuSeconds: cpu, rssBeforeBytes: before.rssBytes, rssHeldBytes: held,
                rssPeakBytes: peakRSS, rssAfterBytes: after.rssBytes, connectionsHeld: heldConnections,
                rssPerConnectionBytes: heldConnections > 0
                    ? Double(held - before.rssBytes) / Double(heldConnections) : nil,
                messagesPerCPUSecond: cpu > 0 && stats.messagesReceived > 0 ? Double(stats.messagesReceived) / cpu : nil)
        }
        return (stats, wall, samples, usage)
    }

    private func progressLine(_ sample: LoadReport.SecondSample) -> String {
        var line = "[\(scenario.name) \(Int(sample.elapsedSeconds.rounded()))s] open \(sample.open)/\(options.connections)"
        line += "  msgs/s \(Int(sample.messagesPerSecond.rounded()))  errors \(sample.errors)"
        if let cpu = sample.serverCPUPercent { line += "  server cpu \(Int(cpu.rounded()))%" }
        if let rss = sample.serverRSSBytes { line += "  rss \(rss / 1_048_576) MiB" }
        return line + "\n"
    }

    private func writeFiles(_ report: LoadReport) throws {
        if let path = options.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try write(try encoder.encode(report), to: path)
        }
        if let path = options.html {
            try write(Data(HTMLReport(report: report).render().utf8), to: path)
        }
    }

    private func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            throw LoadTestError.runtime("cannot write \(path): \(error.localizedDescription)")
        }
    }
}
