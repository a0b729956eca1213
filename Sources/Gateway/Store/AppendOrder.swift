/// Keeps one node's appends to a log in the order the node made them, within one `write(batches:)` call.
///
/// A store takes only a log's next offset, so after a batch's appends to user U were taken back (the batch failed)
/// the later batches of the same call appending to U normally fail anyway: their offsets sit above the hole. But when
/// another node took the hole's offset meanwhile (the batch lost its offset to it), the next batch fits, and would
/// commit ahead of the one the hub is about to retry: one sender's messages out of order in the recipient's log. So
/// a store refuses such a batch as a lost offset without applying it, and the hub retries it after the earlier one.
public enum AppendOrder {
    /// The first log `batch` appends to among `failedLogs` (a later batch of the call must then fail), or nil.
    public static func refusedLog(_ batch: [StoreWrite], failedLogs: Set<String>) -> String? {
        guard !failedLogs.isEmpty else { return nil }
        for case .appendEvent(let event) in batch where failedLogs.contains(event.userId) { return event.userId }
        return nil
    }

    /// The logs whose appends in `batch` were taken back by its failure (`conflict`: the store's answer, if it refused
    /// a decision). A refusal of the batch's own offset because the log has a hole below it (an earlier batch failed)
    /// is left out: it says nothing new, and a retry the hub made after the earlier failure, with the right offset,
    /// must not be held up by it.
    public static func logsTakenBack(_ batch: [StoreWrite], conflict: StoreConflict?) -> Set<String> {
        var logs = Set<String>()
        for case .appendEvent(let event) in batch where !logs.contains(event.userId) {
            if case .offsetTaken(event.userId, let latest) = conflict, latest < event.offset - 1 { continue }
            logs.insert(event.userId)
        }
        return logs
    }
}
