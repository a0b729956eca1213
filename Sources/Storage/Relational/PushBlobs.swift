import FoundationEssentials
import Gateway
import JSON

/// The JSON blobs push rows keep (targets, notices, settings), shared by both stores.
enum PushBlobs {
    static func encode(_ value: some Encodable) -> [UInt8] {
        (try? JSONEncoder().encode(value)).map(Array.init) ?? []
    }

    static func settings(_ blob: [UInt8]) -> NotificationSettings? {
        try? StrictJSONDecoder().decode(NotificationSettings.self, from: blob)
    }

    /// nil when a blob does not decode (a row written by a newer build): skipped rather than crashing the sender.
    static func job(id: Int64, userId: String, deviceId: String, target: [UInt8], notice: [UInt8], fallback: [UInt8]?, state: String,
                    attempts: Int, nextAttemptAt: Int64, lastError: String?, createdAt: Int64) -> PushJobRecord? {
        let decoder = StrictJSONDecoder()
        guard let target = try? decoder.decode(PushTarget.self, from: target),
              let notice = try? decoder.decode(PushNotice.self, from: notice) else { return nil }
        let fallback = fallback.flatMap { try? decoder.decode(PushTarget.self, from: $0) }
        return PushJobRecord(id: id, userId: userId, deviceId: deviceId, target: target, notice: notice, fallback: fallback,
                             state: state, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError, createdAt: createdAt)
    }
}
