import Gateway
import Synchronization

/// Where the cluster bus hands its signals: the hub's receiver, set by `start` and cleared by `stop`, called from the
/// subscriber thread.
///
/// Why a class box: a function value kept directly in a `Mutex` (`Mutex<((ClusterSignal) -> Void)?>`) is
/// re-abstracted on every `withLock`, whose `inout` access writes back a thunk around the previous value. Each
/// signal then wrapped the receiver once more and each call walked every wrapper so far: after tens of thousands of
/// notices the hub thread spent most of its time in those thunks and a node's message rate fell to a fraction
/// (docs/CLUSTER.md, "What does not work yet", item 10). A class reference passes through unchanged.
final class SignalReceiver: Sendable {
    private final class Box: Sendable {
        let receive: @Sendable (ClusterSignal) -> Void
        init(_ receive: @escaping @Sendable (ClusterSignal) -> Void) { self.receive = receive }
    }

    private let current = Mutex<Box?>(nil)

    /// Signals go to `receive` from now on; nil drops them.
    func set(_ receive: (@Sendable (ClusterSignal) -> Void)?) {
        let box = receive.map(Box.init)
        current.withLock { $0 = box }
    }

    /// Hands `signal` to the receiver, if one is set (outside the lock).
    func callAsFunction(_ signal: ClusterSignal) {
        current.withLock { $0 }?.receive(signal)
    }
}
