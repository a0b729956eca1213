#!/usr/bin/env bash
# Gateway scenarios behind docs/BENCHMARKS.md: a fresh `switchboard serve` per run (generated config: HS256 secret,
# API key, a new SQLite database in a temp dir, approval_min_timeout_ms = 100, presence grace GRACE_MS or 300 ms),
# pinned to core 0 with one event loop; the generator pinned to core 1. Prints the report (stdout); JSON with
# --json FILE like any run. With PERF_OUT=FILE the server is profiled with `perf record -g` for the whole run; with
# PERF_STAT=FILE its CPU time, context switches and system calls are counted per thread (`perf stat --per-thread`;
# PERF_STAT_EVENTS replaces the event list, e.g. with syscalls:sys_enter_pwrite64 to count one system call).
# EXTRA_TOML (text) is appended to the config, e.g. EXTRA_TOML=$'[websocket.compression]\nthreshold_bytes = 0';
# STORAGE_TOML (text) goes into its [storage] section, e.g. STORAGE_TOML='gather_wal_writes = false'.
# BIN=DIR runs the switchboard and switchboard-load binaries in DIR instead of this checkout's release build (e.g. a
# copy of an earlier build, to compare two builds in one sitting). PORT (default 19431) is the server's port: give
# runs that may overlap (another checkout benchmarking on the same machine) their own.
# Usage: loadtest/bench/gateway.sh SCENARIO [switchboard-load options, e.g. --connections 10000 --request-rate 2000]
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${BIN:-$(swift build -c release --show-bin-path)}"
scenario="$1"; shift
DIR="$(mktemp -d)"
PORT="${PORT:-19431}"
SECRET="bench-hs256-secret-0123456789"
KEY="bench-api-key-0123456789"
cat >"$DIR/gateway.toml" <<TOML
[auth]
hs256_secret = "$SECRET"
api_keys = ["$KEY"]

[storage]
path = "$DIR/gateway.db"
${STORAGE_TOML:-}

[gateway]
approval_min_timeout_ms = 100
presence_grace_ms = ${GRACE_MS:-300}
# fanout's subscribers are all devices of one user (up to 10 000 in the benchmarks): above the per-user cap's default.
max_sockets_per_user = 100000
${EXTRA_TOML:-}
TOML
taskset -c 0 "$BIN/switchboard" serve --config "$DIR/gateway.toml" --listen "127.0.0.1:$PORT" --event-loops 1 \
    --log-level warning &
PID=$!
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -rf "$DIR"' EXIT
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
if [ -n "${PERF_OUT:-}" ]; then  # profile the server for the whole run: PERF_OUT=server.data loadtest/bench/gateway.sh …
    perf record -F 499 -g -p "$PID" -o "$PERF_OUT" 2>/dev/null &
    PERF=$!
    # perf -p ends by itself when the server exits.
    trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; wait "$PERF" 2>/dev/null; rm -rf "$DIR"' EXIT
fi
if [ -n "${PERF_STAT:-}" ]; then  # counts per thread: PERF_STAT=server.stat loadtest/bench/gateway.sh …
    perf stat --per-thread -e "${PERF_STAT_EVENTS:-task-clock,context-switches,raw_syscalls:sys_enter}" -p "$PID" -o "$PERF_STAT" 2>/dev/null &
    STAT=$!
    trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; wait "$STAT" 2>/dev/null; rm -rf "$DIR"' EXIT
fi
taskset -c 1 "$BIN/switchboard-load" "$scenario" --url "ws://127.0.0.1:$PORT/v1/ws" --jwt-secret "$SECRET" \
    --api-key "$KEY" --server-pid "$PID" "$@"
