#!/usr/bin/env bash
# What one claimed message costs the server, against the same work without the inbox: the CPU of
# the claiming backend (from /proc, so run it on the server's machine) and the WAL per message, for
# transactions of BATCH messages each (default 1,000) on a backlog of 100,000, in one psql session
# per variant:
#   claim             SELECT count(*) FROM inbox.claim_<name>(BATCH)
#   claim, budget     the same within the worker's default byte budget (16 MiB): the claim as a
#                     worker runs it
#   claim + rows      SELECT * FROM inbox.claim_<name>(BATCH): the rows sent to the client
#   claim, no lock    the claim's UPDATE by TID without FOR UPDATE SKIP LOCKED (what the row lock costs)
#   update by key     UPDATE ... SET processed_at = now() WHERE event_id = ANY(BATCH ids): the
#                     plain marking pgbench-limit.sh measures, without claim order or locks
# Starts a fresh PostgreSQL 15 like run-pg15.sh (BENCH_PG_PORT, BENCH_PG_DATA) and stops it.
#   benchmarks/claim-cost.sh [--batch N] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
B=1000
if [ "${1:-}" = --batch ]; then B=$2; shift 2; fi
ROUNDS=${1:-2}
. benchmarks/pg15-cluster.sh
PSQL=("$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1)
"${PSQL[@]}" -f sql/inbox/install.sql >/dev/null
"${PSQL[@]}" -c "SELECT inbox.create_inbox('cost', p_max_retries => 3)" >/dev/null
N=100000
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true' EXIT
PAYLOAD='{"orderId":"o-12345","customer":"c-678","amount":1234,"currency":"EUR","items":[1,2,3]}'
FILTER="w.processed_at IS NULL AND w.retry_count < 3 AND w.next_attempt_at <= now()"  # 3: the default max_retries

measure() { # LABEL STATEMENT (may use :i, the batch number from 0)
  "${PSQL[@]}" -c "TRUNCATE inbox.cost RESTART IDENTITY" \
    -c "INSERT INTO inbox.cost (event_id, event_type, source, aggregate_id, payload) SELECT 'm' || g, 'order.placed', 'bench', 'agg-' || (g % 1000), '$PAYLOAD' FROM generate_series(1, $N) g" \
    -c "VACUUM ANALYZE inbox.cost" -c "CHECKPOINT" >/dev/null
  {
    # The planner settings the claim functions run with (docs/performance.md, "Claim").
    echo "SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off; SET jit = off;"
    echo "SELECT pg_backend_pid() AS pid, pg_current_wal_lsn() AS lsn0 \\gset"
    echo "\\setenv PID :pid"
    echo "\\! awk '{print \$14 + \$15}' /proc/\$PID/stat > $WORK/cpu0"
    for i in $(seq 0 $((N / B - 1))); do echo "\\set i $i"; echo "BEGIN; $2; COMMIT;"; done
    echo "\\! awk '{print \$14 + \$15}' /proc/\$PID/stat > $WORK/cpu1"
    echo "\\o $WORK/wal"
    echo "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), :'lsn0');"
    echo "\\o $WORK/left"
    echo "SELECT count(*) FROM inbox.cost WHERE processed_at IS NULL;"
    echo "\\o"
  } > "$WORK/run.sql"
  "${PSQL[@]}" -f "$WORK/run.sql" >/dev/null
  [ "$(cat "$WORK/left")" = 0 ] || { echo "$1: $(cat "$WORK/left") messages left" >&2; exit 1; }
  local ticks=$(($(cat "$WORK/cpu1") - $(cat "$WORK/cpu0")))
  printf '| %s | %s | %.1f | %.0f |\n' "$1" "$round" \
    "$(echo "$ticks * 1000000 / $(getconf CLK_TCK) / $N" | bc -l)" "$(echo "$(cat "$WORK/wal") / $N" | bc -l)"
}

echo "| variant (batch $B) | round | server CPU us per message | WAL bytes per message |"
echo "|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
  measure "claim" "SELECT count(*) FROM inbox.claim_cost($B)"
  measure "claim, budget" "SELECT count(*) FROM inbox.claim_cost($B, NULL, 16777216)"
  measure "claim + rows" "SELECT * FROM inbox.claim_cost($B)"
  measure "claim, no lock" "UPDATE inbox.cost m SET processed_at = now() WHERE m.ctid = ANY (ARRAY(SELECT w.ctid FROM inbox.cost w WHERE $FILTER ORDER BY w.priority, w.seq LIMIT $B)) AND num_nulls(m.processed_at) = 1"
  measure "update by key" "UPDATE inbox.cost SET processed_at = now() WHERE event_id = ANY (ARRAY(SELECT 'm' || g FROM generate_series(:i * $B + 1, :i * $B + $B) g))"
done
echo "Load average: $(cut -d' ' -f1-3 /proc/loadavg)"
