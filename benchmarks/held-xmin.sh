#!/usr/bin/env bash
# How the SQL API's claim behaves while a long REPEATABLE READ transaction holds the xmin horizon
# back. A claimed message's old row version, and its entry in the claim index of pending rows,
# can go only when no snapshot may still see it; while one old snapshot is open, vacuum removes
# nothing, index entries cannot even be marked dead, and every claim steps over all the messages
# claimed since the snapshot was taken before it finds a pending one (docs/performance.md, "Dead
# entries ahead of the first pending row").
#
# PRODUCERS pgbench clients produce RATE messages/s together (one INSERT and durable commit each;
# more than one lets the commits of several share a WAL flush, which a disk whose flush takes about
# a millisecond needs beyond ~1,000 msg/s), CONSUMERS
# pgbench clients claim BATCH at a time (SELECT count(*) FROM inbox.claim_held(BATCH), one claim
# and commit per transaction), for CLEAN + HOLD + AFTER seconds:
#   clean  nothing holds the horizon
#   held   a psql session has run BEGIN ISOLATION LEVEL REPEATABLE READ and one snapshot-taking
#          read, and sleeps HOLD seconds inside that transaction before COMMIT
#   after  the horizon is free again; autovacuum (naptime AUTOVACUUM_NAPTIME) cleans up
# A sampler records once a second: produced (the event id sequence), pending backlog, processed
# (produced - pending), n_dead_tup and autovacuum_count of pg_stat_user_tables,
# pg_total_relation_size and pg_indexes_size of inbox.held, the age of the oldest backend_xmin,
# the WAL position, and the machine's load average (the machine may be shared: noise to know of).
# Reports per phase (and the last 30 s of "after") consumption and production rates from those
# samples (not from transaction counts: an empty claim is a transaction too), the largest
# backlog, the claims/s and their latency p50/p99 (the consumers' per-transaction pgbench logs,
# split by completion time), the producer's INSERT and commit p50 (its pgbench log), the WAL
# written per message produced, dead tuples, size and oldest xmin age at the phase's end; then
# the held phase by 30 s, so the growth is visible.
#
# Parameters (environment, with defaults):
#   RATE=1000 PRODUCERS=1 CONSUMERS=2 BATCH=100 CLEAN=60 HOLD=180 AFTER=60 (seconds) AUTOVACUUM_NAPTIME=1s
#   MODE=plain|ordered|tracked|tracked-front  ordered: inbox.enable_inbox_ordering('held') after
#                       create_inbox; the messages are spread over 1,000 aggregate ids
#                       'agg-' || (n % 1000) either way. tracked: an application's table app.held
#                       tracked as inbox "held" (enable_inbox_tracking) with its identity column
#                       "arrival" as the arrival column, claimed through the index
#                       (arrival) WHERE processed_at IS NULL; tracked-front: the same table without
#                       an arrival column, claimed in received_at, event_id order through
#                       (received_at, event_id) WHERE processed_at IS NULL (docs/consuming.md)
#   SEQUENCE=seq|received_at  an ordered inbox's sequence column (seq: arrival, enable_inbox_ordering's
#                       default for a managed inbox)
#   CLAIM_RATE=200      the consumers' pace when claims are fast (pgbench -R, claims/s over all
#                       consumers, with -L 5 ms; 0: unthrottled; see below)
#   BENCH_PG_PORT=25441 BENCH_PG_DATA=/tmp/inbox-bench-heldxmin (pg15-cluster.sh)
#   SQL_REV=REV         install sql/inbox as of git revision REV (git archive: the files of the working
#                       tree are not read), e.g. SQL_REV=HEAD while sql/ is being edited;
#                       default: the working tree. The report's first line says which.
#   KEEP=DIR            keep the samples and the pgbench logs in DIR
#
#   TARGET=inbox|pgq    pgq: the same flow through PgQ (Debian's postgresql-15-pgq3, installed when
#                       missing and run as root), the batch-and-rotation design PgQue ports to plain
#                       SQL: pgq.insert_event produces, one consumer takes each batch in one transaction
#                       (next_batch, get_batch_events, finish_batch: a "claim"; PgQ gives a consumer's
#                       batches to one process at a time, so CONSUMERS must be 1), a ticker client runs
#                       pgq.ticker('held') TICKS times a second (ticker_max_count 1: a tick whenever
#                       there are new events), a maintenance client rotates the event tables every
#                       PGQ_ROTATION and moves retries once a second. Backlog: events produced and not
#                       in a finished batch (ticked or not); dead tuples and sizes over schema pgq.
#                       MODE, SEQUENCE and SQL_REV are the inbox's; pgmq is not here (no package
#                       registry ships its SQL; see benchmarks/peers for PGMQ_SQL).
#   TICKS=20 PGQ_ROTATION=60s
#
#   [MODE=ordered] [SQL_REV=HEAD] [CLEAN=60 HOLD=180 AFTER=60 ...] benchmarks/held-xmin.sh
#   TARGET=pgq CONSUMERS=1 [CLEAN=60 HOLD=180 AFTER=60 ...] benchmarks/held-xmin.sh
#
# The consumers' pace. Unthrottled, a claim on an empty backlog returns in ~0.15 ms and two
# consumers spin on empty claims (6,000/s) while the producer keeps the backlog near zero: on the
# 2-core machine that took the CPU the producer needs (540 of 1,000 msg/s produced in the clean
# phase). A "\sleep 1 ms" after an empty claim (\gset, \if) spins less but still starved the
# producer once claims slowed (575 msg/s while held), and lands in the logged time of that claim
# (pgbench times the whole script): most claims of the clean phase are empty, so its p50 was the
# sleep (1.3 ms). So the consumers run with pgbench -R CLAIM_RATE -L 5: they start at most
# CLAIM_RATE claims a second over all consumers (Poisson; the default 200 claims up to 20,000
# msg/s, 20x RATE), and the schedule lag in the log is taken off each transaction's time, which
# leaves the claim and its commit exactly. A claim slower than its consumer's schedule is followed
# by the next at once (back to back), and -L skips the slots more than 5 ms late instead of running
# them in a burst after the release. At 200 the producer kept its 1,000 msg/s in every phase with
# 46 % of the CPU idle while held (at 1,000 claims/s: 630 msg/s produced while held, 9 % idle).
# (Measured with CLEAN=15 HOLD=20 AFTER=10 on a 2-core machine, 2026-11-29.)
#
# Starts a fresh PostgreSQL 15 on 127.0.0.1 only (benchmarks/pg15-cluster.sh), every client
# connects over loopback, every part has a bounded duration, and the server, the clients and the
# temporary files go at exit, also on an error or Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=${RATE:-1000}
PRODUCERS=${PRODUCERS:-1}
CONSUMERS=${CONSUMERS:-2}
BATCH=${BATCH:-100}
CLEAN=${CLEAN:-60}
HOLD=${HOLD:-180}
AFTER=${AFTER:-60}
AUTOVACUUM_NAPTIME=${AUTOVACUUM_NAPTIME:-1s}
MODE=${MODE:-plain}
SEQUENCE=${SEQUENCE:-seq}
CLAIM_RATE=${CLAIM_RATE:-200}
TARGET=${TARGET:-inbox}
TICKS=${TICKS:-20}
PGQ_ROTATION=${PGQ_ROTATION:-60s}
case "$PRODUCERS" in [1-8]) ;; *) echo "PRODUCERS must be 1 to 8, got $PRODUCERS" >&2; exit 2 ;; esac
case "$TARGET" in inbox | pgq) ;; *) echo "TARGET must be inbox or pgq, got $TARGET" >&2; exit 2 ;; esac
if [ "$TARGET" = pgq ] && [ "$CONSUMERS" != 1 ]; then
  echo "TARGET=pgq needs CONSUMERS=1: PgQ hands a consumer's batches to one process at a time" >&2
  exit 2
