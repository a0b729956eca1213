import Glibc

/// Readings for `/metrics`, cheap enough for every scrape.
extension SQLiteGatewayStore {
    /// Push jobs waiting to be sent (state `pending`: due now or backing off). Counted on the `push_jobs_due` index.
    public func pendingPushJobs() throws -> Int {
        try read { reader throws(StorageError) in
            try reader.db.queryFirst("SELECT COUNT(*) FROM push_jobs WHERE state = 'pending'") { $0.int64(0) }.map(Int.init) ?? 0
        }
    }

    public func pendingBackendWebhooks() throws -> (count: Int, oldestCreatedAt: Int64?) {
        try read { reader throws(StorageError) in
            try reader.db.queryFirst(StoreReader.pendingBackendWebhooksSQL) { (Int($0.int64(0)), $0.optionalInt64(1)) } ?? (0, nil)
        }
    }

    /// Bytes on disk: the database file plus its write-ahead log (which holds recent commits until a checkpoint).
    public func databaseBytes() -> Int {
        [path, path + "-wal"].reduce(0) { total, file in
            var info = stat()
            return stat(file, &info) == 0 ? total + Int(info.st_size) : total
        }
    }
}
