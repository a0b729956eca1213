#ifndef CSQLITEWAL_H
#define CSQLITEWAL_H

#include <sqlite3.h>
#include <stdint.h>

/// Registers (once; thread-safe) the "sb-wal" VFS: the platform's default VFS with two changes. Writes to a
/// database's WAL file are gathered in memory and reach the OS as one `pwrite` per transaction (per 124 KiB of it)
/// instead of two per page (frame header, then page). The gathered frames are written when the transaction's commit frame is complete,
/// inside SQLite's commit and before the WAL index publishes the transaction to readers, so a commit that returned is
/// in the OS exactly as without this VFS; `xSync` writes them first too. Returns SQLITE_OK; SQLITE_MISMATCH when the
/// linked SQLite is outside the versions this VFS was tested on (`csqlite_wal_version_supported`: open the database
/// on the default VFS then); or SQLite's error code.
int csqlite_wal_register(void);

/// Whether `version` (as `sqlite3_libversion_number()`) is in the range this VFS was tested on (see wal_vfs.c).
int csqlite_wal_version_supported(int version);

/// The VFS keeps sub-journals (a savepoint's or statement's undo copies of pages) in memory rather than in SQLite's
/// temporary file once they pass 64 KiB, up to 4 MiB each. Sub-journals opened so far, by every connection on the VFS.
int64_t csqlite_wal_subjournals_in_memory(void);

/// Sub-journals that passed 4 MiB and moved to the default VFS's temporary file, by every connection on the VFS.
int64_t csqlite_wal_subjournals_spilled(void);

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
    /// Bytes the WAL file's and the database file's gather buffers hold now (freed after a checkpoint).
    int64_t walBufferBytes;
    int64_t databaseBufferBytes;
} csqlite_wal_counters;

/// The counters of the WAL file of `db` (a connection opened with this VFS; zeros before its WAL is open).
/// Returns SQLITE_OK, or SQLITE_NOTFOUND for a connection on another VFS.
int csqlite_wal_counters_read(sqlite3 *db, csqlite_wal_counters *out);

/// A failure `csqlite_wal_inject_fault` makes the next WAL operation of one connection report (for tests).
enum {
    CSQLITE_WAL_FAULT_NONE = 0,
    /// The next write of WAL frames to the OS fails with SQLITE_IOERR_WRITE instead of reaching it.
    CSQLITE_WAL_FAULT_WRITE = 1,
    /// The next sync of the WAL fails with SQLITE_IOERR_FSYNC (after its frames were written).
    CSQLITE_WAL_FAULT_SYNC = 2,
};

/// Arms `fault` on the WAL file of `db` (a connection on this VFS whose WAL is open): a stand-in for a failing
/// `pwrite`/`fsync` that a test can aim at one commit. Returns SQLITE_OK, or SQLITE_NOTFOUND (no WAL open, other VFS).
int csqlite_wal_inject_fault(sqlite3 *db, int fault);

#endif