fi
case "$MODE" in plain | ordered | tracked | tracked-front) ;; *) echo "MODE must be plain, ordered, tracked or tracked-front, got $MODE" >&2; exit 2 ;; esac
case "$SEQUENCE" in received_at | seq) ;; *) echo "SEQUENCE must be received_at or seq, got $SEQUENCE" >&2; exit 2 ;; esac
export BENCH_PG_PORT=${BENCH_PG_PORT:-25441}
export BENCH_PG_DATA=${BENCH_PG_DATA:-/tmp/inbox-bench-heldxmin}
TOTAL=$((CLEAN + HOLD + AFTER))

. benchmarks/pg15-cluster.sh
PSQL=("$BIN/psql" -X -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1)
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp -r "$WORK"/. "$KEEP"/; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Each target writes produce.sql, claim.sql and sample.sql into $WORK and names what runs in
# UNDER_TEST. A sample is one line: epoch, produced, pending, dead tuples, autovacuums, total size,
# index size, oldest xmin age, WAL position, and the lower bound of the next sample's count (:lo).
setup_inbox() {
  # The SQL API of the working tree, or of SQL_REV (git archive: the tree is left alone).
  if [ -n "${SQL_REV:-}" ]; then
    SQL_FROM="$SQL_REV ($(git rev-parse --short "$SQL_REV^{commit}"))"
    git archive "$SQL_REV" sql/inbox | tar -x -C "$WORK"
    SQL_DIR=$WORK/sql/inbox
  else
    SQL_FROM="the working tree ($(git rev-parse --short HEAD)"
    git diff --quiet HEAD -- sql/inbox && SQL_FROM+=")" || SQL_FROM+=" + uncommitted changes in sql/inbox)"
    SQL_DIR=sql/inbox
  fi
  "${PSQL[@]}" -f "$SQL_DIR/install.sql" >/dev/null
  "${PSQL[@]}" -c "ALTER SYSTEM SET autovacuum_naptime = '$AUTOVACUUM_NAPTIME'" -c "SELECT pg_reload_conf()" \
    -c "CREATE SEQUENCE bench_ids" >/dev/null
  case "$MODE" in tracked*) setup_tracked; return ;; esac
  "${PSQL[@]}" -c "SELECT inbox.create_inbox('held')" >/dev/null
  [ "$MODE" = ordered ] && "${PSQL[@]}" -c "SELECT inbox.enable_inbox_ordering('held', 'aggregate_id', '$SEQUENCE')" >/dev/null
  "${PSQL[@]}" -c "VACUUM ANALYZE inbox.held" -c CHECKPOINT >/dev/null
  LEVEL=$("${PSQL[@]}" -c "SELECT inbox.priority_of_held('order.placed', 'bench', 'agg-0')")
  [ "$("${PSQL[@]}" -c "SELECT pg_get_serial_sequence('inbox.held', 'seq')")" = inbox.held_seq_seq ] \
    || { echo "the seq column's sequence is not inbox.held_seq_seq" >&2; exit 1; }

  cat > "$WORK/produce.sql" <<'EOF'
