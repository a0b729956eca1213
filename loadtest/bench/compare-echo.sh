#!/usr/bin/env bash
# Echo comparison behind docs/BENCHMARKS.md: switchboard vs Node `ws` vs picows, each server pinned to core 0 and
# the generator to core 1 (taskset), ROUNDS interleaved rounds, median reported per server and configuration.
# Needs: release builds (swift build -c release), node + node-ws (NODE_PATH=/usr/share/nodejs), and a Python
# with picows (PICOWS_PYTHON, default python3). Loopback only. Prints one TSV row per run, then the medians.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="$(swift build -c release --show-bin-path)"
PICOWS_PYTHON="${PICOWS_PYTHON:-python3}"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-5}"
OUT="$(mktemp -d)"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$OUT"' EXIT

taskset -c 0 "$BIN/switchboard" serve --echo --listen 127.0.0.1:19101 --event-loops 1 --log-level warning & PIDS+=($!)
SB=$!
NODE_PATH=/usr/share/nodejs taskset -c 0 node loadtest/peers/ws-echo.js 19102 & PIDS+=($!)
WS=$!
taskset -c 0 "$PICOWS_PYTHON" loadtest/peers/picows-echo.py 19103 & PIDS+=($!)
PW=$!
sleep 2

declare -A PORT=([switchboard]=19101 [ws]=19102 [picows]=19103)
declare -A PID=([switchboard]=$SB [ws]=$WS [picows]=$PW)
CONFIGS=("100x20B:--connections 100 --size 20" "500x1KB:--connections 500 --size 1024")

printf 'round\tconfig\tserver\tmsgs_per_s\tmsgs_per_server_cpu_s\tp50_us\tp99_us\tpassed\n'
for round in $(seq 1 "$ROUNDS"); do
    for config in "${CONFIGS[@]}"; do
        name="${config%%:*}"; args="${config#*:}"
        for server in switchboard ws picows; do
            json="$OUT/$round-$name-$server.json"
            # shellcheck disable=SC2086
            taskset -c 1 "$BIN/switchboard-load" echo $args --depth 1 --duration "$DURATION" --rate 2000 \
                --url "ws://127.0.0.1:${PORT[$server]}/" --server-pid "${PID[$server]}" --json "$json" \
                >/dev/null 2>&1 || true
            python3 - "$json" "$round" "$name" "$server" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rt = r["latency"].get("round_trip", {})
print("\t".join([sys.argv[2], sys.argv[3], sys.argv[4], "%.0f" % r["messagesPerSecond"],
                 "%.0f" % ((r.get("server") or {}).get("messagesPerCPUSecond") or 0),
                 str(rt.get("p50", 0)), str(rt.get("p99", 0)), str(r["passed"])]))
PY
        done
    done
done | tee "$OUT/runs.tsv"

echo
echo "median of $ROUNDS rounds"
python3 - "$OUT/runs.tsv" <<'PY'
import statistics, sys, collections
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if not l.startswith("round")]
groups = collections.OrderedDict()
for r in rows:
    groups.setdefault((r[1], r[2]), []).append(r)
print("config\tserver\tmsgs_per_s\tmsgs_per_server_cpu_s\tp50_us\tp99_us\tall_passed")
for (config, server), rs in groups.items():
    med = lambda i: statistics.median(float(r[i]) for r in rs)
    print(f"{config}\t{server}\t{med(3):.0f}\t{med(4):.0f}\t{med(5):.0f}\t{med(6):.0f}\t{all(r[7] == 'True' for r in rs)}")
PY
