#!/usr/bin/env bash
# Start-up with a large database behind docs/BENCHMARKS.md (start-up): generates a SQLite database with USERS users
# (a device and a contact each), EVENTS events, and for the first SESSIONS users an open and an ended session, APPROVALS
# of them with a pending approval (loadtest/bench/startup-fill.py), then starts `serve` on it RUNS
# times and prints, per run, the time from exec to /readyz answering 200 and the server's RSS at that moment. The
# database is generated once for all runs (or reused when DB=path names an existing one).
# Usage: loadtest/bench/startup.sh [USERS] [EVENTS] [RUNS] [SESSIONS] [APPROVALS]
#        (defaults 1000000 10000000 3 0 0; BIN=dir for another build)
set -euo pipefail
cd "$(dirname "$0")/../.."
users="${1:-1000000}" events="${2:-10000000}" runs="${3:-3}" sessions="${4:-0}" approvals="${5:-0}"
BIN="${BIN:-$(swift build -c release --show-bin-path)}"
dir="$(mktemp -d)"
db="${DB:-$dir/switchboard.db}"
trap 'kill "${PID:-}" 2>/dev/null || true; rm -rf "$dir"' EXIT
if [ ! -e "$db" ]; then
    "$BIN/switchboard" migrate --storage-path "$db" >/dev/null
    start=$(date +%s.%N)
    python3 loadtest/bench/startup-fill.py "$db" "$users" "$events" "$sessions" "$approvals"
    printf 'generated %s users, %s events, %s sessions, %s pending approvals in %.0f s: %s\n' "$users" "$events" "$sessions" \
        "$approvals" "$(echo "$(date +%s.%N) - $start" | bc)" "$(du -h "$db" | cut -f1)"
fi
port=19341
for run in $(seq "$runs"); do
    sync
    start=$(date +%s%N)
    "$BIN/switchboard" serve --storage-path "$db" --listen "127.0.0.1:$port" --event-loops 1 --log-level warning &
    PID=$!
    until curl -sf -o /dev/null "http://127.0.0.1:$port/readyz"; do
        kill -0 "$PID" 2>/dev/null || { echo "serve exited" >&2; exit 1; }
        sleep 0.005
    done
    ready=$(( ($(date +%s%N) - start) / 1000000 ))
    rss=$(awk '/VmRSS/ { print $2 }' "/proc/$PID/status")
    printf 'run %d: /readyz after %d ms, RSS %d KiB\n' "$run" "$ready" "$rss"
    kill -TERM "$PID"; wait "$PID" 2>/dev/null || true
    PID=
done
