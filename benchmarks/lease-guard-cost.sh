#!/usr/bin/env bash
# What the consumers' row-level policies on the lease table cost a claim in the automatic partition
# mode: inbox.lease_guard (the first statement of every claim transaction there) over 32 held
# partitions, 5,000 calls in one transaction, as the owner (who bypasses the policies) and as a
# member of inbox_consumer, in alternating rounds on a fresh PostgreSQL 15 (BENCH_PG_PORT,
# BENCH_PG_DATA as run-pg15.sh).
#   benchmarks/lease-guard-cost.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
. benchmarks/pg15-cluster.sh
PSQL=("$BIN/psql" -h 127.0.0.1 -p "$PORT" -d postgres -qAt -v ON_ERROR_STOP=1)
"${PSQL[@]}" -U postgres -f sql/inbox/install.sql >/dev/null
"${PSQL[@]}" -U postgres -c "SELECT inbox.create_inbox('leases')" \
  -c "CREATE ROLE lease_cost_consumer LOGIN IN ROLE inbox_consumer" \
  -c "SELECT inbox.worker_heartbeat('leases', 'w', 32, interval '1 hour')" >/dev/null
for round in $(seq 1 "$ROUNDS"); do
  for role in postgres lease_cost_consumer; do
    "${PSQL[@]}" -U postgres -c "UPDATE inbox.inbox_partition_leases SET owner_id = 'w',
      lease_expires_at = now() + interval '1 hour' WHERE inbox_name = 'leases'" >/dev/null
    "${PSQL[@]}" -U "$role" -c "DO \$\$
      DECLARE
        t0 timestamptz := clock_timestamp();
        parts integer[] := (SELECT array_agg(g) FROM generate_series(0, 31) g);
        held integer;
      BEGIN
        FOR i IN 1..5000 LOOP
          held := cardinality(inbox.lease_guard('leases', 'w', parts));
        END LOOP;
        RAISE NOTICE 'round $round, $role: % us per lease_guard (% partitions held)',
          round(extract(epoch FROM clock_timestamp() - t0) * 1e6 / 5000), held;
      END \$\$" 2>&1 | grep -o "round .*"
  done
done
echo "Load average: $(cut -d' ' -f1-3 /proc/loadavg)"
