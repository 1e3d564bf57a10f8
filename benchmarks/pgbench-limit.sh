#!/usr/bin/env bash
# The server's own limit for the work a consumer does, measured with pgbench on a fresh PostgreSQL 15
# configured like the reference machine (benchmarks/pg15-cluster.sh): one client marking rows
# processed, 100 or 1,000 rows per transaction (one UPDATE by primary-key range, durable commit),
# over a table of 1,000,000 ~100-byte rows. docs/benchmarks.md compares the inbox's consume rates
# with these rows/s: no queue on this server can mark messages faster than plain UPDATEs do.
#   benchmarks/pgbench-limit.sh [SECONDS]      (default 20 per row size)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN=${1:-20}
. benchmarks/pg15-cluster.sh
PSQL="$BIN/psql -h 127.0.0.1 -p $PORT -U postgres -d postgres -qAt"
$PSQL <<'SQL'
CREATE TABLE limit_rows (id bigint PRIMARY KEY, payload jsonb, processed_at timestamptz);
INSERT INTO limit_rows SELECT g, jsonb_build_object('order', g, 'amount', 123.45, 'note', repeat('x', 48)), NULL
FROM generate_series(1, 1000000) g;
VACUUM ANALYZE limit_rows;
CHECKPOINT;
SQL
SCRIPT=$(mktemp)
trap 'rm -f "$SCRIPT"; as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true' EXIT
printf '| rows per transaction | transactions/s | rows/s | load average before |\n|---|---|---|---|\n'
for rows in 100 1000; do
  # Each transaction marks the next range: rows already marked are updated again once the table
  # has been walked, which costs the same.
  cat > "$SCRIPT" <<SQL
\set start random(0, $((1000000 / rows - 1))) * $rows + 1
UPDATE limit_rows SET processed_at = now() WHERE id BETWEEN :start AND :start + $((rows - 1));
SQL
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  tps=$("$BIN/pgbench" -h 127.0.0.1 -p "$PORT" -U postgres -n -M prepared -c 1 -T "$SECONDS_PER_RUN" \
    -f "$SCRIPT" postgres 2>/dev/null | awk '/^tps/ {print $3}')
  printf '| %s | %.0f | %.0f | %s |\n' "$rows" "$tps" "$(awk -v t="$tps" -v r="$rows" 'BEGIN {print t * r}')" "$load"
done