INSERT INTO inbox.held (event_id, event_type, source, aggregate_id, payload)
SELECT 'e' || n, 'order.placed', 'bench', 'agg-' || (n % 1000), '{"order":"ORD-000000","amount":4999}'
FROM (SELECT nextval('bench_ids') AS n) s;
EOF
  echo "SELECT count(*) FROM inbox.claim_held($BATCH);" > "$WORK/claim.sql"
  # One row a second. processed = produced - pending: the sequence is read without a scan (a message
  # whose INSERT has not committed yet counts as processed for that sample, one per producer at most).
  # The pending count must not itself walk what vacuum cannot remove: a count(*) over the claim
  # index read every claimed entry kept by the held horizon, 1-2 s of a core per sample after
  # 800,000 claimed, which starved the producer and made the rig measure itself. It counts from
  # :lo instead, the lowest pending seq of the previous sample (or, with none pending, ten below the
  # last seq taken before it counted: each producer has at most one insert in flight), through
  # the claim index's range for the messages' one priority level (:level).
  cat > "$WORK/sample.sql" <<'EOF'
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT extract(epoch FROM clock_timestamp()),
       (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM bench_ids),
       p.n, s.n_dead_tup, s.autovacuum_count,
       pg_total_relation_size('inbox.held'), pg_indexes_size('inbox.held'),
       (SELECT coalesce(max(age(backend_xmin)), 0) FROM pg_stat_activity WHERE pid <> pg_backend_pid()),
       (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint,
       coalesce(p.lowest, greatest(q.last_seq - 10, 0))
FROM (SELECT last_value AS last_seq FROM inbox.held_seq_seq) q,
     LATERAL (SELECT count(*) AS n, min(m.seq) AS lowest FROM inbox.held m
              WHERE m.processed_at IS NULL AND m.retry_count < 3 AND m.priority = :level AND m.seq >= :lo) p,
     pg_stat_user_tables s WHERE s.relid = 'inbox.held'::regclass;
EOF
  UNDER_TEST="sql/inbox of $SQL_FROM (MODE=$MODE SEQUENCE=$SEQUENCE)"
}

