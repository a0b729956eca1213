import Glibc

/// Readings for `/metrics`, cheap enough for every scrape.
extension SQLiteGatewayStore {
    /// Bytes on disk: the database file plus its write-ahead log (which holds recent commits until a checkpoint).
    public func databaseBytes() -> Int {
        [path, path + "-wal"].reduce(0) { total, file in
            var info = stat()
            return stat(file, &info) == 0 ? total + Int(info.st_size) : total
        }
    }
}
