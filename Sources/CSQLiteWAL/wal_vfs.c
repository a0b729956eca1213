// The "sb-wal" VFS: the default VFS, except that a WAL file's writes are gathered and written once per transaction.
//
// Why: SQLite writes every WAL frame with two `pwrite`s (24-byte frame header, then the page), so a commit that
// dirties 30 pages costs 60 system calls. The frames of one transaction are contiguous in the WAL file, so they can
// reach the OS as one `pwrite` of the whole run (one per 124 KiB: see WRITE_CHUNK).
//
// When the gathered bytes are written (so a commit means what it meant without this VFS):
// - after the page of a commit frame (a frame header whose "database size after commit" field is non-zero): inside
//   SQLite's commit, before it appends the frames to the WAL index and publishes the new header to readers, and the
//   write's error (if any) is the commit's error;
// - before `xSync`, `xTruncate`, `xFileSize`, `xClose`, and before an `xRead` of gathered bytes;
// - as a safety net, when the database file's `xShmBarrier` runs (SQLite calls it between the two copies of the WAL
//   index header it writes to publish a commit): should a commit ever not be recognised, readers still never see a
//   frame that is not in the OS. An error there cannot be reported to that commit; it fails the next write or sync.
// A write that does not continue or overwrite the gathered run writes the run first. One connection's files are
// used by one thread at a time (SQLite's rule), so a file needs no lock.
//
// The database file's writes are gathered the same way (in WAL mode they are a checkpoint's copies, in page order, so
// neighbouring pages become one `pwrite`), and written before `xSync`, `xTruncate`, `xFileSize`, `xClose`, `xLock`,
// `xUnlock`, `xFileControl`, `xFetch`, a read of gathered bytes, and any shared-memory lock change (a checkpoint
// publishes how far it copied and then unlocks; with `synchronous` NORMAL or FULL it has synced the file before that).
//
// And one more change: sub-journals (the undo copies of pages a savepoint or statement changes) are kept in memory
// up to SUBJOURNAL_MEMORY_LIMIT. SQLite keeps them in memory up to 64 KiB and then moves them to an unlinked temporary
// file that lives until the transaction ends; in the store's group commit (a savepoint per batch) that file took most
// of the writer's `pwrite`s. Past the limit (a migration, a prune, a huge group) the sub-journal moves to that same
// temporary file, as SQLite would have done, so memory stays bounded. It is freed when the transaction ends.
//
// Guards, because all of this rests on how SQLite uses a VFS rather than on its documented contract:
// - the VFS registers only for the SQLite versions the test suite ran on (SB_SQLITE_MIN_VERSION ..
//   SB_SQLITE_END_VERSION); elsewhere `csqlite_wal_register` refuses and the store opens on the default VFS;
// - a file whose default-VFS methods are an older `iVersion` gets the method table of that version (no `xShm*` below
//   2, no `xFetch`/`xUnfetch` below 3), so nothing is forwarded to a method the real file does not have, and such a
//   file gathers nothing;
// - the gather buffers are freed after a checkpoint: the WAL's when the WAL starts over (its header is rewritten at
//   offset 0, which happens only once a checkpoint copied every frame) or is truncated, the database file's when the
//   checkpoint syncs it. A large transaction's 4 MiB is not held for the life of the connection.
#include "CSQLiteWAL.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

