#!/usr/bin/env bash
# Connect rate behind docs/BENCHMARKS.md: upgrades/s on plain TCP with IN_FLIGHT (256) attempts in flight, alone and
# with live echo traffic alongside. One `switchboard serve --echo` pinned to core 0 (one event loop), generators on
# core 1. Per round (ROUNDS, default 3, interleaved):
#   connect  — `switchboard-load connect --connections N --in-flight 256 --rate 1000000 --duration 0` (N held, then
#              closed; two loopback source addresses), upgrades/s over the ramp and upgrades per server CPU-second;
#   echo     — `switchboard-load echo` (ECHO_CONNECTIONS × 20 B, depth 1) for ECHO_SECONDS alone: baseline msgs/s;
#   both     — the same echo run with the connect run (paced at BOTH_RATE, 10 000/s) started ECHO_LEAD seconds into it: upgrades/s, and echo msgs/s in
#              the seconds the connect ramp overlapped (from the echo run's per-second samples) vs the baseline.
# Usage: loadtest/bench/connect.sh [N]   (default 19000: the machine's descriptor limit is 20000 per process)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="$(swift build -c release --show-bin-path)"
N="${1:-19000}"
ROUNDS="${ROUNDS:-3}"
IN_FLIGHT="${IN_FLIGHT:-256}"
ECHO_CONNECTIONS="${ECHO_CONNECTIONS:-100}"
ECHO_SECONDS="${ECHO_SECONDS:-8}"
ECHO_LEAD="${ECHO_LEAD:-3}"
PORT="${PORT:-19501}"
# The connect rate while echo runs: the target's 10 000/s, not "as fast as possible", because both generators share
# core 1 and an unpaced connect generator starves the echo generator (that loss would be the generator's, not the
# server's).
BOTH_RATE="${BOTH_RATE:-10000}"
OUT="$(mktemp -d)"
taskset -c 0 "$BIN/switchboard" serve --echo --listen "127.0.0.1:$PORT" --event-loops 1 --log-level warning &
PID=$!
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -rf "$OUT"' EXIT
sleep 1
L="$BIN/switchboard-load"
URL="ws://127.0.0.1:$PORT/"
connect() {  # connect JSON RATE
    taskset -c 1 "$L" connect --url "$URL" --connections "$N" --in-flight "$IN_FLIGHT" --rate "$2" --duration 0 \
        --source-addresses 127.0.0.1,127.0.0.2 --server-pid "$PID" --json "$1" >/dev/null 2>&1 || true
}
echo_run() {  # echo JSON
    taskset -c 1 "$L" echo --url "$URL" --connections "$ECHO_CONNECTIONS" --size 20 --depth 1 --rate 2000 \
        --duration "$ECHO_SECONDS" --server-pid "$PID" --json "$1" >/dev/null 2>&1 || true
}
for round in $(seq 1 "$ROUNDS"); do
    connect "$OUT/$round-connect.json" 1000000; sleep 1
    echo_run "$OUT/$round-echo.json"; sleep 1
    echo_run "$OUT/$round-both-echo.json" & E=$!
    sleep "$ECHO_LEAD"
    date +%s.%N >"$OUT/$round-both-start"
    connect "$OUT/$round-both-connect.json" "$BOTH_RATE"
    wait "$E"; sleep 1
done
python3 - "$OUT" "$ROUNDS" "$ECHO_LEAD" <<'PY'
import json, statistics, sys
out, rounds, lead = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def load(name): return json.load(open(f"{out}/{name}.json"))
def steady(r):  # echo msgs/s over full seconds after the ramp (drop the first and the last sample)
    s = [x["messagesPerSecond"] for x in r["samples"]][1:-1]
    return statistics.median(s) if s else 0
rows = []
print("round\tupgrades/s alone\tper server CPU-s\tp50/p99 us\tpassed\t| upgrades/s with echo\tpassed\t| echo msg/s alone\techo msg/s during ramp\tloss\techo passed")
for i in range(1, rounds + 1):
    c, e, bc, be = load(f"{i}-connect"), load(f"{i}-echo"), load(f"{i}-both-connect"), load(f"{i}-both-echo")
    cpu = (c.get("server") or {}).get("cpuSeconds") or 0
    per_cpu = c["connectsSucceeded"] / cpu if cpu else 0
    # echo samples are at elapsedSeconds since the echo run's start; the connect ramp ran from ~lead s for rampSeconds
    # (+ the connect run's own ~0.1 s start-up); take the samples whose one-second window overlaps the ramp.
    start, end = lead, lead + 0.2 + bc["rampSeconds"]
    during = [x["messagesPerSecond"] for x in be["samples"] if x["elapsedSeconds"] > start and x["elapsedSeconds"] - 1 < end]
    base = steady(e)
    dur = statistics.mean(during) if during else 0
    loss = 1 - dur / base if base else 0
    up = c["latency"].get("upgrade", {})
    cpu_during = [x.get("serverCPUPercent") or 0 for x in be["samples"] if x["elapsedSeconds"] > start and x["elapsedSeconds"] - 1 < end]
    rows.append((c["upgradesPerSecond"], per_cpu, bc["upgradesPerSecond"], base, dur, loss))
    print(f"{i}\t{c['upgradesPerSecond']:.0f}\t{per_cpu:.0f}\t{up.get('p50')}/{up.get('p99')}\t{c['passed']}\t| "
          f"{bc['upgradesPerSecond']:.0f}\t{bc['passed']}\t| {base:.0f}\t{dur:.0f}\t{loss:.1%}\t{be['passed']}\tserver CPU % in those seconds {' '.join('%.0f' % x for x in cpu_during)}")
med = lambda k: statistics.median(r[k] for r in rows)
print(f"median\t{med(0):.0f}\t{med(1):.0f}\t\t\t| {med(2):.0f}\t\t| {med(3):.0f}\t{med(4):.0f}\t{med(5):.1%}")
PY
