/// The hub's view of one connected device.
/// `@unchecked Sendable`: hub thread only; Sendable so it can ride along a read done off-thread.
final class ClientState: @unchecked Sendable {
    let client: GatewayClient
    /// `set_presence away`.
    var away = false
    /// `app_state background` (the app said so; `foreground` clears it).
    var background = false
    /// Counts as `away` for presence: the user chose it, or the app is in background.
    var isAway: Bool { away || background }
    /// True while the missed events are read from the store; live events wait in `buffered`.
    var resuming = false
    /// True while events another node committed are read from the store (GatewayHub+Cluster); live events wait in
    /// `buffered`, but unlike `resuming` presence frames still go out.
    var fetching = false
    var buffered: [(offset: Int64, frame: [UInt8])] = []
    /// The highest offset sent to this device, so an event read during the replay and also delivered live goes out once.
    var lastSentOffset: Int64 = 0
    /// The highest offset this device acknowledged on this connection.
    var ackedOffset: Int64 = 0
    /// A resume's replay still being read in parts (GatewayHub+Connections); nil once its last part is sent.
    var replay: ReplayCursor?

    init(client: GatewayClient) { self.client = client }

    /// `committedAt`: when the event was known durable (`MetricsClock` µs), for the delivery-latency histogram; nil
    /// sends it unmeasured. With `checkGaps`, an event beyond `lastSentOffset + 1` is kept in `buffered` and false
    /// returned: the caller reads the missing events (`sendInOrder`).
    @discardableResult
    func deliver(offset: Int64, frame: [UInt8], committedAt: Int? = nil, checkGaps: Bool = false) -> Bool {
        if resuming || fetching {
            buffered.append((offset, frame))
        } else if offset > lastSentOffset {
            if checkGaps && offset > lastSentOffset + 1 {
                buffered.append((offset, frame))
                return false
            }
            lastSentOffset = offset
            if let committedAt { client.sendEvent(frame, committedAt: committedAt) } else { client.send(frame) }
        }
        return true
    }

    /// Sends `events` read from the store together with the buffered live ones, in offset order, each once, as one
    /// replay (the socket paces it). The read saw every event committed up to `complete`, so an offset missing below it
    /// is in no log (a rolled-back batch) and is skipped; beyond it a missing offset may be another node's event not
    /// read yet: what follows it stays buffered and false is returned (the caller reads again).
    @discardableResult
    func sendInOrder(_ events: [(offset: Int64, frame: [UInt8])], complete: Int64 = .max) -> Bool {
        var frames: [[UInt8]] = []
        var held: [(offset: Int64, frame: [UInt8])] = []
        for (offset, frame) in (events + buffered).sorted(by: { $0.offset < $1.offset }) where offset > lastSentOffset {
            if !held.isEmpty || (offset > complete && offset > lastSentOffset + 1) {
                held.append((offset, frame))
            } else {
                lastSentOffset = offset
                frames.append(frame)
            }
        }
        buffered = held
        if !frames.isEmpty { client.sendReplay(frames) }
        return held.isEmpty
    }
}

/// Where a resume's replay read in parts stands: the events up to `end` (the log's end when the resume began, which
/// `lastSentOffset` already counts as sent) are read after `after`, one part at a time.
struct ReplayCursor {
    var after: Int64
    let end: Int64
    /// A part is being read (the client asks once per part; a second ask meanwhile is ignored).
    var reading = false
}

/// Presence of one user across devices: the machine's state and the hub's grace timer for it.
struct PresenceState {
    var machine = PresenceMachine.State()
    var graceTimer: GatewayTimer?
    /// This node sent the user's `user_online` backend webhook, so it sends the matching `user_offline`.
    var announcedOnline = false
}
