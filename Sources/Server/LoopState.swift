import EventLoop

/// The server's per-loop bookkeeping: the connections this loop owns, one coarse sweep timer for all their
/// deadlines (handshake, keep-alive, ping, close), and scratch buffers reused by every connection of the loop.
/// Loop thread only.
final class LoopState {
    let loop: EventLoop
    let shared: ServerShared
    let metrics = LoopMetrics()
    private(set) var connections: [ServerConnection] = []
    private var sweepTimer: TimerID?
    private let sweepIntervalMs: UInt64

    /// Reused for compressed output and TLS ciphertext so connections do not each keep a buffer.
    var compressScratch: [UInt8] = []
    var tlsScratch: [UInt8] = []
    /// The last message compressed without context takeover, and its compressed form: a broadcast to many sockets of
    /// this loop compresses once (the output depends only on the bytes and the parameters).
    var sharedCompression: SharedCompression?

    init(loop: EventLoop, shared: ServerShared) {
        self.loop = loop
        self.shared = shared
        let ws = shared.settings.webSocket
        // Deadlines are checked in coarse ticks (as uWebSockets does) instead of a timer per socket; a tick of a
        // quarter of the shortest timeout keeps each deadline accurate to 25 %.
        let timeouts = [ws.handshakeTimeoutMs, ws.pingIntervalMs, ws.pongTimeoutMs, ws.closeTimeoutMs, shared.settings.keepAliveTimeoutMs]
            .filter { $0 > 0 }
        sweepIntervalMs = max(5, min(1000, (timeouts.min() ?? 4000) / 4))
    }

    func add(_ connection: ServerConnection) {
        connection.registryIndex = connections.count
        connections.append(connection)
        if sweepTimer == nil { scheduleSweep() }
    }

    func remove(_ connection: ServerConnection) {
        let index = connection.registryIndex
        guard index >= 0, index < connections.count, connections[index] === connection else { return }
        let last = connections.removeLast()
        if index < connections.count {
            connections[index] = last
            last.registryIndex = index
        }
        connection.registryIndex = -1
    }

    private func scheduleSweep() {
        sweepTimer = loop.schedule(afterMilliseconds: sweepIntervalMs) { [weak self] in
            guard let self else { return }
            self.sweepTimer = nil
            let now = self.loop.now
            // Iterate over a copy: a sweep may close (and so remove) connections.
            for connection in self.connections { connection.checkDeadlines(now: now) }
            self.metrics.add(self.metrics.deadlineSweeps)
            if !self.connections.isEmpty { self.scheduleSweep() }
        }
    }

    /// Shutdown: tell every connection to go away (WebSockets get close 1001).
    func drain() {
        for connection in connections { connection.drain() }
    }
}
