#!/usr/bin/env bash
# The server's side of producing, ours against pgmq, with no client in between (docs/benchmarks.md,
# "Peers"): pgbench calls inbox.send_<name> and pgmq.send_batch with the same messages built on the
# server (~100-byte JSON payloads parsed from text, one per message; ours also gets an event id, a
# type, a source and one of 1,000 aggregate ids per message, or, as "ours-plain", no aggregate id,
# like pgmq's messages), 100 and 1,000 per call, one client, the three alternating (ABCCBA) on one
# fresh PostgreSQL 15 like run-pg15.sh starts. Prints a Markdown table: messages/s and the whole
# machine's CPU time per message (pgbench included).
#
#   PGMQ_SQL=/path/to/pgmq.sql benchmarks/peers/produce-server.sh [--seconds S] [--rounds R]
#
#   --seconds S   length of one measurement (default 15)
#   --rounds R    ABCCBA rounds per batch size (default 1: six measurements)
# Environment: PGMQ_SQL (required, see benchmarks/peers/pgmq.sh); BENCH_PG_PORT (25432),
# BENCH_PG_DATA (/tmp/inbox-bench-produce-server): the cluster, see pg15-cluster.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=15
rounds=1
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $seconds =~ ^[1-9][0-9]*$ && $rounds =~ ^[1-9][0-9]*$ ]] \
  || { echo "--seconds and --rounds must be positive integers" >&2; exit 2; }
[ -n "${PGMQ_SQL:-}" ] || { echo "set PGMQ_SQL to pgmq's extension script (see --help)" >&2; exit 2; }

. benchmarks/peers/pgmq.sh
bin=${PG15_BIN:-/usr/lib/postgresql/15/bin}
if ! why=$(pgmq_install "$PGMQ_SQL" "$("$bin/pg_config" --sharedir)"); then
  echo "$why" >&2
  exit 1
fi

export BENCH_PG_DATA=${BENCH_PG_DATA:-/tmp/inbox-bench-produce-server}
. benchmarks/pg15-cluster.sh
psql_to postgres -c "CREATE DATABASE produce"
psql_to produce -f sql/inbox/install.sql >/dev/null
psql_to produce -c "CREATE EXTENSION pgmq VERSION 'peers'" -c "SELECT pgmq.create('bench')" \
  -c "SELECT inbox.create_inbox('bench')" -c "CREATE SEQUENCE batch_number" >/dev/null

scripts=$(mktemp -d /tmp/inbox-produce-server.XXXXXX)
payload='{"order":"ORD-000000","amount":4999,"currency":"EUR","customer":"C-12345","note":"abcdefghij"}'
for n in 100 1000; do
  # Event ids unique across calls: the call's number from a sequence, then the position.
  for peer in ours ours-plain; do
    aggregates="array(SELECT 'agg-' || (g % 1000) FROM generate_series(1, $n) g)"
    [ "$peer" = ours ] || aggregates=NULL
    cat >"$scripts/$peer-$n.sql" <<SQL
SELECT inbox.send_bench(
  array(SELECT b.n || '-' || g FROM generate_series(1, $n) g, (SELECT nextval('batch_number') AS n) b),
  array_fill('order.placed'::text, ARRAY[$n]), array_fill('bench'::text, ARRAY[$n]), $aggregates,
  array_fill('$payload'::text, ARRAY[$n])::jsonb[], NULL);
SQL
  done
  echo "SELECT count(*) FROM pgmq.send_batch('bench', array_fill('$payload'::text, ARRAY[$n])::jsonb[]);" \
    >"$scripts/pgmq-$n.sql"
done

busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; } # USER_HZ ticks (10 ms)
echo "| per call | peer | messages/s | CPU per message (whole machine) | load before |"
echo "|---|---|---|---|---|"
for n in 100 1000; do
  for ((round = 0; round < rounds; round++)); do
    for peer in ours ours-plain pgmq pgmq ours-plain ours; do
      psql_to produce -c "CHECKPOINT"
      load=$(cut -d' ' -f1 /proc/loadavg)
      before=$(busy)
      tps=$("$bin/pgbench" -h 127.0.0.1 -p "$PORT" -U postgres -n -M prepared -c 1 -T "$seconds" \
        -f "$scripts/$peer-$n.sql" produce 2>&1 | sed -n 's/^tps = \([0-9.]*\) (without.*/\1/p')
      after=$(busy)
      [ -n "$tps" ] || { echo "pgbench failed on $peer-$n.sql" >&2; exit 1; }
      awk -v n="$n" -v peer="$peer" -v tps="$tps" -v ticks=$((after - before)) -v s="$seconds" -v load="$load" \
        'BEGIN { printf "| %d | %s | %.0f | %.1f us | %s |\n", n, peer, tps * n, ticks * 10000 / (tps * n * s), load }'
    done
  done
done
rm -rf "$scripts"
