#!/usr/bin/env bash
# Deflate fan-out cost behind docs/BENCHMARKS.md: the gateway `fanout` scenario with and without `--deflate`
# (permessage-deflate negotiated by every subscriber, server `websocket.compression.threshold_bytes = 0` so every
# event is compressed), each on a fresh server (loadtest/bench/gateway.sh: core 0, one event loop; generator core 1).
# Server CPU per delivery = (CPU of a run with traffic − CPU of the same run with --duration 0) ÷ the deliveries
# between them, so the ramp (upgrades, JWT checks, zlib set-up) cancels out. ROUNDS (3) interleaved rounds.
# Usage: loadtest/bench/deflate-fanout.sh [CONNECTIONS] [PUBLISH_RATE] [SECONDS]   (default 2000, 20/s, 5 s)
set -euo pipefail
cd "$(dirname "$0")/../.."
CONNECTIONS="${1:-2000}"
PUBLISH_RATE="${2:-20}"
SECONDS_="${3:-5}"
ROUNDS="${ROUNDS:-3}"
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
export EXTRA_TOML="${EXTRA_TOML:-$'[websocket.compression]\nthreshold_bytes = 0'}"
run() {  # name duration [--deflate]
    local name="$1" duration="$2"; shift 2
    loadtest/bench/gateway.sh fanout --connections "$CONNECTIONS" --rate 2000 --publish-rate "$PUBLISH_RATE" \
        --duration "$duration" --json "$DIR/$name.json" "$@" >/dev/null 2>&1 || true
}
for round in $(seq 1 "$ROUNDS"); do
    run "$round-plain-0" 0; run "$round-plain" "$SECONDS_"
    run "$round-deflate-0" 0 --deflate; run "$round-deflate" "$SECONDS_" --deflate
done
python3 - "$DIR" "$ROUNDS" <<'PY'
import json, statistics, sys
d, rounds = sys.argv[1], int(sys.argv[2])
def load(n): return json.load(open(f"{d}/{n}.json"))
def cost(n):
    a, b = load(n + "-0"), load(n)
    cpu = lambda r: (r.get("server") or {}).get("cpuSeconds") or 0
    dl = lambda r: r["counts"].get("deliveries", 0)
    return (cpu(b) - cpu(a)) / max(1, dl(b) - dl(a)) * 1e6, dl(b), cpu(b), cpu(a), b["passed"]
rows = []
print("round\tplain µs CPU/delivery (deliveries, CPU s, ramp CPU s, passed)\tdeflate µs CPU/delivery (…)\tratio")
for i in range(1, rounds + 1):
    p, z = cost(f"{i}-plain"), cost(f"{i}-deflate")
    rows.append((p[0], z[0], z[0] / p[0] if p[0] else 0))
    print(f"{i}\t{p[0]:.2f} ({p[1]}, {p[2]:.2f}, {p[3]:.2f}, {p[4]})\t{z[0]:.2f} ({z[1]}, {z[2]:.2f}, {z[3]:.2f}, {z[4]})\t{rows[-1][2]:.2f}×")
med = lambda k: statistics.median(r[k] for r in rows)
print(f"median\t{med(0):.2f}\t{med(1):.2f}\t{med(2):.2f}×")
PY
