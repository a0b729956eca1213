#!/usr/bin/env bash
# Gateway scenarios against a cluster, for docs/BENCHMARKS.md (two nodes): PostgreSQL 15, redis-server and NODES
# (default 2) `switchboard serve` nodes on one database (scripts/cluster-env), the harness connecting to the nodes
# directly (`--url` node 0, `--node-url` node 1: a user's devices, a message's two ends, on different nodes). After the
# harness's setup calls (through node 0) node 1 is restarted, so it loads the users, contacts and sessions the setup
# made (a node knows only what it loaded at start or made itself; docs/CLUSTER.md). Prints the harness report, then
# the CPU seconds (/proc utime+stime) each node, PostgreSQL (postmaster and backends) and redis-server spent from the
# end of the setup to the end of the run. PG_PROFILE=1 also loads pg_stat_statements and prints, for the same span,
# PostgreSQL's statements (each one round trip: the store does not pipeline) by kind, its WAL and its transactions.
# Usage: NODES=2 [PG_PROFILE=1] loadtest/bench/cluster.sh SCENARIO [switchboard-load options, e.g. --connections 200 --message-rate 1000]
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: loadtest/bench/cluster.sh SCENARIO [options]" >&2; exit 64; }
scenario="$1"; shift
NAME=cluster-bench
NODES="${NODES:-2}"
BIN="${BIN:-$(swift build -c release --show-bin-path)}"
DIR="$(mktemp -d /tmp/cluster-bench.XXXXXX)"
chmod 755 "$DIR"
[ "${PG_PROFILE:-0}" = 1 ] && PG_OPTIONS="${PG_OPTIONS:-} -c shared_preload_libraries=pg_stat_statements"
# shellcheck source=scripts/cluster-env
source scripts/cluster-env
pg_sql() { as_postgres "$PGBIN/psql" -X -q -h "$DIR/pg" -U postgres -d switchboard "$@"; }

start_node 0
[ "$NODES" -ge 2 ] && start_node 1
until_ok 30 "Redis subscription up on every node" bus_up
URLS=(--url "ws://127.0.0.1:${NODE_PORTS[0]}/v1/ws")
[ "$NODES" -ge 2 ] && URLS+=(--node-url "ws://127.0.0.1:${NODE_PORTS[1]}/v1/ws")
"$BIN/switchboard-load" "$scenario" "${URLS[@]}" --jwt-secret "$SECRET" --api-key "$API_KEY" \
    --setup-done "$DIR/setup-done" "$@" >"$DIR/report.txt" &
LOAD_PID=$!
until_ok 300 "the harness's setup" test -f "$DIR/setup-done"
if [ "$NODES" -ge 2 ]; then
    kill "${NODE_PIDS[1]}"; wait "${NODE_PIDS[1]}" 2>/dev/null
    start_node 1
    until_ok 30 "Redis subscription up on every node" bus_up
fi
if [ "${PG_PROFILE:-0}" = 1 ]; then  # count from here: the setup's statements and the nodes' start-up are left out
    pg_sql -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" -c "SELECT pg_stat_statements_reset()" \
        -c "SELECT pg_stat_reset_shared('wal')" -c "SELECT pg_stat_reset()" >/dev/null || fail "PG_PROFILE: reset"
fi
CPU_START="$(cpu_snapshot)"; T0="$(now)"
rm "$DIR/setup-done"
wait "$LOAD_PID"; status=$?
CPU_END="$(cpu_snapshot)"; T1="$(now)"
cat "$DIR/report.txt"
if [ "${PG_PROFILE:-0}" = 1 ]; then
    pg_sql -c "SELECT sum(calls) AS statements FROM pg_stat_statements" \
        -c "SELECT calls, rows, left(regexp_replace(query, '\s+', ' ', 'g'), 100) AS statement FROM pg_stat_statements
            ORDER BY calls DESC LIMIT 25" \
        -c "SELECT wal_records, wal_bytes, wal_sync FROM pg_stat_wal" \
        -c "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = 'switchboard'"
fi
python3 - "$CPU_START" "$CPU_END" "$T0" "$T1" "$NODES" <<'PY'
import sys
start, end = [float(x) for x in sys.argv[1].split()], [float(x) for x in sys.argv[2].split()]
seconds, nodes = float(sys.argv[4]) - float(sys.argv[3]), int(sys.argv[5])
names = ["node0", "node1", "postgres", "redis-server"]
parts = [f"{n} {e - s:.2f} s" for n, s, e in zip(names, start, end) if nodes >= 2 or n != "node1"]
total = sum(e - s for s, e in zip(start, end))
print(f"cluster CPU over {seconds:.1f} s: " + ", ".join(parts) + f"; all {total:.2f} s ({total / seconds:.2f} cores)")
PY
exit "$status"