/// A run gathered for one transaction is written when it would grow past this (a very large transaction then
/// costs one `pwrite` per 4 MiB rather than two per page).
#define GATHER_LIMIT (4 * 1024 * 1024)
/// The most one write to the default VFS may carry: its `unixWrite` masks each `pwrite`'s length with 0x1ffff, so a
/// write of exactly 128 KiB (or any remainder that is a multiple of it) would write nothing and fail as SQLITE_FULL.
#define WRITE_CHUNK (31 * 4096)
/// The database file's runs (a checkpoint's copies, in page order) stop at one write: `flushGathered` writes in
/// WRITE_CHUNK pieces anyway, so a larger buffer saves no system call, and it would stay allocated between checkpoints
/// (2 MiB held at rest, counted against every connected device).
#define gatherLimit(p) ((p)->isWal ? GATHER_LIMIT : WRITE_CHUNK)
/// WAL frame header size (SQLite's file format).
#define FRAME_HEADER 24
/// Custom file-control opcodes on the database file: the counters of its connection's WAL file; a fault to inject.
#define FCNTL_WAL_COUNTERS 0x5357
#define FCNTL_WAL_FAULT 0x5358
/// The most a sub-journal keeps in memory before it moves to a temporary file (see the top of this file).
#define SUBJOURNAL_MEMORY_LIMIT (4 * 1024 * 1024)
/// The SQLite versions this VFS was tested on (`sqlite3_libversion_number()`, from inclusive, to exclusive): Debian
/// 12's 3.40.1, which CI, the container image and the test suite run. Widen it only after `StorageTests` and the
/// kill -9 tests passed on the new version: the commit detection and the sub-journal handling depend on SQLite's
/// internals (a frame header written alone as 24 bytes, the sub-journal open flag), not on its documented contract.
#define SB_SQLITE_MIN_VERSION 3040000
#define SB_SQLITE_END_VERSION 3041000

typedef struct SbFile SbFile;
struct SbFile {
    sqlite3_file base;
    sqlite3_file *real;   // the default VFS's file, allocated right after this struct
    // Database file: its connection's WAL file while open (for `xShmBarrier`).
    SbFile *wal;
    // WAL file: its database file, and the gathered run [start, start + length).
    SbFile *db;
    int isWal;
    int gathers;   // the WAL file, or the database file (whose writes in WAL mode are a checkpoint's copies)
    unsigned char *buffer;
    int capacity;
    int length;
    sqlite3_int64 start;
    int commitPageNext;   // the last write was a commit frame's header: its page ends the transaction
    int deferredError;    // a failed write from `xShmBarrier`, reported by the next write or sync
    int fault;            // a csqlite_wal_fault the next write (or sync) to the OS fails with, for tests
    csqlite_wal_counters counters;
};

/// A sub-journal: in memory up to SUBJOURNAL_MEMORY_LIMIT, then the default VFS's temporary file (`disk`).
typedef struct {
    sqlite3_file base;
    unsigned char *bytes;
    sqlite3_int64 size;
    sqlite3_int64 capacity;
    sqlite3_file *disk;   // once spilled: the default VFS's file, in the space after this struct (as SbFile's `real`)
    int flags;            // the open flags, for the temporary file
} MemFile;

static sqlite3_vfs *realVfs;
static sqlite3_vfs sbVfs;
static const sqlite3_io_methods sbMethodsV1, sbMethodsV2, sbMethodsV3;
static int registerResult = SQLITE_OK;
static pthread_once_t registerOnce = PTHREAD_ONCE_INIT;

#define REAL_OFFSET ((int)((sizeof(SbFile) + 7) & ~(size_t)7))
_Static_assert(sizeof(MemFile) <= sizeof(SbFile), "a MemFile and its spilled file fit in an SbFile's space");

static int isSbFile(const sqlite3_file *file) {
    return file->pMethods == &sbMethodsV1 || file->pMethods == &sbMethodsV2 || file->pMethods == &sbMethodsV3;
}

/// One write to the default VFS (or the injected fault instead of it).
static int realWrite(SbFile *p, const void *data, int amount, sqlite3_int64 offset) {
    p->counters.flushes += 1;
    if (p->fault == CSQLITE_WAL_FAULT_WRITE) {
        p->fault = CSQLITE_WAL_FAULT_NONE;
        return SQLITE_IOERR_WRITE;
    }
    return p->real->pMethods->xWrite(p->real, data, amount, offset);
}

