#!/usr/bin/env bash
# TLS full handshakes behind docs/BENCHMARKS.md: wss:// upgrades per second against a server with an RSA-2048
# certificate, one event loop pinned to core 0, compared with `openssl speed -seconds 3 rsa2048` sign/s on the same
# core, ROUNDS (3) interleaved rounds. Every connection is a new TLS session (the harness keeps no session cache),
# so every upgrade is a full handshake with one RSA-2048 signature on the server. As a reference for what OpenSSL
# itself reaches per handshake, each round also runs `openssl s_server` (core 0, tickets off) against
# `openssl s_time -new` (core 1) for 5 s: full handshakes per s_server CPU-second.
# Usage: loadtest/bench/tls.sh [N]   (default 5000 connections per run, IN_FLIGHT 256 in flight)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="$(swift build -c release --show-bin-path)"
N="${1:-5000}"
ROUNDS="${ROUNDS:-3}"
IN_FLIGHT="${IN_FLIGHT:-256}"
PORT="${PORT:-19601}"
DIR="$(mktemp -d)"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$DIR/key.pem" -out "$DIR/cert.pem" -days 2 \
    -subj /CN=127.0.0.1 >/dev/null 2>&1
cat >"$DIR/tls.toml" <<TOML
[server]
tls_listen = "127.0.0.1:$PORT"
tls_cert = "$DIR/cert.pem"
tls_key = "$DIR/key.pem"
TOML
taskset -c 0 "$BIN/switchboard" serve --echo --config "$DIR/tls.toml" --listen 127.0.0.1:$((PORT + 1)) \
    --event-loops 1 --log-level warning &
PID=$!
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -rf "$DIR"' EXIT
sleep 1
for round in $(seq 1 "$ROUNDS"); do
    taskset -c 0 openssl speed -seconds 3 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ {print $6}' >"$DIR/$round-sign"
    taskset -c 0 openssl s_server -cert "$DIR/cert.pem" -key "$DIR/key.pem" -accept $((PORT + 2)) -quiet -no_ticket \
        </dev/null >/dev/null 2>&1 &
    SS=$!
    sleep 0.5
    c0=$(awk '{print $14 + $15}' "/proc/$SS/stat")
    taskset -c 1 timeout 20 openssl s_time -connect "127.0.0.1:$((PORT + 2))" -new -time 5 2>/dev/null \
        | awk '/connections in .* real seconds/ {print $1}' >"$DIR/$round-stime"
    c1=$(awk '{print $14 + $15}' "/proc/$SS/stat")
    echo "$(( c1 - c0 ))" >"$DIR/$round-stime-ticks"  # USER_HZ = 100
    kill "$SS"; wait "$SS" 2>/dev/null || true
    taskset -c 1 "$BIN/switchboard-load" connect --url "wss://127.0.0.1:$PORT/" --insecure --connections "$N" \
        --in-flight "$IN_FLIGHT" --rate 1000000 --duration 0 --server-pid "$PID" --json "$DIR/$round.json" \
        >/dev/null 2>&1 || true
done
python3 - "$DIR" "$ROUNDS" <<'PY'
import json, statistics, sys
d, rounds = sys.argv[1], int(sys.argv[2])
rows = []
print("round\ts_server handshakes per CPU-s\topenssl sign/s\thandshakes/s\tserver CPU s\thandshakes per server CPU-s\tper CPU-s / sign/s\tserver core busy\tupgrade p50/p99 us\tpassed")
for i in range(1, rounds + 1):
    sign = float(open(f"{d}/{i}-sign").read().split()[0])
    r = json.load(open(f"{d}/{i}.json"))
    cpu = (r.get("server") or {}).get("cpuSeconds") or 0
    hs = r["upgradesPerSecond"]
    per_cpu = r["connectsSucceeded"] / cpu if cpu else 0
    busy = cpu / r["wallSeconds"] if r["wallSeconds"] else 0
    up = r["latency"].get("upgrade", {})
    ss = int(open(f"{d}/{i}-stime").read().split()[0]) / (int(open(f"{d}/{i}-stime-ticks").read()) / 100)
    rows.append((sign, hs, per_cpu, per_cpu / sign, hs / sign, ss, per_cpu / ss))
    print(f"{i}\t{ss:.0f}\t{sign:.0f}\t{hs:.0f}\t{cpu:.2f}\t{per_cpu:.0f}\t{per_cpu / sign:.0%}\t{busy:.0%}\t{up.get('p50')}/{up.get('p99')}\t{r['passed']}")
med = lambda k: statistics.median(r[k] for r in rows)
print(f"median\t{med(5):.0f}\t{med(0):.0f}\t{med(1):.0f}\t\t{med(2):.0f}\t{med(3):.0%} (wall-clock handshakes/s ÷ sign/s: {med(4):.0%}; switchboard ÷ s_server per CPU-s: {med(6):.2f}×)")
PY
