#ifndef CSQLITEWAL_H
#define CSQLITEWAL_H

#include <sqlite3.h>
#include <stdint.h>

/// Registers (once; thread-safe) the "sb-wal" VFS: the platform's default VFS with two changes. Writes to a
/// database's WAL file are gathered in memory and reach the OS as one `pwrite` per transaction (per 124 KiB of it)
/// instead of two per page (frame header, then page). The gathered frames are written when the transaction's commit frame is complete,
/// inside SQLite's commit and before the WAL index publishes the transaction to readers, so a commit that returned is
/// in the OS exactly as without this VFS; `xSync` writes them first too. Returns SQLITE_OK or SQLite's error code.
int csqlite_wal_register(void);

/// The VFS keeps sub-journals (a savepoint's or statement's undo copies of pages) in memory rather than in SQLite's
/// temporary file once they pass 64 KiB. Sub-journals opened so far, by every connection on the VFS.
int64_t csqlite_wal_subjournals_in_memory(void);

/// The VFS's name, for `sqlite3_open_v2`.
const char *csqlite_wal_vfs_name(void);

/// What one connection's WAL and database files saw since they were opened (for tests and profiles).
typedef struct {
    /// `xWrite` calls SQLite made to WAL files.
    int64_t writes;
    /// Writes to the default VFS those became (one per 124 KiB of gathered frames, plus writes not gathered).
    int64_t flushes;
    /// `xWrite` calls to the database file (checkpoint copies, in WAL mode) and the `pwrite`s they became.
    int64_t databaseWrites;
    int64_t databasePwrites;
} csqlite_wal_counters;

/// The counters of the WAL file of `db` (a connection opened with this VFS; zeros before its WAL is open).
/// Returns SQLITE_OK, or SQLITE_NOTFOUND for a connection on another VFS.
int csqlite_wal_counters_read(sqlite3 *db, csqlite_wal_counters *out);

#endif
