#!/usr/bin/env bash
# An option for the ordered head test, measured against the current one (docs/performance.md,
# "Claim floors", "Ordered inboxes"): "blocked" when the nearest earlier message of the aggregate
# (any state, through a full index on (aggregate_id, received_at, seq)) is unprocessed, instead of
# probing the partial ordering index for any earlier unprocessed message, which steps over every
# claimed entry of the aggregate that a held xmin horizon keeps.
# Two ordered inboxes, p (the current test) and q (the option), hold the same backlog (N messages
# over AGGS aggregates, inserted in alternating chunks of 1,000, timed), drained by claims of BATCH
# alternating in one backend (p first, then q first), timed per tenth of the drain; first clean,
# then while a REPEATABLE READ transaction holds the horizon. Starts its own PostgreSQL 15
# (pg15-cluster.sh, port 25461) and stops it.
#   [N=300000] [AGGS=1000] [BATCH=100] benchmarks/head-test-options.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-300000}; AGGS=${AGGS:-1000}; BATCH=${BATCH:-100}
export BENCH_PG_PORT=25461 BENCH_PG_DATA=/tmp/proto-pg
. benchmarks/pg15-cluster.sh
P() { psql -X -qAt -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres -d postgres "$@"; }
P -f sql/inbox/install.sql >/dev/null
P -c "ALTER SYSTEM SET autovacuum_naptime = '1s'" -c "SELECT pg_reload_conf()" >/dev/null
P -c "SELECT inbox.create_inbox('p')" -c "SELECT inbox.create_inbox('q')" \
  -c "SELECT inbox.enable_inbox_ordering('p')" -c "SELECT inbox.enable_inbox_ordering('q')" >/dev/null
ORIG=$(P -c "SELECT pg_get_functiondef('inbox.earlier_unprocessed_sql(text,text,text,text,text,text)'::regprocedure)")
P <<'SQL' >/dev/null
CREATE INDEX q_pred_idx ON inbox.q (aggregate_id, received_at, seq);
CREATE OR REPLACE FUNCTION inbox.earlier_unprocessed_sql(p_table text, p_aggregate_column text,
    p_sequence_column text, p_aggregate text, p_sequence text, p_seq text)
RETURNS text LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT inbox.sql_template(
        'coalesce((SELECT e.processed_at IS NULL FROM {{table}} e WHERE e.{{aggregate_column}} = {{aggregate}}'
            ' AND (e.{{sequence_column}}, e.seq) < ({{sequence}}, {{seq}})'
            ' ORDER BY e.{{aggregate_column}} DESC, e.{{sequence_column}} DESC, e.seq DESC LIMIT 1), false)',
        jsonb_build_object('table', p_table, 'aggregate_column', quote_ident(p_aggregate_column),
        'sequence_column', quote_ident(p_sequence_column), 'aggregate', p_aggregate, 'sequence', p_sequence,
        'seq', p_seq))
$$;
SELECT inbox.rebuild_inbox_objects('q');
SQL
P -c "$ORIG" >/dev/null
echo "q has the option, p not (t, f):"
P -c "SELECT position('coalesce((SELECT e.processed_at IS NULL' in prosrc) > 0 FROM pg_proc WHERE proname = 'claim_q'" \
  -c "SELECT position('coalesce((SELECT e.processed_at IS NULL' in prosrc) > 0 FROM pg_proc WHERE proname = 'claim_p'"

produce() { # alternating chunks of 1,000, timed per inbox
P <<SQL
DO \$\$
DECLARE t0 timestamptz; tp interval := '0'; tq interval := '0'; i int; b int := 0;
BEGIN
  FOR i IN 0 .. $N / 1000 - 1 LOOP
    t0 := clock_timestamp();
    INSERT INTO inbox.p (event_id, event_type, source, aggregate_id, payload)
      SELECT '$1' || n, 't', 's', 'agg-' || (n % $AGGS), '{"a":1}' FROM generate_series(i * 1000, i * 1000 + 999) n;
    tp := tp + (clock_timestamp() - t0);
    COMMIT;
    t0 := clock_timestamp();
    INSERT INTO inbox.q (event_id, event_type, source, aggregate_id, payload)
      SELECT '$1' || n, 't', 's', 'agg-' || (n % $AGGS), '{"a":1}' FROM generate_series(i * 1000, i * 1000 + 999) n;
    tq := tq + (clock_timestamp() - t0);
    COMMIT;
  END LOOP;
  RAISE NOTICE 'produce %: p % ms, q % ms (q/p %)', '$1', round(extract(epoch FROM tp) * 1000), round(extract(epoch FROM tq) * 1000),
    round((extract(epoch FROM tq) / extract(epoch FROM tp))::numeric, 3);
END \$\$;
SQL
}
drain() { # claims alternating (p first, then q first), per tenth of the drain
P <<SQL
DO \$\$
DECLARE t0 timestamptz; tp float8 := 0; tq float8 := 0; cp int := 0; cq int := 0; np int; nq int; k int := 0; tenth int := 0;
  step int := $N / $BATCH / 10; first_p boolean := true;
BEGIN
  LOOP
    IF first_p THEN
      t0 := clock_timestamp(); SELECT count(*) INTO np FROM inbox.claim_p($BATCH); tp := tp + extract(epoch FROM clock_timestamp() - t0); COMMIT;
      t0 := clock_timestamp(); SELECT count(*) INTO nq FROM inbox.claim_q($BATCH); tq := tq + extract(epoch FROM clock_timestamp() - t0); COMMIT;
    ELSE
      t0 := clock_timestamp(); SELECT count(*) INTO nq FROM inbox.claim_q($BATCH); tq := tq + extract(epoch FROM clock_timestamp() - t0); COMMIT;
      t0 := clock_timestamp(); SELECT count(*) INTO np FROM inbox.claim_p($BATCH); tp := tp + extract(epoch FROM clock_timestamp() - t0); COMMIT;
    END IF;
    first_p := NOT first_p;
    cp := cp + np; cq := cq + nq; k := k + 1;
    IF k % step = 0 OR (np = 0 AND nq = 0) THEN
      tenth := tenth + 1;
      RAISE NOTICE '% tenth %: claims % | p % ms/claim (% msgs) | q % ms/claim (% msgs) | q/p %', '$1', tenth, step,
        round((tp * 1000 / step)::numeric, 3), cp, round((tq * 1000 / step)::numeric, 3), cq, round((tq / nullif(tp, 0))::numeric, 3);
      tp := 0; tq := 0;
    END IF;
    EXIT WHEN np = 0 AND nq = 0;
  END LOOP;
END \$\$;
SQL
}
echo "== clean"; produce c; P -c "VACUUM ANALYZE inbox.p" -c "VACUUM ANALYZE inbox.q" -c CHECKPOINT; drain clean
P -c "VACUUM inbox.p" -c "VACUUM inbox.q" -c "SELECT pg_size_pretty(pg_relation_size('inbox.q_pred_idx')), pg_size_pretty(pg_relation_size('inbox.p_ordering_idx'))"
echo "== held"
P -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SELECT count(*) FROM inbox.p" -c "SELECT pg_sleep(3000)" >/dev/null 2>&1 &
HOLDER=$!
sleep 2
produce h; P -c CHECKPOINT; drain held
P -c "SELECT n_dead_tup, relname FROM pg_stat_user_tables WHERE schemaname = 'inbox' AND relname IN ('p','q')"
kill $HOLDER 2>/dev/null || true
P -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(3000)%' AND pid <> pg_backend_pid()" >/dev/null
