#!/usr/bin/env bash
# How the server alone scales with concurrent consumers, without the JVM: 1, 2 and 4 pgbench clients
# (each its own pgbench process with one connection, as separate workers would have) doing a
# consumer's work in transactions of BATCH rows (default 100 and 1,000), in three modes:
#   update        UPDATE ... SET processed_at = now() WHERE id BETWEEN a random range (what
#                 pgbench-limit.sh measures with one client): disjoint rows, no claim order
#   claim         SELECT count(*) FROM inbox.claim_<name>(BATCH, NULL, 16 MiB): every client
#                 claims from the one claim order, as workers sharing an inbox do
#   partitioned   the same claim with client k of n given buckets b % n = k (static partitions)
#   partitioned-runs  the same with runs of up to BATCH messages per aggregate (p_per_aggregate,
#                 WorkerOptions.messagesPerAggregate; ordered inboxes only)
# Each run refills the inbox with 600,000 messages (vacuumed, checkpointed) and the clients make
# claims for up to 400,000 of them between them. A claim's rate is the rows the run processed over
# its wall time (a claim may come back short: an ordered claim gets at most one message per
# aggregate, a client claiming its buckets at most their heads); the update mode's is the sum of the
# clients' own rates (connection time excluded). With ORDERED=1 the inbox has per-aggregate ordering
# (1,000 aggregates, messages sent round-robin): the claims are ordered claims, as in the
# consume-ordered scenario. Starts a fresh PostgreSQL 15 like run-pg15.sh (BENCH_PG_PORT,
# BENCH_PG_DATA) and stops it.
#   [ORDERED=1] [MODES="..."] benchmarks/claim-scaling.sh [ROUNDS] [BATCH...]
#   (default: 2 rounds, batches 100 1000, modes update claim partitioned)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-2}
shift || true
BATCHES=${*:-100 1000}
. benchmarks/pg15-cluster.sh
PSQL=("$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1)
"${PSQL[@]}" -f sql/inbox/install.sql >/dev/null
"${PSQL[@]}" -c "SELECT inbox.create_inbox('scaling')" >/dev/null
if [ "${ORDERED:-0}" = 1 ]; then
  "${PSQL[@]}" -c "SELECT inbox.enable_inbox_ordering('scaling')" >/dev/null
fi
"${PSQL[@]}" <<'SQL'
CREATE TABLE limit_rows (id bigint PRIMARY KEY, payload jsonb, processed_at timestamptz);
INSERT INTO limit_rows SELECT g, jsonb_build_object('order', g, 'amount', 123.45, 'note', repeat('x', 48)), NULL
FROM generate_series(1, 1000000) g;
VACUUM ANALYZE limit_rows;
SQL
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true' EXIT
BACKLOG=600000
CLAIMED=400000

refill() {
  "${PSQL[@]}" -c "TRUNCATE inbox.scaling" \
    -c "INSERT INTO inbox.scaling (event_id, event_type, source, aggregate_id, payload)
        SELECT 'm' || g, 'order.placed', 'bench', 'agg-' || (g % 1000),
               '{\"order\":\"ORD-000000\",\"amount\":4999,\"currency\":\"EUR\",\"customer\":\"C-12345\"}'
        FROM generate_series(1, $BACKLOG) g" \
    -c "VACUUM ANALYZE inbox.scaling" -c "VACUUM limit_rows" -c CHECKPOINT >/dev/null
}

script() { # MODE BATCH CLIENT CLIENTS -> the file of client k's transaction
  local file=$WORK/$1-$3.sql buckets=NULL
  case $1 in
    update) printf '\\set start random(0, %d) * %d + 1\nUPDATE limit_rows SET processed_at = now() WHERE id BETWEEN :start AND :start + %d;\n' \
              $((1000000 / $2 - 1)) "$2" $(($2 - 1)) > "$file" ;;
    partitioned-runs) echo "SELECT count(*) FROM inbox.claim_scaling($2, (SELECT array_agg(g)
              FROM generate_series(0, 1023) g WHERE g % $4 = $3), 16777216, false, $2);" > "$file" ;;
    partitioned) buckets="(SELECT array_agg(g) FROM generate_series(0, 1023) g WHERE g % $4 = $3)" ;&
    claim) echo "SELECT count(*) FROM inbox.claim_scaling($2, $buckets, 16777216);" > "$file" ;;
  esac
  echo "$file"
}

printf '| round | batch | mode | clients | rows/s | load average before |\n|---|---|---|---|---|---|\n'
for round in $(seq 1 "$ROUNDS"); do
  for batch in $BATCHES; do
    for mode in ${MODES:-update claim partitioned}; do
      for clients in 1 2 4; do
        [[ "$mode" = partitioned* ]] && [ "$clients" = 1 ] && continue
        [ "$mode" = update ] || refill
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        start=$(date +%s.%N)
        pids=()
        for k in $(seq 0 $((clients - 1))); do
          "$BIN/pgbench" -h 127.0.0.1 -p "$PORT" -U postgres -n -M prepared -c 1 \
            -t $((CLAIMED / batch / clients)) -f "$(script "$mode" "$batch" "$k" "$clients")" postgres \
            > "$WORK/out-$k" 2>&1 &
          pids+=($!)
        done
        wait "${pids[@]}"
        if [ "$mode" = update ]; then
          rate=$(cat "$WORK"/out-* | awk -v b="$batch" '/^tps/ {s += $3} END {printf "%.0f", s * b}')
        else
          rate=$("${PSQL[@]}" -c "SELECT count(*) FROM inbox.scaling WHERE processed_at IS NOT NULL" \
            | awk -v t0="$start" -v t1="$(date +%s.%N)" '{printf "%.0f", $1 / (t1 - t0)}')
        fi
        rm -f "$WORK"/out-*
        printf '| %s | %s | %s | %s | %s | %s |\n' "$round" "$batch" "$mode" "$clients" "$rate" "$load"
      done
    done
  done
done
