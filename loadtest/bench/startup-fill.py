#!/usr/bin/env python3
"""Fills a migrated Switchboard SQLite database for the start-up benchmark (loadtest/bench/startup.sh): USERS users,
each with one device and a contact (the next user), and EVENTS events spread evenly over them, inserted in primary-key
order in one transaction. SESSIONS: the first SESSIONS users have an open session and an ended one each; APPROVALS
of those sessions have an approval pending (deadline in a day, so none expires during the runs) and every session's user one denied approval.
Usage: startup-fill.py DATABASE USERS EVENTS [SESSIONS [APPROVALS]]"""
import sqlite3
import sys
import time

path, users, events = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sessions = min(users, int(sys.argv[4]) if len(sys.argv) > 4 else 0)
approvals = min(sessions, int(sys.argv[5]) if len(sys.argv) > 5 else 0)
now = int(time.time() * 1000)
db = sqlite3.connect(path)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA synchronous = OFF")
db.execute("PRAGMA cache_size = -262144")


def uid(n):
    return "u%07d" % n


with db:
    db.executemany("INSERT INTO users (id, hex_code, display_name, created_at) VALUES (?, ?, NULL, ?)",
                   ((uid(n), "%08x" % n, now) for n in range(users)))
    db.executemany("INSERT INTO devices (id, user_id, client_type, created_at) VALUES ('phone', ?, 'ios', ?)",
                   ((uid(n), now) for n in range(users)))
    db.executemany("INSERT INTO contacts (user_id, contact_id, created_at, active) VALUES (?, ?, ?, 1)",
                   ((uid(n), uid((n + 1) % users), now) for n in range(users)))
    per_user, extra = divmod(events, users)

    def rows():
        payload = b'{"name":"bench","payload":{"n":1}}'
        for n in range(users):
            for offset in range(1, per_user + (1 if n < extra else 0) + 1):
                yield (uid(n), offset, payload, now)

    db.executemany("INSERT INTO events (user_id, \"offset\", type, payload, created_at) VALUES (?, ?, 'custom', ?, ?)", rows())
    db.executemany("INSERT INTO sessions (id, user_id, title, state, created_at, ended_at, seq) VALUES (?, ?, 'run', ?, ?, ?, ?)",
                   (row for n in range(sessions) for row in (("open-%d" % n, uid(n), "active", now, None, 2 * n + 1),
                                                            ("ended-%d" % n, uid(n), "ended", now - 1000, now, 2 * n + 2))))
    approval = "INSERT INTO approvals (id, user_id, session_id, tool_name, summary, state, created_at, expires_at, resolved_at, seq) " \
               "VALUES (?, ?, ?, 'shell', 'ls', ?, ?, ?, ?, ?)"
    db.executemany(approval, (("apr_%d" % (n + 1), uid(n), "ended-%d" % n, "denied", now - 1000, now + 59000, now, n + 1)
                              for n in range(sessions)))
    db.executemany(approval, (("apr_%d" % (sessions + n + 1), uid(n), "open-%d" % n, "pending", now, now + 86400000, None,
                               sessions + n + 1) for n in range(approvals)))
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