# MODE=tracked and tracked-front: the same flow into an application's table. The sampler counts the
# pending backlog from :lo as for a managed inbox, through the index the claim walks: the lowest
# pending arrival of the previous sample (or ten below the last one taken), or with tracked-front
# the lowest pending received_at as an epoch (or ten seconds before the sample).
setup_tracked() {
  local arrival=NULL index="(arrival)" from="m.arrival >= :lo" lowest="min(m.arrival)"
  local none="greatest((SELECT last_value FROM app.held_arrival_seq) - 10, 0)"
  if [ "$MODE" = tracked-front ]; then
    index="(received_at, event_id)" from="m.received_at >= to_timestamp(:lo) - interval '1 ms'"
    lowest="extract(epoch FROM min(m.received_at))" none="extract(epoch FROM clock_timestamp()) - 10"
  else
    arrival="'arrival'"
  fi
  "${PSQL[@]}" >/dev/null <<EOF
CREATE SCHEMA app;
CREATE TABLE app.held (event_id text PRIMARY KEY, event_type text NOT NULL, aggregate_id text, payload jsonb,
                       arrival bigint GENERATED ALWAYS AS IDENTITY,
                       received_at timestamptz NOT NULL DEFAULT now(), processed_at timestamptz);
CREATE INDEX held_waiting ON app.held $index WHERE processed_at IS NULL;
SELECT inbox.enable_inbox_tracking('held', 'app.held', p_arrival_column => $arrival);
VACUUM ANALYZE app.held;
CHECKPOINT;
EOF
  cat > "$WORK/produce.sql" <<'EOF'
INSERT INTO app.held (event_id, event_type, aggregate_id, payload)
SELECT 'e' || n, 'order.placed', 'agg-' || (n % 1000), '{"order":"ORD-000000","amount":4999}'
FROM (SELECT nextval('bench_ids') AS n) s;
EOF
  echo "SELECT count(*) FROM inbox.claim_held($BATCH);" > "$WORK/claim.sql"
  cat > "$WORK/sample.sql" <<EOF
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT extract(epoch FROM clock_timestamp()),
       (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM bench_ids),
       p.n, s.n_dead_tup, s.autovacuum_count,
       pg_total_relation_size('app.held'), pg_indexes_size('app.held'),
       (SELECT coalesce(max(age(backend_xmin)), 0) FROM pg_stat_activity WHERE pid <> pg_backend_pid()),
       (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint,
       coalesce(p.lowest, $none)
FROM (SELECT count(*) AS n, $lowest AS lowest FROM app.held m WHERE m.processed_at IS NULL AND $from) p,
     pg_stat_user_tables s WHERE s.relid = 'app.held'::regclass;
EOF
  UNDER_TEST="sql/inbox of $SQL_FROM (MODE=$MODE)"
}

# PgQ: events go to the queue's current event table (rotated, and truncated once the consumer has
# passed it); the consumer's position is its last finished tick, whose tick_event_seq is the last
# event id that tick's batch took in (an insert still running at the tick goes into the next batch).
setup_pgq() {
  if [ ! -f "$("$BIN/pg_config" --sharedir)/extension/pgq.control" ]; then
    [ "$(id -u)" = 0 ] || { echo "PgQ is not installed: apt-get install postgresql-15-pgq3 (as root)" >&2; exit 1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15-pgq3 >"$WORK/apt.log" 2>&1 \
      || { echo "apt-get install postgresql-15-pgq3 failed:" >&2; cat "$WORK/apt.log" >&2; exit 1; }
  fi
  "${PSQL[@]}" >/dev/null <<EOF
ALTER SYSTEM SET autovacuum_naptime = '$AUTOVACUUM_NAPTIME';
SELECT pg_reload_conf();
CREATE EXTENSION pgq;
SELECT pgq.create_queue('held');
SELECT pgq.set_queue_config('held', 'ticker_max_count', '1');
SELECT pgq.set_queue_config('held', 'rotation_period', '$PGQ_ROTATION');
SELECT pgq.register_consumer('held', 'bench');
CREATE SEQUENCE bench_ids;
CREATE FUNCTION consume_held() RETURNS integer LANGUAGE plpgsql AS \$\$
DECLARE
  batch bigint := pgq.next_batch('held', 'bench');
  taken integer;
BEGIN
  IF batch IS NULL THEN
    RETURN 0;
  END IF;
  SELECT count(*) INTO taken FROM pgq.get_batch_events(batch);
  PERFORM pgq.finish_batch(batch);
  RETURN taken;
END
\$\$;
CHECKPOINT;
EOF
  UNDER_TEST="PgQ $("${PSQL[@]}" -c "SELECT extversion FROM pg_extension WHERE extname = 'pgq'") (TICKS=$TICKS PGQ_ROTATION=$PGQ_ROTATION)"
  cat > "$WORK/produce.sql" <<'EOF'
SELECT pgq.insert_event('held', 'order.placed', '{"order":"ORD-000000","amount":4999}', 'bench', 'agg-' || (n % 1000), NULL, NULL)
FROM (SELECT nextval('bench_ids') AS n) s;
EOF
  echo "SELECT consume_held();" > "$WORK/claim.sql"
  echo "SELECT pgq.ticker('held');" > "$WORK/ticker.sql"
  # Each statement in a transaction of its own: step 2 must see step 1 committed.
  cat > "$WORK/maint.sql" <<'EOF'
SELECT pgq.maint_rotate_tables_step1('held');
SELECT pgq.maint_rotate_tables_step2();
SELECT pgq.maint_retry_events();
EOF
  cat > "$WORK/sample.sql" <<'EOF'
SELECT extract(epoch FROM clock_timestamp()), e.produced, e.produced - coalesce(t.tick_event_seq, 0),
       st.dead, st.avac, st.size, st.isize,
       (SELECT coalesce(max(age(backend_xmin)), 0) FROM pg_stat_activity WHERE pid <> pg_backend_pid()),
       (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint, 0
FROM pgq.queue q
JOIN pgq.subscription s ON s.sub_queue = q.queue_id
LEFT JOIN pgq.tick t ON t.tick_queue = q.queue_id AND t.tick_id = s.sub_last_tick,
LATERAL (SELECT pgq.seq_getval(q.queue_event_seq) AS produced) e,
LATERAL (SELECT sum(n_dead_tup) AS dead, sum(autovacuum_count) AS avac,
                sum(pg_total_relation_size(relid)) AS size, sum(pg_indexes_size(relid)) AS isize
         FROM pg_stat_user_tables WHERE schemaname = 'pgq') st
WHERE q.queue_name = 'held';
EOF
}

LEVEL=0
"setup_$TARGET"

START=$EPOCHREALTIME
END_US=$(( ${START/./} + (TOTAL + 1) * 1000000 ))
"$BIN/pgbench" -h 127.0.0.1 -p "$PORT" -U postgres -n -M prepared -c "$PRODUCERS" -j "$PRODUCERS" \
  -R "$RATE" -T "$TOTAL" -l --log-prefix="$WORK/inserts" \
  -f "$WORK/produce.sql" postgres > "$WORK/producer.out" 2>&1 &
PIDS+=($!)
PRODUCER=$!
PACE=(-R "$CLAIM_RATE" -L 5)
[ "$CLAIM_RATE" = 0 ] && PACE=()
"$BIN/pgbench" -h 127.0.0.1 -p "$PORT" -U postgres -n -M prepared -c "$CONSUMERS" -j "$CONSUMERS" \
  "${PACE[@]}" -T "$TOTAL" -l --log-prefix="$WORK/claims" \
  -f "$WORK/claim.sql" postgres > "$WORK/consumers.out" 2>&1 &
PIDS+=($!)
CONSUMER=$!
HELPERS=()
if [ "$TARGET" = pgq ]; then
  "$BIN/pgbench" -h 127.0.0.1 -p "$PORT" -U postgres -n -M prepared -c 1 -R "$TICKS" -T "$TOTAL" \
    -f "$WORK/ticker.sql" postgres > "$WORK/ticker.out" 2>&1 &
  PIDS+=($!) HELPERS+=($!)
  "$BIN/pgbench" -h 127.0.0.1 -p "$PORT" -U postgres -n -c 1 -R 1 -T "$TOTAL" \
    -f "$WORK/maint.sql" postgres > "$WORK/maint.out" 2>&1 &
  PIDS+=($!) HELPERS+=($!)
fi
(
  next=${START/./}
  lo=0
  while [ "$next" -lt "$END_US" ]; do
    if row=$("${PSQL[@]}" -F ' ' -v lo="$lo" -v level="$LEVEL" -f "$WORK/sample.sql"); then
      lo=${row##* }
      echo "${row% *} $(cut -d' ' -f1 /proc/loadavg)" >> "$WORK/samples"
    fi
    next=$((next + 1000000))
    now=${EPOCHREALTIME/./}
    [ "$now" -lt "$next" ] && sleep "$(printf '0.%06d' $((next - now)))"
  done
) &
PIDS+=($!)
SAMPLER=$!

sleep "$CLEAN"
# The holder: one snapshot from its first read until COMMIT. Its clock readings are the phase
# boundaries (the second is taken right before COMMIT, still inside the transaction).
"${PSQL[@]}" -F ' ' > "$WORK/holder" <<EOF
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) > 0 FROM pg_class;
SELECT 'hold_start', extract(epoch FROM clock_timestamp());
SELECT pg_sleep($HOLD);
SELECT 'hold_end', extract(epoch FROM clock_timestamp());
COMMIT;
EOF
wait "$PRODUCER" || { echo "producer failed:" >&2; cat "$WORK/producer.out" >&2; exit 1; }
wait "$CONSUMER" || { echo "consumers failed:" >&2; cat "$WORK/consumers.out" >&2; exit 1; }
for p in "${HELPERS[@]}"; do
  wait "$p" || { echo "the PgQ ticker or maintenance failed:" >&2; cat "$WORK"/ticker.out "$WORK"/maint.out >&2; exit 1; }
done
wait "$SAMPLER" || true
PIDS=()

printf 'TARGET=%s RATE=%s PRODUCERS=%s CONSUMERS=%s BATCH=%s CLAIM_RATE=%s CLEAN=%s HOLD=%s AFTER=%s AUTOVACUUM_NAPTIME=%s; %s\n\n' \
  "$TARGET" "$RATE" "$PRODUCERS" "$CONSUMERS" "$BATCH" "$CLAIM_RATE" "$CLEAN" "$HOLD" "$AFTER" "$AUTOVACUUM_NAPTIME" "$UNDER_TEST"
python3 - "$WORK" "${START}" "$TOTAL" <<'EOF'
import glob, sys

work, start, total = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
samples = []
for line in open(f"{work}/samples"):
    f = line.split()
    if len(f) == 10:
        t, produced, pending, dead, avac, size, isize, xmin_age, wal = float(f[0]), *map(int, f[1:9])
        samples.append(dict(t=t, produced=produced, pending=pending, processed=produced - pending,
                            dead=dead, avac=avac, size=size, isize=isize, xmin_age=xmin_age, wal=wal,
                            load=float(f[9])))
holder = dict(line.split() for line in open(f"{work}/holder") if line.startswith("hold_"))
hold_start, hold_end = float(holder["hold_start"]), float(holder["hold_end"])
end = min(start + total, samples[-1]["t"])

def transactions(prefix):
    """(completion epoch s, latency us without schedule lag) of a pgbench log, and the slots skipped."""
    done, skipped = [], 0
    for path in glob.glob(f"{work}/{prefix}.*"):
        for line in open(path):
            f = line.split()
            if f[2] == "skipped":
                skipped += 1
                continue
            lag = int(f[6]) if len(f) > 6 else 0
            done.append((int(f[4]) + int(f[5]) / 1e6, int(f[2]) - lag))
    return done, skipped


claims, skipped = transactions("claims")
inserts, _ = transactions("inserts")


def at(t, key):
    """A sampled counter at time t, interpolated between the samples around it."""
    before = [s for s in samples if s["t"] <= t]
    after = [s for s in samples if s["t"] >= t]
    if not before:
        return after[0][key]
    if not after:
        return before[-1][key]
    a, b = before[-1], after[0]
    if b["t"] == a["t"]:
        return a[key]
    return a[key] + (b[key] - a[key]) * (t - a["t"]) / (b["t"] - a["t"])


def last(t):
    """The last sample taken by time t (a quarter of a second before: a sample's clock is read
    before its pg_stat_activity), the first one before that."""
    return ([s for s in samples if s["t"] <= t - 0.25] or samples[:1])[-1]


def pct(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def row(name, a, b):
    secs = b - a
    lat = [l for (t, l) in claims if a <= t < b]
    inside = [s for s in samples if a <= s["t"] <= b]
    s = last(b)
    ins = [l for (t, l) in inserts if a <= t < b]
    produced = at(b, "produced") - at(a, "produced")
    return "| %s | %.0f | %.0f | %.0f | %s | %.0f | %.2f | %.2f | %.2f | %.0f | %s | %.1f (%.1f) | %s | %s |" % (
        name, secs, (at(b, "processed") - at(a, "processed")) / secs, produced / secs,
        max((x["pending"] for x in inside), default=0), len(lat) / secs,
        pct(lat, 50) / 1000, pct(lat, 99) / 1000, pct(ins, 50) / 1000,
        (at(b, "wal") - at(a, "wal")) / max(produced, 1),
        s["dead"], s["size"] / 2**20, s["isize"] / 2**20, s["xmin_age"], s["avac"] - last(a)["avac"])


print("| phase | s | consumed msg/s | produced msg/s | max backlog | claims/s | claim p50 ms | claim p99 ms "
      "| insert p50 ms | WAL bytes per message | dead tuples at end | total MB at end (indexes) "
      "| oldest xmin age at end | autovacuums |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
print(row("clean", start, hold_start))
print(row("held", hold_start, hold_end))
print(row("after", hold_end, end))
print(row("after, last 30 s", max(hold_end, end - 30), end))
print()
print("Held phase by 30 s (from the holder's first read):")
print()
print("| s into hold | consumed msg/s | max backlog | claims/s | claim p50 ms | claim p99 ms | insert p50 ms "
      "| WAL bytes per message | dead tuples at end | total MB at end |")
print("|---|---|---|---|---|---|---|---|---|---|")
a = hold_start
while a < hold_end - 1:
    b = min(a + 30, hold_end)
    lat = [l for (t, l) in claims if a <= t < b]
    inside = [s for s in samples if a <= s["t"] <= b]
    s = last(b)
    ins = [l for (t, l) in inserts if a <= t < b]
    print("| %.0f-%.0f | %.0f | %s | %.0f | %.2f | %.2f | %.2f | %.0f | %s | %.1f |" % (
        a - hold_start, b - hold_start, (at(b, "processed") - at(a, "processed")) / (b - a),
        max((x["pending"] for x in inside), default=0), len(lat) / (b - a),
        pct(lat, 50) / 1000, pct(lat, 99) / 1000, pct(ins, 50) / 1000,
        (at(b, "wal") - at(a, "wal")) / max(at(b, "produced") - at(a, "produced"), 1),
        s["dead"], s["size"] / 2**20))
    a = b
print()
print("Phases: clean %.1f s, held %.1f s, after %.1f s; %d samples; %d claims logged, %d schedule slots "
      "skipped (-L 5); processed in total %d of %d produced." % (
          hold_start - start, hold_end - hold_start, end - hold_end, len(samples), len(claims), skipped,
          samples[-1]["processed"], samples[-1]["produced"]))
print("Load average (1 min, this benchmark's processes included) at the start and at the end of each phase: "
      "%.2f, %.2f, %.2f, %.2f." % tuple(last(t)["load"] for t in (start + 0.5, hold_start, hold_end, end + 0.5)))
EOF
