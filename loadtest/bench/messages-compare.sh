#!/usr/bin/env bash
# Two builds side by side on the `messages` scenario (docs/BENCHMARKS.md, "How builds are compared"): ROUNDS rounds,
# each running every build once in turn (fresh server and database per run, server on core 0 with one loop,
# generator on core 1, via loadtest/bench/gateway.sh with BIN=), so the builds see the same machine state.
# Prints one line per run: build, load average at the start, delivered, refused, delivered per second of
# traffic (`--duration`), server CPU s, server CPU µs per delivered DM, delivery p50/p99 µs. Reports stay in OUT (default a temp dir).
# Usage: loadtest/bench/messages-compare.sh ROUNDS RATE NAME=BINDIR [NAME=BINDIR …]
#   e.g. loadtest/bench/messages-compare.sh 3 6000 before=/tmp/before after=.build/release
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="$1"; rate="$2"; shift 2
OUT="${OUT:-$(mktemp -d)}"
DURATION="${DURATION:-10}"
printf '%-8s %5s %6s %9s %8s %11s %7s %8s %9s %9s\n' build round load delivered refused delivered/s cpu_s cpu_us/DM p50_us p99_us
for round in $(seq 1 "$rounds"); do
    for spec in "$@"; do
        name="${spec%%=*}"; dir="${spec#*=}"
        load="$(cut -d' ' -f1 /proc/loadavg)"
        report="$OUT/$name-$round.txt"
        BIN="$dir" loadtest/bench/gateway.sh messages --connections 2000 --offline-fraction 0 --duration "$DURATION" \
            --message-rate "$rate" >"$report" 2>"$OUT/$name-$round.err" || true
        awk -v name="$name" -v round="$round" -v load="$load" -v duration="$DURATION" '
            /^counts/ { match($0, /messages_delivered [0-9]+/); delivered = substr($0, RSTART + 19, RLENGTH - 19)
                        refused = 0; if (match($0, /messages_refused_overloaded [0-9]+/)) refused = substr($0, RSTART + 28, RLENGTH - 28) }
            /^message_delivery/ { p50 = $3; p99 = $5 }
            /^server/ { cpu = $5 }
            END { printf "%-8s %5s %6s %9s %8s %11.0f %7s %8.1f %9s %9s\n", name, round, load, delivered, refused,
                         delivered / duration, cpu, cpu * 1e6 / (delivered > 0 ? delivered : 1), p50, p99 }' "$report"
    done
done
echo "reports: $OUT"