static int flushGathered(SbFile *p) {
    int length = p->length;
    p->length = 0;   // on failure SQLite rolls the transaction back; its frames are rewritten by the next one
    for (int done = 0; done < length; done += WRITE_CHUNK) {
        int amount = length - done < WRITE_CHUNK ? length - done : WRITE_CHUNK;
        int rc = realWrite(p, p->buffer + done, amount, p->start + done);
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/// Writes what is gathered and frees the buffer (after a checkpoint: see the top of this file).
static int releaseBuffer(SbFile *p) {
    int rc = flushGathered(p);
    sqlite3_free(p->buffer);
    p->buffer = NULL;
    p->capacity = 0;
    return rc;
}

static int takeDeferredError(SbFile *p) {
    int rc = p->deferredError;
    p->deferredError = SQLITE_OK;
    return rc;
}

static int reserve(SbFile *p, int bytes) {
    if (bytes <= p->capacity) return SQLITE_OK;
    int capacity = p->capacity ? p->capacity : 64 * 1024;
    while (capacity < bytes) capacity *= 2;
    if (capacity > gatherLimit(p)) capacity = gatherLimit(p);
    unsigned char *grown = sqlite3_realloc(p->buffer, capacity);
    if (!grown) return SQLITE_NOMEM;
    p->buffer = grown;
    p->capacity = capacity;
    return SQLITE_OK;
}

/// Adds a write to the gathered run, or writes the run and starts a new one with it.
static int gather(SbFile *p, const void *data, int amount, sqlite3_int64 offset) {
    int rc;
    p->counters.writes += 1;
    // Continues (or rewrites part of) the gathered run, and fits: copy it in.
    if (p->length > 0 && offset >= p->start && offset <= p->start + p->length
        && offset + amount - p->start <= gatherLimit(p)) {
        int end = (int)(offset + amount - p->start);
        if ((rc = reserve(p, end)) != SQLITE_OK) return rc;
        memcpy(p->buffer + (offset - p->start), data, amount);
        if (end > p->length) p->length = end;
    } else {
        if ((rc = flushGathered(p)) != SQLITE_OK) return rc;
        if (amount > WRITE_CHUNK || reserve(p, amount) != SQLITE_OK) {
            return realWrite(p, data, amount, offset);   // SQLite's own writes are ≤ a page
        }
        memcpy(p->buffer, data, amount);
        p->start = offset;
        p->length = amount;
    }
    return SQLITE_OK;
}

static int walWrite(SbFile *p, const void *data, int amount, sqlite3_int64 offset) {
    int rc = takeDeferredError(p);
    if (rc != SQLITE_OK) return rc;
    // The WAL header, written when the WAL is created or starts over after a checkpoint copied all of it.
    if (offset == 0 && (rc = releaseBuffer(p)) != SQLITE_OK) return rc;
    const unsigned char *bytes = data;
    int endsTransaction = p->commitPageNext;
    p->commitPageNext = amount == FRAME_HEADER && (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
    if ((rc = gather(p, data, amount, offset)) != SQLITE_OK) return rc;
    return endsTransaction ? flushGathered(p) : SQLITE_OK;
}

// MARK: io methods

static int sbClose(sqlite3_file *file) {
    SbFile *p = (SbFile *)file;
    int rc = p->gathers ? releaseBuffer(p) : SQLITE_OK;
    if (p->isWal && p->db && p->db->wal == p) p->db->wal = NULL;
    if (!p->isWal && p->wal) p->wal->db = NULL;
    int closed = p->real->pMethods ? p->real->pMethods->xClose(p->real) : SQLITE_OK;
    return rc != SQLITE_OK ? rc : closed;
}

static int sbRead(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset) {
    SbFile *p = (SbFile *)file;
    if (p->gathers && p->length > 0 && offset < p->start + p->length && offset + amount > p->start) {
        int rc = flushGathered(p);
        if (rc != SQLITE_OK) return rc;
    }
    return p->real->pMethods->xRead(p->real, data, amount, offset);
}

static int sbWrite(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    SbFile *p = (SbFile *)file;
    if (p->isWal) return walWrite(p, data, amount, offset);
    if (p->gathers) return gather(p, data, amount, offset);
    return p->real->pMethods->xWrite(p->real, data, amount, offset);
}

/// Writes what is gathered before an operation that must see the file as SQLite wrote it.
static int settle(SbFile *p) {
    if (!p->gathers) return SQLITE_OK;
    int rc = takeDeferredError(p);
    return rc != SQLITE_OK ? rc : flushGathered(p);
}

static int sbTruncate(sqlite3_file *file, sqlite3_int64 size) {
    SbFile *p = (SbFile *)file;
    int rc = settle(p);
    // A WAL is cut back (`journal_size_limit`) only after it started over: its buffer is not needed until the next run.
    if (rc == SQLITE_OK && p->isWal) rc = releaseBuffer(p);
    return rc != SQLITE_OK ? rc : p->real->pMethods->xTruncate(p->real, size);
}

static int sbSync(sqlite3_file *file, int flags) {
    SbFile *p = (SbFile *)file;
    int rc = settle(p);
    // In WAL mode the database file is written and synced only by a checkpoint, which ends here.
    if (rc == SQLITE_OK && p->gathers && !p->isWal) rc = releaseBuffer(p);
    if (rc == SQLITE_OK && p->fault == CSQLITE_WAL_FAULT_SYNC) {
        p->fault = CSQLITE_WAL_FAULT_NONE;
        return SQLITE_IOERR_FSYNC;
    }
    return rc != SQLITE_OK ? rc : p->real->pMethods->xSync(p->real, flags);
}

static int sbFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    SbFile *p = (SbFile *)file;
    int rc = settle(p);
    return rc != SQLITE_OK ? rc : p->real->pMethods->xFileSize(p->real, size);
}

static int sbLock(sqlite3_file *file, int level) {
    SbFile *p = (SbFile *)file;
    int rc = settle(p);
    return rc != SQLITE_OK ? rc : p->real->pMethods->xLock(p->real, level);
}

static int sbUnlock(sqlite3_file *file, int level) {
    SbFile *p = (SbFile *)file;
    int rc = settle(p);
    return rc != SQLITE_OK ? rc : p->real->pMethods->xUnlock(p->real, level);
}

static int sbCheckReservedLock(sqlite3_file *file, int *out) {
    SbFile *p = (SbFile *)file;
    return p->real->pMethods->xCheckReservedLock(p->real, out);
}

static int sbFileControl(sqlite3_file *file, int op, void *arg) {
    SbFile *p = (SbFile *)file;
    if (op == FCNTL_WAL_COUNTERS) {
        csqlite_wal_counters *out = arg;
        memset(out, 0, sizeof *out);
        if (p->wal) *out = p->wal->counters;
        out->databaseWrites = p->counters.writes;
        out->databasePwrites = p->counters.flushes;
        out->walBufferBytes = p->wal ? p->wal->capacity : 0;
        out->databaseBufferBytes = p->capacity;
        return SQLITE_OK;
    }
    if (op == FCNTL_WAL_FAULT) {
        if (!p->wal) return SQLITE_NOTFOUND;
        p->wal->fault = *(int *)arg;
        return SQLITE_OK;
    }
    int rc = settle(p);
    return rc != SQLITE_OK ? rc : p->real->pMethods->xFileControl(p->real, op, arg);
}

static int sbSectorSize(sqlite3_file *file) {
    SbFile *p = (SbFile *)file;
    return p->real->pMethods->xSectorSize(p->real);
}

static int sbDeviceCharacteristics(sqlite3_file *file) {
    SbFile *p = (SbFile *)file;
    return p->real->pMethods->xDeviceCharacteristics(p->real);
}

static int sbShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **out) {
    SbFile *p = (SbFile *)file;
    return p->real->pMethods->xShmMap(p->real, region, size, extend, out);
}

static int sbShmLock(sqlite3_file *file, int offset, int n, int flags) {
    SbFile *p = (SbFile *)file;
    // A checkpoint publishes what it copied (nBackfill) and then unlocks: its copies must be in the OS first.
    int rc = settle(p);
    return rc != SQLITE_OK ? rc : p->real->pMethods->xShmLock(p->real, offset, n, flags);
}

static void sbShmBarrier(sqlite3_file *file) {
    SbFile *p = (SbFile *)file;
    if (p->length > 0) {
        int rc = flushGathered(p);
        if (rc != SQLITE_OK && p->deferredError == SQLITE_OK) p->deferredError = rc;
    }
    if (p->wal && p->wal->length > 0) {
        int rc = flushGathered(p->wal);
        if (rc != SQLITE_OK && p->wal->deferredError == SQLITE_OK) p->wal->deferredError = rc;
    }
    p->real->pMethods->xShmBarrier(p->real);
}

static int sbShmUnmap(sqlite3_file *file, int deleteFlag) {
    SbFile *p = (SbFile *)file;
    return p->real->pMethods->xShmUnmap(p->real, deleteFlag);
}

static int sbFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    SbFile *p = (SbFile *)file;
    int rc = settle(p);
    if (rc != SQLITE_OK) return rc;
    return p->real->pMethods->xFetch(p->real, offset, amount, out);
}

