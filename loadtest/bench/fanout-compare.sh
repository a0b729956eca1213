#!/usr/bin/env bash
# Fan-out vs socketify behind docs/BENCHMARKS.md: `switchboard-load fanout` (one user, CONNECTIONS subscribers, the
# backend publishing at PUBLISH_RATE) against the gateway (loadtest/bench/gateway.sh: fresh server and database per
# run, core 0, one event loop) and against loadtest/peers/socketify-fanout.py (SOCKETIFY_PYTHON, a venv with
# socketify; core 0), generator on core 1, ROUNDS (3) interleaved rounds. Server CPU per delivery = (CPU of the run
# − CPU of the same run with --duration 0) ÷ the deliveries between them, so the ramps (the gateway checks a JWT per
# upgrade, the peer does not) cancel out; deliveries per server CPU-second is its inverse.
# Usage: loadtest/bench/fanout-compare.sh [CONNECTIONS] [PUBLISH_RATE] [SECONDS]   (default 10000, 5/s, 5 s)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="$(swift build -c release --show-bin-path)"
CONNECTIONS="${1:-10000}"
PUBLISH_RATE="${2:-5}"
SECONDS_="${3:-5}"
ROUNDS="${ROUNDS:-3}"
SOCKETIFY_PYTHON="${SOCKETIFY_PYTHON:-python3}"
DIR="$(mktemp -d)"
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DIR"' EXIT
ARGS=(--connections "$CONNECTIONS" --rate 2000 --publish-rate "$PUBLISH_RATE")
gateway() {  # name duration
    loadtest/bench/gateway.sh fanout "${ARGS[@]}" --duration "$2" --json "$DIR/$1.json" >/dev/null 2>&1 || true
}
socketify() {  # name duration
    taskset -c 0 "$SOCKETIFY_PYTHON" loadtest/peers/socketify-fanout.py 19811 2>/dev/null &
    PID=$!
    for _ in $(seq 1 100); do curl -fs http://127.0.0.1:19811/healthz >/dev/null 2>&1 && break; sleep 0.1; done
    taskset -c 1 "$BIN/switchboard-load" fanout --url ws://127.0.0.1:19811/v1/ws --jwt-secret unchecked-0123456789 \
        --api-key unchecked "${ARGS[@]}" --duration "$2" --server-pid "$PID" --json "$DIR/$1.json" >/dev/null 2>&1 || true
    kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
}
for round in $(seq 1 "$ROUNDS"); do
    gateway "$round-switchboard-0" 0; gateway "$round-switchboard" "$SECONDS_"
    socketify "$round-socketify-0" 0; socketify "$round-socketify" "$SECONDS_"
done
python3 - "$DIR" "$ROUNDS" <<'PY'
import json, statistics, sys
d, rounds = sys.argv[1], int(sys.argv[2])
def load(n): return json.load(open(f"{d}/{n}.json"))
cpu = lambda r: (r.get("server") or {}).get("cpuSeconds") or 0
dl = lambda r: r["counts"].get("deliveries", 0)
res = {}
print("round\tserver\tdeliveries\tdeliveries/s (active window)\tserver CPU s (run / ramp-only)\tdeliveries per server CPU-s\tdelivery p50/p99 µs\tpassed")
for i in range(1, rounds + 1):
    for s in ("switchboard", "socketify"):
        a, b = load(f"{i}-{s}-0"), load(f"{i}-{s}")
        per_cpu = (dl(b) - dl(a)) / (cpu(b) - cpu(a)) if cpu(b) > cpu(a) else 0
        lat = b["latency"].get("publish_delivery", {})
        rate = dl(b) / b["activeSeconds"] if b["activeSeconds"] else 0
        res.setdefault(s, []).append((per_cpu, rate, lat.get("p50", 0), lat.get("p99", 0)))
        print(f"{i}\t{s}\t{dl(b)}\t{rate:.0f}\t{cpu(b):.2f} / {cpu(a):.2f}\t{per_cpu:.0f}\t{lat.get('p50')}/{lat.get('p99')}\t{b['passed']}")
print("median:")
for s, rows in res.items():
    m = lambda k: statistics.median(r[k] for r in rows)
    print(f"{s}\tdeliveries per server CPU-s {m(0):.0f}\tdelivery p50 {m(2):.0f} µs p99 {m(3):.0f} µs")
sb, so = statistics.median(r[0] for r in res["switchboard"]), statistics.median(r[0] for r in res["socketify"])
print(f"switchboard / socketify deliveries per server CPU-s: {sb / so:.2f}×" if so else "")
PY
