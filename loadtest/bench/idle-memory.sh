#!/usr/bin/env bash
# Idle memory behind docs/BENCHMARKS.md: a fresh server per run (allocators keep freed memory, so a second run on
# the same process would under-count), pinned to core 0, the generator on core 1. Prints the report lines that
# matter: upgrade latency, server RSS and bytes per held connection.
# Usage: loadtest/bench/idle-memory.sh [switchboard|ws|picows] CONNECTIONS [extra switchboard-load options]
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="$(swift build -c release --show-bin-path)"
server="$1" connections="$2"; shift 2
case "$server" in
    switchboard) taskset -c 0 "$BIN/switchboard" serve --echo --listen 127.0.0.1:19301 --event-loops 1 --log-level warning & ;;
    ws) NODE_PATH=/usr/share/nodejs taskset -c 0 node loadtest/peers/ws-echo.js 19301 2>/dev/null & ;;
    picows) taskset -c 0 "${PICOWS_PYTHON:-python3}" loadtest/peers/picows-echo.py 19301 2>/dev/null & ;;
    *) echo "unknown server $server" >&2; exit 64 ;;
esac
PID=$!
trap 'kill "$PID" 2>/dev/null || true' EXIT
sleep 2
taskset -c 1 "$BIN/switchboard-load" idle --connections "$connections" --rate 2000 --duration 3 \
    --url ws://127.0.0.1:19301/ --server-pid "$PID" "$@" 2>/dev/null | grep -E "connections|upgrade|errors|server|memory|result"