static int sbUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *page) {
    SbFile *p = (SbFile *)file;
    return p->real->pMethods->xUnfetch(p->real, offset, page);
}

// One table per `iVersion` of the default VFS's file: a method is forwarded only where the real file has it.
static const sqlite3_io_methods sbMethodsV1 = {
    1, sbClose, sbRead, sbWrite, sbTruncate, sbSync, sbFileSize, sbLock, sbUnlock, sbCheckReservedLock,
    sbFileControl, sbSectorSize, sbDeviceCharacteristics, 0, 0, 0, 0, 0, 0,
};
static const sqlite3_io_methods sbMethodsV2 = {
    2, sbClose, sbRead, sbWrite, sbTruncate, sbSync, sbFileSize, sbLock, sbUnlock, sbCheckReservedLock,
    sbFileControl, sbSectorSize, sbDeviceCharacteristics, sbShmMap, sbShmLock, sbShmBarrier, sbShmUnmap, 0, 0,
};
static const sqlite3_io_methods sbMethodsV3 = {
    3, sbClose, sbRead, sbWrite, sbTruncate, sbSync, sbFileSize, sbLock, sbUnlock, sbCheckReservedLock,
    sbFileControl, sbSectorSize, sbDeviceCharacteristics, sbShmMap, sbShmLock, sbShmBarrier, sbShmUnmap,
    sbFetch, sbUnfetch,
};

