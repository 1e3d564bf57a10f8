#!/usr/bin/env bash
# What the blocked-aggregate functions of health cost on an ordered inbox while the xmin horizon is
# held, for the SQL of two commits: each ref's SQL makes an inbox ordered by seq in a database of
# its own (N messages over AGGREGATES aggregates, one aggregate with a dead letter at its head),
# a REPEATABLE READ transaction in that database takes its snapshot, and CLAIMED messages are then
# claimed (claims of 1,000, one transaction each), so that many claimed versions stay behind the
# held horizon. Then, in turn (A, B, A, B, ...: ROUNDS rounds), one session per ref calls
# inbox_health, count_blocked_aggregates and inbox_blocked_aggregates: one call each to move the
# session's floors, then CALLS timed calls each (server time, clock_timestamp() around the call).
# Prints the median and the range per ref and function. Starts its own PostgreSQL 15
# (pg15-cluster.sh, port BENCH_PG_PORT, default 25432).
#   N=310000 CLAIMED=300000 AGGREGATES=1000 ROUNDS=2 CALLS=10 benchmarks/health-held.sh A_REF B_REF
set -euo pipefail
[ $# -eq 2 ] || { sed -n 2,12p "$0"; exit 2; }
N=${N:-310000} CLAIMED=${CLAIMED:-300000} AGGREGATES=${AGGREGATES:-1000} ROUNDS=${ROUNDS:-2} CALLS=${CALLS:-10}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
holders=()
. "$repo/benchmarks/pg15-cluster.sh"
trap 'for p in "${holders[@]}"; do kill "$p" 2>/dev/null || true; done
      as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
psql_() { psql -h 127.0.0.1 -p "$PORT" -U postgres -qAt -v ON_ERROR_STOP=1 "$@"; }

for side in A B; do
  ref=$([ $side = A ] && echo "$1" || echo "$2")
  db=health_$(echo "$side" | tr AB ab)
  mkdir -p "$work/$side" && git -C "$repo" archive "$ref" sql/inbox | tar -x -C "$work/$side"
  psql_ -c "CREATE DATABASE $db"
  (cd "$work/$side/sql/inbox" && psql_ -d "$db" -f install.sql >/dev/null)
  psql_ -d "$db" <<SQL >/dev/null
SELECT inbox.create_inbox('held', p_max_retries => 1);
SELECT inbox.enable_inbox_ordering('held', 'aggregate_id', 'seq');
INSERT INTO inbox.held (event_id, event_type, aggregate_id) VALUES ('dead-0', 't', 'agg-dead');
SELECT count(*) FROM inbox.claim_held(1);
SELECT inbox.mark_failed('held', 'dead-0', 'boom', interval '0');
INSERT INTO inbox.held (event_id, event_type, aggregate_id)
SELECT 'm-' || g, 't', 'agg-' || (g % $AGGREGATES) FROM generate_series(1, $N) g;
VACUUM ANALYZE inbox.held;
SQL
  # The holder: a snapshot taken, then idle in its transaction until killed.
  psql_ -d "$db" -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SELECT count(*) FROM pg_class" \
    -c "SELECT pg_sleep(86400)" >/dev/null 2>&1 &
  holders+=($!)
  sleep 1
  for _ in $(seq 1 $((CLAIMED / 1000))); do echo "SELECT count(*) FROM inbox.claim_held(1000);"; done \
    | psql_ -d "$db" >/dev/null
  echo "$side ($ref): $(psql_ -d "$db" -c "SELECT count(*) FILTER (WHERE processed_at IS NULL) || ' unprocessed, '
      || n_dead_tup || ' dead tuples' FROM inbox.held, pg_stat_user_tables WHERE relid = 'inbox.held'::regclass GROUP BY n_dead_tup")"
done

calls() { # database: one session, each function once untimed, then CALLS timed calls each
  {
    for f in inbox_health count_blocked_aggregates inbox_blocked_aggregates; do
      echo "SELECT count(*) FROM inbox.$f('held');"
      for _ in $(seq 1 "$CALLS"); do
        echo "DO \$\$ DECLARE t timestamptz := clock_timestamp(); BEGIN PERFORM count(*) FROM inbox.$f('held');
              RAISE NOTICE '%|%', '$f', round(extract(epoch FROM clock_timestamp() - t)::numeric * 1000, 2); END \$\$;"
      done
    done
  } | psql_ -d "$1" 2>&1 >/dev/null | sed -n 's/^.*NOTICE:  //p'
}

for round in $(seq 1 "$ROUNDS"); do
  for side in A B; do
    calls "health_$(echo "$side" | tr AB ab)" | sed "s/^/$side|/" >>"$work/times"
  done
done
echo "ref | function | median ms | min..max ms ($((ROUNDS * CALLS)) calls)"
sort -t'|' -k1,1 -k2,2 -k3,3n "$work/times" | awk -F'|' '
  { key = $1 "|" $2; v[key, ++n[key]] = $3 }
  END { for (k in n) { c = n[k]; m = (c % 2) ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2
                       split(k, p, "|"); printf "%s | %s | %.2f | %.2f..%.2f\n", p[1], p[2], m, v[k, 1], v[k, c] } }' | sort
