import EventLoop
import Gateway
import Metrics
import Server

/// The two queues between one I/O loop and the hub loop. Crossing threads costs a lock, a closure and (when the
/// other side sleeps) an eventfd write plus a context switch, so neither side crosses per frame: each collects what
/// one iteration of its loop produced and hands it over as one task, just before its loop sleeps.
///
/// Both queues are FIFO per direction, so a socket's commands reach the hub in the order they were read (with its
/// connect first and its disconnect last) and its frames reach the socket in the order the hub produced them.
final class HubLink: Sendable {
    /// Work for the hub from the sockets of one I/O loop.
    enum Inbound {
        case connect(GatewayConnection, resumeAfter: Int64?)
        case command(GatewayConnection, [UInt8])
        case disconnect(GatewayConnection)
        /// The socket sent the replay's previous part and drained: the next part may be read.
        case replayMore(GatewayConnection)
    }

    /// Work for the sockets of one I/O loop from the hub.
    enum Outbound {
        case frame(GatewayConnection, [UInt8])
        /// A committed event, with when the hub learnt it was durable (`MetricsClock` µs).
        case event(GatewayConnection, [UInt8], committedAt: Int)
        /// A resume's missed events, paced by the socket draining.
        case replay(GatewayConnection, [[UInt8]])
        /// One part of a replay read in parts; `last` ends it.
        case replayPart(GatewayConnection, [[UInt8]], last: Bool)
        case close(GatewayConnection, code: UInt16, reason: String)

        /// The frame of a `.frame` or `.event`.
        var frame: [UInt8]? {
            switch self {
            case .frame(_, let frame), .event(_, let frame, _): frame
            case .replay, .replayPart, .close: nil
            }
        }
    }

    let ioLoop: EventLoop
    let hubLoop: EventLoop
    private let inbox: LoopBatch<Inbound>
    private let outbox: LoopBatch<Outbound>
    /// Committed events from durable to queued on a socket of this loop (one histogram per loop: no shared cache line).
    let deliverySeconds = Histogram(bounds: Histogram.latencyBounds, unitsPerSecond: 1_000_000)

    init(ioLoop: EventLoop, hubLoop: EventLoop, endpoint: GatewayEndpoint) {
        self.ioLoop = ioLoop
        self.hubLoop = hubLoop
        inbox = LoopBatch(from: ioLoop, to: hubLoop) { items in Self.runOnHub(items, endpoint: endpoint) }
        let delivery = deliverySeconds
        outbox = LoopBatch(from: hubLoop, to: ioLoop) { Self.runOnSockets($0, delivery: delivery) }
    }

    /// Queues work for the hub (I/O loop only).
    func toHub(_ item: Inbound) { inbox.append(item) }

    /// Queues a frame or a close for a socket of `ioLoop` (hub loop only).
    func toSocket(_ item: Outbound) {
        guard hubLoop.inEventLoop else {
            // Not from the hub thread (should not happen): go directly rather than touch the hub's queue.
            outbox.sendAlone(item)
            return
        }
        outbox.append(item)
    }

    private static func runOnHub(_ items: [Inbound], endpoint: GatewayEndpoint) {
        let hub = endpoint.hub
        for item in items {
            switch item {
            case .connect(let connection, let resumeAfter): hub.connect(connection, resumeAfter: resumeAfter)
            case .command(let connection, let frame):
                endpoint.queuedCommands.subtract(1, ordering: .relaxed)
                hub.handle(frame, from: connection)
            case .disconnect(let connection): hub.disconnect(connection)
            case .replayMore(let connection): hub.continueReplay(connection)
            }
        }
    }

    /// Writes the frames into their sockets' queues (flushed when the I/O loop sleeps, in this same iteration, one
    /// write per socket however many frames it got).
    private static func runOnSockets(_ items: [Outbound], delivery: Histogram) {
        var now = 0
        var shared: WebSocketBroadcast?
        for index in items.indices {
            switch items[index] {
            case .frame(let connection, let frame): send(frame, to: connection, at: index, of: items, shared: &shared)
            case .event(let connection, let frame, let committedAt):
                send(frame, to: connection, at: index, of: items, shared: &shared)
                if now == 0 { now = MetricsClock.microseconds() }   // one clock read per batch
                delivery.observe(now - committedAt)
            case .replay(let connection, let frames): connection.deliverReplay(frames)
            case .replayPart(let connection, let frames, let last): connection.deliverReplayPart(frames, last: last)
            case .close(let connection, let code, let reason): connection.closeNow(code: code, reason: reason)
            }
        }
    }
}

extension HubLink {
    /// The hub encodes a publish once and hands every device of the user the same array, so neighbouring items with
    /// the same storage are one `WebSocketBroadcast`: its frame is built once and queued by reference on every
    /// socket. A frame for one socket alone (a reply, a one-device user's event) is copied into its queue instead.
    fileprivate static func send(_ frame: [UInt8], to connection: GatewayConnection, at index: Int, of items: [HubLink.Outbound],
                                 shared: inout WebSocketBroadcast?) {
        if let broadcast = shared, sameArray(broadcast.payload, frame) { return connection.deliver(broadcast) }
        guard index + 1 < items.count, let next = items[index + 1].frame, sameArray(next, frame) else {
            return connection.deliver(frame)
        }
        let broadcast = WebSocketBroadcast(payload: frame)
        shared = broadcast
        connection.deliver(broadcast)
    }

    /// Both alive, so the same address means the same bytes (a copy-on-write array shared, not compared).
    private static func sameArray(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && a.withUnsafeBufferPointer { $0.baseAddress } == b.withUnsafeBufferPointer { $0.baseAddress }
    }
}

/// Items appended on one loop during an iteration, handed to another loop as one task just before the first sleeps.
final class LoopBatch<Item>: FlushHandler, @unchecked Sendable {
    // @unchecked: `items` is touched only on `source`; a batch leaves it by value through `execute`, which orders memory.
    private let source: EventLoop
    private let target: EventLoop
    private let run: @Sendable ([Item]) -> Void
    private var items: [Item] = []

    init(from source: EventLoop, to target: EventLoop, _ run: @escaping @Sendable ([Item]) -> Void) {
        self.source = source
        self.target = target
        self.run = run
    }

    /// On `source`: queues the item; the first of an iteration asks the loop for a flush before it sleeps.
    func append(_ item: Item) {
        if items.isEmpty { source.flushBeforeSleep(self) }
        items.append(item)
    }

    /// One item on its own, from any thread.
    func sendAlone(_ item: Item) {
        let batch = Handover(items: [item])
        let run = self.run
        target.execute { run(batch.items) }
    }

    func flushBeforeSleep() {
        guard !items.isEmpty else { return }
        let batch = Handover(items: items)
        items = []
        let run = self.run
        target.execute { run(batch.items) }
    }

    private struct Handover: @unchecked Sendable {
        // @unchecked: built on one loop and then read only on the other (execute orders memory).
        let items: [Item]
    }
}