/// The table for a real file of `iVersion` `version` (a later version than 3 gets 3: its extra methods are unused).
static const sqlite3_io_methods *methodsFor(int version) {
    return version >= 3 ? &sbMethodsV3 : version == 2 ? &sbMethodsV2 : &sbMethodsV1;
}


// MARK: sub-journals, in memory up to a limit

static int64_t _Atomic subJournalsInMemory;
static int64_t _Atomic subJournalsSpilled;

static int memClose(sqlite3_file *file) {
    MemFile *m = (MemFile *)file;
    sqlite3_free(m->bytes);
    m->bytes = NULL;
    m->size = m->capacity = 0;
    int rc = m->disk && m->disk->pMethods ? m->disk->pMethods->xClose(m->disk) : SQLITE_OK;
    m->disk = NULL;
    return rc;
}

/// Moves the sub-journal to the default VFS's temporary file (what SQLite does past 64 KiB) and frees its memory.
static int spill(MemFile *m) {
    sqlite3_file *disk = (sqlite3_file *)((char *)m + REAL_OFFSET);
    int rc = realVfs->xOpen(realVfs, NULL, disk, m->flags, NULL);
    for (sqlite3_int64 done = 0; rc == SQLITE_OK && done < m->size; done += WRITE_CHUNK) {
        int amount = m->size - done < WRITE_CHUNK ? (int)(m->size - done) : WRITE_CHUNK;
        rc = disk->pMethods->xWrite(disk, m->bytes + done, amount, done);
    }
    if (rc != SQLITE_OK) {
        if (disk->pMethods) disk->pMethods->xClose(disk);
        return rc;
    }
    sqlite3_free(m->bytes);
    m->bytes = NULL;
    m->size = m->capacity = 0;
    m->disk = disk;
    atomic_fetch_add_explicit(&subJournalsSpilled, 1, memory_order_relaxed);
    return SQLITE_OK;
}

static int memRead(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset) {
    MemFile *m = (MemFile *)file;
    if (m->disk) return m->disk->pMethods->xRead(m->disk, data, amount, offset);
    sqlite3_int64 available = offset < m->size ? m->size - offset : 0;
    if (available >= amount) {
        memcpy(data, m->bytes + offset, amount);
        return SQLITE_OK;
    }
    if (available > 0) memcpy(data, m->bytes + offset, available);
    memset((char *)data + available, 0, amount - available);
    return SQLITE_IOERR_SHORT_READ;
}

