#!/usr/bin/env bash
# Fan-out vs socketify behind docs/BENCHMARKS.md: `switchboard-load fanout` (one user, CONNECTIONS subscribers, the
# backend publishing at PUBLISH_RATE) against the gateway (loadtest/bench/gateway.sh: fresh server and database per
# run, core 0, one event loop) and against loadtest/peers/socketify-fanout.py (SOCKETIFY_PYTHON, a venv with
# socketify; core 0), generator on core 1, ROUNDS (3) interleaved rounds. Server CPU per delivery = (CPU of the run
# − CPU of the same run with --duration 0) ÷ the deliveries between them, so the ramps (the gateway checks a JWT per
# upgrade, the peer does not) cancel out; deliveries per server CPU-second is its inverse.
# BIN=DIR runs the gateway (and the generator) from DIR instead of this checkout's release build; BASE_BIN=DIR adds
# a second gateway build ("switchboard-base", e.g. a copy of main's) to every round, interleaved, so two builds and
# the peer are compared in one sitting. PORT (default 19431) is the gateway's port, PEER_PORT (19811) the peer's.
# Usage: loadtest/bench/fanout-compare.sh [CONNECTIONS] [PUBLISH_RATE] [SECONDS]   (default 10000, 5/s, 5 s)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${BIN:-$(swift build -c release --show-bin-path)}"
BASE_BIN="${BASE_BIN:-}"
PEER_PORT="${PEER_PORT:-19811}"
CONNECTIONS="${1:-10000}"
PUBLISH_RATE="${2:-5}"
SECONDS_="${3:-5}"
ROUNDS="${ROUNDS:-3}"
SOCKETIFY_PYTHON="${SOCKETIFY_PYTHON:-python3}"
DIR="$(mktemp -d)"
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DIR"' EXIT
ARGS=(--connections "$CONNECTIONS" --rate 2000 --publish-rate "$PUBLISH_RATE")
gateway() {  # name duration [bin]
    BIN="${3:-$BIN}" loadtest/bench/gateway.sh fanout "${ARGS[@]}" --duration "$2" --json "$DIR/$1.json" >/dev/null 2>&1 || true
}
socketify() {  # name duration
    taskset -c 0 "$SOCKETIFY_PYTHON" loadtest/peers/socketify-fanout.py "$PEER_PORT" 2>/dev/null &
    PID=$!
    for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$PEER_PORT/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    taskset -c 1 "$BIN/switchboard-load" fanout --url "ws://127.0.0.1:$PEER_PORT/v1/ws" --jwt-secret unchecked-0123456789 \
        --api-key unchecked "${ARGS[@]}" --duration "$2" --server-pid "$PID" --json "$DIR/$1.json" >/dev/null 2>&1 || true
    kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
}
SERVERS="switchboard socketify"
[ -n "$BASE_BIN" ] && SERVERS="switchboard switchboard-base socketify"
for round in $(seq 1 "$ROUNDS"); do
    echo "round $round: $(uptime)" >&2
    gateway "$round-switchboard-0" 0; gateway "$round-switchboard" "$SECONDS_"
    if [ -n "$BASE_BIN" ]; then
        gateway "$round-switchboard-base-0" 0 "$BASE_BIN"; gateway "$round-switchboard-base" "$SECONDS_" "$BASE_BIN"
    fi
    socketify "$round-socketify-0" 0; socketify "$round-socketify" "$SECONDS_"
done
echo "after: $(uptime)" >&2
python3 - "$DIR" "$ROUNDS" $SERVERS <<'PY'
import json, statistics, sys
d, rounds, servers = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def load(n): return json.load(open(f"{d}/{n}.json"))
cpu = lambda r: (r.get("server") or {}).get("cpuSeconds") or 0
dl = lambda r: r["counts"].get("deliveries", 0)
res = {}
print("round\tserver\tdeliveries\tdeliveries/s (active window)\tserver CPU s (run / ramp-only)\tdeliveries per server CPU-s\tdelivery p50/p99 µs\tspread p50/max µs\tpassed")
for i in range(1, rounds + 1):
    for s in servers:
        a, b = load(f"{i}-{s}-0"), load(f"{i}-{s}")
        per_cpu = (dl(b) - dl(a)) / (cpu(b) - cpu(a)) if cpu(b) > cpu(a) else 0
        lat = b["latency"].get("publish_delivery", {})
        spread = b["latency"].get("publish_spread", {})
        rate = dl(b) / b["activeSeconds"] if b["activeSeconds"] else 0
        res.setdefault(s, []).append((per_cpu, rate, lat.get("p50", 0), lat.get("p99", 0), spread.get("p50", 0), spread.get("max", 0)))
        print(f"{i}\t{s}\t{dl(b)}\t{rate:.0f}\t{cpu(b):.2f} / {cpu(a):.2f}\t{per_cpu:.0f}\t{lat.get('p50')}/{lat.get('p99')}\t{spread.get('p50')}/{spread.get('max')}\t{b['passed']}")
print("median:")
for s, rows in res.items():
    m = lambda k: statistics.median(r[k] for r in rows)
    print(f"{s}\tdeliveries per server CPU-s {m(0):.0f}\tdelivery p50 {m(2):.0f} µs p99 {m(3):.0f} µs\tspread p50 {m(4):.0f} µs max {m(5):.0f} µs")
so = statistics.median(r[0] for r in res["socketify"])
for s in servers[:-1]:
    sb = statistics.median(r[0] for r in res[s])
    print(f"{s} / socketify deliveries per server CPU-s: {sb / so:.2f}×" if so else "")
if "switchboard-base" in res:
    ratios = [a[0] / b[0] for a, b in zip(res["switchboard"], res["switchboard-base"]) if b[0]]
    print("switchboard / switchboard-base per round: " + ", ".join(f"{r:.2f}×" for r in ratios))
PY
