#!/usr/bin/env python3
"""Fills a migrated Switchboard SQLite database for the start-up benchmark (loadtest/bench/startup.sh): USERS users,
each with one device and a contact (the next user), and EVENTS events spread evenly over them, inserted in primary-key
order in one transaction. Usage: startup-fill.py DATABASE USERS EVENTS"""
import sqlite3
import sys
import time

path, users, events = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
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
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