static int memWrite(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    MemFile *m = (MemFile *)file;
    sqlite3_int64 end = offset + amount;
    if (!m->disk && end > SUBJOURNAL_MEMORY_LIMIT) {
        int rc = spill(m);
        if (rc != SQLITE_OK) return rc;
    }
    if (m->disk) return m->disk->pMethods->xWrite(m->disk, data, amount, offset);
    if (end > m->capacity) {
        sqlite3_int64 capacity = m->capacity ? m->capacity : 64 * 1024;
        while (capacity < end) capacity *= 2;
        unsigned char *grown = sqlite3_realloc64(m->bytes, (sqlite3_uint64)capacity);
        if (!grown) return SQLITE_IOERR_NOMEM;
        m->bytes = grown;
        m->capacity = capacity;
    }
    if (offset > m->size) memset(m->bytes + m->size, 0, offset - m->size);
    memcpy(m->bytes + offset, data, amount);
    if (end > m->size) m->size = end;
    return SQLITE_OK;
}

static int memTruncate(sqlite3_file *file, sqlite3_int64 size) {
    MemFile *m = (MemFile *)file;
    if (m->disk) return m->disk->pMethods->xTruncate(m->disk, size);
    if (size < m->size) m->size = size;
    return SQLITE_OK;
}

static int memSync(sqlite3_file *file, int flags) {
    (void)file; (void)flags;
    return SQLITE_OK;
}

static int memFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    MemFile *m = (MemFile *)file;
    if (m->disk) return m->disk->pMethods->xFileSize(m->disk, size);
    *size = m->size;
    return SQLITE_OK;
}

static int memLock(sqlite3_file *file, int level) {
    (void)file; (void)level;
    return SQLITE_OK;
}

static int memCheckReservedLock(sqlite3_file *file, int *out) {
    (void)file;
    *out = 0;
    return SQLITE_OK;
}

static int memFileControl(sqlite3_file *file, int op, void *arg) {
    (void)file; (void)op; (void)arg;
    return SQLITE_NOTFOUND;
}

static int memSectorSize(sqlite3_file *file) {
    (void)file;
    return 4096;
}

static int memDeviceCharacteristics(sqlite3_file *file) {
    (void)file;
    return SQLITE_IOCAP_ATOMIC | SQLITE_IOCAP_SAFE_APPEND | SQLITE_IOCAP_SEQUENTIAL | SQLITE_IOCAP_POWERSAFE_OVERWRITE;
}

static const sqlite3_io_methods memMethods = {
    1, memClose, memRead, memWrite, memTruncate, memSync, memFileSize, memLock, memLock, memCheckReservedLock,
    memFileControl, memSectorSize, memDeviceCharacteristics, 0, 0, 0, 0, 0, 0,
};

// MARK: vfs methods (all but xOpen forward to the default VFS)

static int sbOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    if (flags & SQLITE_OPEN_SUBJOURNAL) {
        MemFile *m = (MemFile *)file;
        memset(m, 0, sizeof *m);
        m->base.pMethods = &memMethods;
        m->flags = flags;
        if (outFlags) *outFlags = flags;
        atomic_fetch_add_explicit(&subJournalsInMemory, 1, memory_order_relaxed);
        return SQLITE_OK;
    }
    SbFile *p = (SbFile *)file;
    memset(p, 0, sizeof *p);
    p->real = (sqlite3_file *)((char *)p + REAL_OFFSET);
    int rc = realVfs->xOpen(realVfs, name, p->real, flags, outFlags);
    if (p->real->pMethods == NULL) {
        p->base.pMethods = NULL;
        return rc;
    }
    int version = p->real->pMethods->iVersion;
    p->base.pMethods = methodsFor(version);
    // Gathering needs the shared-memory methods (the commit's safety net, the checkpoint's flush before it publishes).
    int canGather = rc == SQLITE_OK && version >= 2;
    if (canGather && (flags & SQLITE_OPEN_MAIN_DB)) p->gathers = 1;
    if (canGather && (flags & SQLITE_OPEN_WAL) && name) {
        p->isWal = 1;
        p->gathers = 1;
        sqlite3_file *db = sqlite3_database_file_object(name);
        if (db && isSbFile(db)) {
            p->db = (SbFile *)db;
            p->db->wal = p;
        }
    }
    return rc;
}

