#!/usr/bin/env bash
# Idle memory, median of ROUNDS (3) interleaved runs: switchboard, Node `ws` and picows in turn, a fresh server per
# run (loadtest/bench/idle-memory.sh's setup: server core 0, generator core 1), N idle connections each.
# Prints Δ RSS per held connection per run and the medians. Needs node-ws and PICOWS_PYTHON (a Python with picows).
# Usage: loadtest/bench/idle-compare.sh [N] [extra switchboard-load options]   (default 5000)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="$(swift build -c release --show-bin-path)"
N="${1:-5000}"; shift || true
ROUNDS="${ROUNDS:-3}"
SERVERS="${SERVERS:-switchboard ws picows}"
DIR="$(mktemp -d)"
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DIR"' EXIT
for round in $(seq 1 "$ROUNDS"); do
    for server in $SERVERS; do
        case "$server" in
            switchboard) taskset -c 0 "$BIN/switchboard" serve --echo --listen 127.0.0.1:19311 --event-loops 1 --log-level warning & ;;
            ws) NODE_PATH=/usr/share/nodejs taskset -c 0 node loadtest/peers/ws-echo.js 19311 2>/dev/null & ;;
            picows) taskset -c 0 "${PICOWS_PYTHON:-python3}" loadtest/peers/picows-echo.py 19311 2>/dev/null & ;;
        esac
        PID=$!
        sleep 2
        taskset -c 1 "$BIN/switchboard-load" idle --connections "$N" --rate 2000 --duration 3 \
            --url ws://127.0.0.1:19311/ --server-pid "$PID" --json "$DIR/$round-$server.json" "$@" >/dev/null 2>&1 || true
        kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
        sleep 1
    done
done
python3 - "$DIR" "$ROUNDS" $SERVERS <<'PY'
import json, statistics, sys
d, rounds, servers = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print("server\tΔ RSS per connection (B) per round\tmedian\tRSS before / held (MiB, median)\tupgrade p50/p99 µs (median)\tall passed")
for s in servers:
    rs = [json.load(open(f"{d}/{i}-{s}.json")) for i in range(1, rounds + 1)]
    per = [r["server"]["rssPerConnectionBytes"] for r in rs]
    med = lambda f: statistics.median(f(r) for r in rs)
    print(f"{s}\t{' / '.join('%.0f' % p for p in per)}\t{statistics.median(per):.0f}\t"
          f"{med(lambda r: r['server']['rssBeforeBytes']) / 2**20:.1f} / {med(lambda r: r['server']['rssHeldBytes']) / 2**20:.1f}\t"
          f"{med(lambda r: r['latency']['upgrade']['p50']):.0f} / {med(lambda r: r['latency']['upgrade']['p99']):.0f}\t"
          f"{all(r['passed'] for r in rs)}")
PY
