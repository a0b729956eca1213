#!/usr/bin/env bash
# Instructions per echoed frame behind docs/BENCHMARKS.md: the release `switchboard serve --echo` (one event loop)
# under `valgrind --tool=callgrind`, driven twice by the harness: a BASE run (the connections open, no traffic,
# close) and a LOAD run (the same connections echoing 20 B messages for SECONDS). Instructions per frame =
# (Ir(load) − Ir(base)) ÷ (frames(load) − frames(base)), so start-up, upgrades and closes cancel out; one echoed
# frame is one frame in plus one frame out. Instruction counts do not depend on machine noise.
# Known limit: valgrind 3.19 (Debian 12) dies with an internal SIGSEGV as soon as `switchboard serve` starts (main
# thread in libdispatch's `_dispatch_sigsuspend`), before it listens, under callgrind and even `--tool=none`; the script
# then reports no numbers. It is kept for machines with a valgrind that runs the server.
# Usage: loadtest/bench/callgrind-echo.sh [CONNECTIONS] [SECONDS]   (default 10 connections, 20 s, depth 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="$(swift build -c release --show-bin-path)"
CONNECTIONS="${1:-10}"
SECONDS_="${2:-20}"
PORT="${PORT:-19701}"
DIR="${KEEP_DIR:-$(mktemp -d)}"
run() {  # name duration
    valgrind --tool=callgrind --callgrind-out-file="$DIR/$1.callgrind" \
        "$BIN/switchboard" serve --echo --listen "127.0.0.1:$PORT" --event-loops 1 --log-level warning \
        2>"$DIR/$1.valgrind.log" &
    local pid=$!
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.2
    done
    "$BIN/switchboard-load" echo --url "ws://127.0.0.1:$PORT/" --connections "$CONNECTIONS" --size 20 --depth 1 \
        --duration "$2" --rate 1000 --drain-timeout 10 --json "$DIR/$1.json" >/dev/null 2>&1 || true
    kill -INT "$pid"; wait "$pid" || true
}
run base 0
run load "$SECONDS_"
python3 - "$DIR" <<'PY'
import json, re, sys
d = sys.argv[1]
def ir(name):
    for line in open(f"{d}/{name}.callgrind"):
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
def frames(name): return json.load(open(f"{d}/{name}.json"))["messagesReceived"]
ib, il, fb, fl = ir("base"), ir("load"), frames("base"), frames("load")
passed = json.load(open(f"{d}/load.json"))["passed"]
print(f"Ir base {ib:,}  load {il:,}  frames echoed base {fb:,}  load {fl:,}  load run verified: {passed}")
print(f"instructions per echoed frame: {(il - ib) / max(1, fl - fb):.0f}")
PY
echo "top functions (inclusive of nothing: self cost) in the load run:"
callgrind_annotate --threshold=90 "$DIR/load.callgrind" 2>/dev/null | sed -n '/^Ir/,$p' | head -28 | cut -c1-160
echo "(profiles in $DIR)"