static int sbDelete(sqlite3_vfs *vfs, const char *name, int syncDir) {
    (void)vfs;
    return realVfs->xDelete(realVfs, name, syncDir);
}

static int sbAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return realVfs->xAccess(realVfs, name, flags, out);
}

static int sbFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return realVfs->xFullPathname(realVfs, name, size, out);
}

static void *sbDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return realVfs->xDlOpen(realVfs, name);
}

static void sbDlError(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    realVfs->xDlError(realVfs, size, out);
}

static void (*sbDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return realVfs->xDlSym(realVfs, handle, symbol);
}

static void sbDlClose(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    realVfs->xDlClose(realVfs, handle);
}

static int sbRandomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return realVfs->xRandomness(realVfs, size, out);
}

static int sbSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return realVfs->xSleep(realVfs, microseconds);
}

static int sbCurrentTime(sqlite3_vfs *vfs, double *out) {
    (void)vfs;
    return realVfs->xCurrentTime(realVfs, out);
}

static int sbGetLastError(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return realVfs->xGetLastError ? realVfs->xGetLastError(realVfs, size, out) : 0;
}

static int sbCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return realVfs->xCurrentTimeInt64(realVfs, out);
}

int csqlite_wal_version_supported(int version) {
    return version >= SB_SQLITE_MIN_VERSION && version < SB_SQLITE_END_VERSION;
}

static void registerVfs(void) {
    if (!csqlite_wal_version_supported(sqlite3_libversion_number())) {
        registerResult = SQLITE_MISMATCH;
        return;
    }
    realVfs = sqlite3_vfs_find(NULL);
    // This VFS is `iVersion` 2 (it forwards `xCurrentTimeInt64`, not version 3's system-call overrides).
    if (!realVfs || realVfs->iVersion < 2) {
        registerResult = SQLITE_ERROR;
        return;
    }
    sbVfs.iVersion = 2;
    sbVfs.szOsFile = REAL_OFFSET + realVfs->szOsFile;
    sbVfs.mxPathname = realVfs->mxPathname;
    sbVfs.zName = "sb-wal";
    sbVfs.xOpen = sbOpen;
    sbVfs.xDelete = sbDelete;
    sbVfs.xAccess = sbAccess;
    sbVfs.xFullPathname = sbFullPathname;
    sbVfs.xDlOpen = sbDlOpen;
    sbVfs.xDlError = sbDlError;
    sbVfs.xDlSym = sbDlSym;
    sbVfs.xDlClose = sbDlClose;
    sbVfs.xRandomness = sbRandomness;
    sbVfs.xSleep = sbSleep;
    sbVfs.xCurrentTime = sbCurrentTime;
    sbVfs.xGetLastError = sbGetLastError;
    sbVfs.xCurrentTimeInt64 = sbCurrentTimeInt64;
    registerResult = sqlite3_vfs_register(&sbVfs, 0);
}

int csqlite_wal_register(void) {
    pthread_once(&registerOnce, registerVfs);
    return registerResult;
}

const char *csqlite_wal_vfs_name(void) { return "sb-wal"; }

int csqlite_wal_counters_read(sqlite3 *db, csqlite_wal_counters *out) {
    return sqlite3_file_control(db, "main", FCNTL_WAL_COUNTERS, out);
}

int64_t csqlite_wal_subjournals_in_memory(void) {
    return atomic_load_explicit(&subJournalsInMemory, memory_order_relaxed);
}

int64_t csqlite_wal_subjournals_spilled(void) {
    return atomic_load_explicit(&subJournalsSpilled, memory_order_relaxed);
}

int csqlite_wal_inject_fault(sqlite3 *db, int fault) {
    return sqlite3_file_control(db, "main", FCNTL_WAL_FAULT, &fault);
}
