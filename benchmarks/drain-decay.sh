#!/usr/bin/env bash
# How a deep backlog drains while the claimed rows' index entries pile up in front of the claims,
# and what autovacuum's settings do about it. A claimed row's entry leaves the claim index (and, on
# an ordered inbox, the ordering index the head test probes) only when vacuum removes it; until
# then every claim steps over it (docs/performance.md, "Dead entries ahead of the first pending
# row"). One pgbench client claims BATCH messages per transaction (default 1,000) from a backlog of
# BACKLOG (default 2,000,000, 1,000 aggregates sent round-robin) for SECONDS (default 15), on a plain
# and on an ordered inbox (INBOXES="plain ordered"), under three settings, interleaved in each round:
#   throttled   autovacuum_naptime 60 s (PostgreSQL's default) and the server's cost delay (2 ms)
#               for the table: inbox tables before 2026-11-28
#   default     autovacuum_naptime 60 s and the inbox table's own settings (cost delay 0)
#   naptime-1s  autovacuum_naptime 1 s and the inbox table's own settings
# Reports the messages claimed in the run, the rates of its first and last three seconds and the
# autovacuum runs of the table. Starts a fresh PostgreSQL 15 like run-pg15.sh (BENCH_PG_PORT,
# BENCH_PG_DATA) and stops it.
#   [INBOXES=ordered] benchmarks/drain-decay.sh [ROUNDS] [SECONDS] [BACKLOG] [BATCH]   (default: 1 15 2000000 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-1}
SECONDS_PER_RUN=${2:-15}
BACKLOG=${3:-2000000}
BATCH=${4:-1000}
. benchmarks/pg15-cluster.sh
PSQL=("$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1)
"${PSQL[@]}" -f sql/inbox/install.sql >/dev/null
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true' EXIT
echo "SELECT count(*) FROM inbox.claim_decay($BATCH, NULL, 16777216);" > "$WORK/claim.sql"

printf '| round | inbox | setting | messages claimed in %s s | msg/s, first 3 s | msg/s, last 3 s | autovacuum runs | load average before |\n' "$SECONDS_PER_RUN"
printf '|---|---|---|---|---|---|---|---|\n'
for round in $(seq 1 "$ROUNDS"); do
  for inbox in ${INBOXES:-plain ordered}; do
    for setting in throttled default naptime-1s; do
      naptime=60s
      [ "$setting" = naptime-1s ] && naptime=1s
      "${PSQL[@]}" -c "ALTER SYSTEM SET autovacuum_naptime = '$naptime'" -c "SELECT pg_reload_conf()" \
        -c "SELECT inbox.drop_inbox('decay', p_cascade => true, p_if_exists => true)" \
        -c "SELECT inbox.create_inbox('decay')" >/dev/null
      [ "$inbox" = plain ] || "${PSQL[@]}" -c "SELECT inbox.enable_inbox_ordering('decay')" >/dev/null
      [ "$setting" = throttled ] && "${PSQL[@]}" -c "ALTER TABLE inbox.decay RESET (autovacuum_vacuum_cost_delay)" >/dev/null
      "${PSQL[@]}" -c "INSERT INTO inbox.decay (event_id, event_type, source, aggregate_id, payload)
          SELECT 'm' || g, 'order.placed', 'bench', 'agg-' || (g % 1000),
                 '{\"order\":\"ORD-000000\",\"amount\":4999,\"currency\":\"EUR\",\"customer\":\"C-12345\"}'
          FROM generate_series(1, $BACKLOG) g" -c "VACUUM ANALYZE inbox.decay" -c CHECKPOINT >/dev/null
      load=$(cut -d' ' -f1-3 /proc/loadavg)
      before=$("${PSQL[@]}" -c "SELECT autovacuum_count FROM pg_stat_user_tables WHERE relid = 'inbox.decay'::regclass")
      # -P 1: the transactions of every second; a second of empty claims at the end counts nothing.
      "$BIN/pgbench" -h 127.0.0.1 -p "$PORT" -U postgres -n -M prepared -c 1 -T "$SECONDS_PER_RUN" -P 1 \
        -f "$WORK/claim.sql" postgres 2> "$WORK/progress" > /dev/null
      claimed=$("${PSQL[@]}" -c "SELECT count(*) FROM inbox.decay WHERE processed_at IS NOT NULL")
      # The statistics collector reports autovacuum's runs with a delay of up to half a second.
      sleep 1
      after=$("${PSQL[@]}" -c "SELECT autovacuum_count FROM pg_stat_user_tables WHERE relid = 'inbox.decay'::regclass")
      rates=$(awk -v b="$BATCH" '/^progress/ {print $4 * b}' "$WORK/progress" | tr '\n' ' ')
      first=$(echo "$rates" | awk '{printf "%.0f", ($1 + $2 + $3) / 3}')
      # A drained backlog: the three whole seconds before the one it ran out in (the empty claims
      # after it count as rows in the progress lines), and that second.
      last=$(echo "$rates" | awk -v total="$claimed" -v backlog="$BACKLOG" '{
        if (total < backlog) { printf "%.0f", ($(NF - 2) + $(NF - 1) + $NF) / 3; exit }
        s = 0; for (n = 1; n <= NF && s < total; n++) s += $n
        n--; printf "%.0f (drained in second %d)", ($(n - 3) + $(n - 2) + $(n - 1)) / 3, n }')
      printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$round" "$inbox" "$setting" "$claimed" "$first" "$last" \
        "$((after - before))" "$load"
    done
  done
done
