#!/usr/bin/env bash
# Compares the claim function of two commits inside one PostgreSQL backend, batch by batch: the
# two claims alternate (A's batch, commit, B's, commit, then B first, ...) over two identical backlogs, and
# the time inside each claim call is summed per variant. Both see the same machine at the same
# moments, so a difference of a few percent stands out of this 2-core machine's noise, which
# drain rates (ab.sh) and CPU ticks of separate runs do not. Server time only: no client, no
# network, no commit flush (synchronous_commit off in the measuring session).
#   benchmarks/claim-pair.sh [--rounds N] [--batch N] [--budget BYTES|none] [--shape S] [--sequence C]
#       [--per-aggregate N] [--dead N] A_REF B_REF
# Shapes: mailroom (40,000 messages, one per aggregate, ordered, as the mailroom's tokens),
# ordered (100,000 over 1,000 aggregates, ordered, as consume-ordered), plain (100,000, no
# ordering, as consume-plain), ten and one (100,000 over ten aggregates or one, ordered: for
# --per-aggregate, the claim's p_per_aggregate, default 1). --budget is the claim's byte budget (default 16777216, the worker's
# default; "none" for no budget). --sequence is an ordered inbox's sequence column: seq (default,
# as the mailroom's) or received_at (enable_inbox_ordering's default, as consume-ordered's; the
# backlog is one INSERT, so an aggregate's messages share it).
# --dead N adds N dead letters, each of an aggregate of its own (none of the backlog's): what an
# inbox that has failed before holds, and what an ordered claim's head test may have to look at.
# Both inboxes' tables come from A's SQL, and B's generated claim function is installed over the
# second one: B's function may only call functions A's install also has (a change of the table is
# out of its reach; use ab.sh for that). Starts its own PostgreSQL 15 (pg15-cluster.sh, port
# BENCH_PG_PORT, default 25432).
set -euo pipefail
rounds=3 batch=100 budget=16777216 shape=mailroom sequence=seq per=1 dead=0
while [ $# -gt 2 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2;;
    --batch) batch=$2; shift 2;;
    --budget) budget=$2; shift 2;;
    --shape) shape=$2; shift 2;;
    --sequence) sequence=$2; shift 2;;
    --per-aggregate) per=$2; shift 2;;
    --dead) dead=$2; shift 2;;
    *) echo "unknown option $1" >&2; exit 2;;
  esac
done
[ $# -eq 2 ] || { echo "usage: $0 [--rounds N] [--batch N] [--budget BYTES|none] [--shape mailroom|ordered|plain] [--sequence seq|received_at] [--per-aggregate N] [--dead N] A_REF B_REF" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$repo/benchmarks/pg15-cluster.sh"
trap 'as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
psql_() { psql -h 127.0.0.1 -p "$PORT" -U postgres -qAt -v ON_ERROR_STOP=1 "$@"; }

case $shape in
  mailroom) n=40000; aggregate="'acct-' || g"; ordered=1;;
  ordered) n=100000; aggregate="'agg-' || (g % 1000)"; ordered=1;;
  plain) n=100000; aggregate="'agg-' || (g % 1000)"; ordered=0;;
  ten) n=100000; aggregate="'agg-' || (g % 10)"; ordered=1;;
  one) n=100000; aggregate="'agg-0'"; ordered=1;;
  *) echo "unknown shape $shape" >&2; exit 2;;
esac
[ "$budget" = none ] && budget=NULL
args="$batch, NULL, $budget"
[ "$per" != 1 ] && args="$args, p_per_aggregate => $per"  # refs before 2026-11-28 have no such argument

# An inbox of that shape in a database of its own, made by a ref's SQL.
make_inbox() { # ref database inbox
  mkdir -p "$work/$1" && git -C "$repo" archive "$1" sql/inbox | tar -x -C "$work/$1"
  psql_ -c "CREATE DATABASE $2"
  psql_ -d "$2" -f "$work/$1/sql/inbox/install.sql" >/dev/null
  psql_ -d "$2" -c "SELECT inbox.create_inbox('$3')" >/dev/null
  if [ $ordered = 1 ]; then
    psql_ -d "$2" -c "SELECT inbox.enable_inbox_ordering('$3', 'aggregate_id', '$sequence')" >/dev/null
  fi
}
make_inbox "$1" pair a
psql_ -d pair -c "SELECT inbox.create_inbox('b')" >/dev/null
[ $ordered = 1 ] && psql_ -d pair -c "SELECT inbox.enable_inbox_ordering('b', 'aggregate_id', '$sequence')" >/dev/null
make_inbox "$2" variant_b b
psql_ -d variant_b -c "SELECT pg_get_functiondef('inbox.claim_b'::regproc)" | psql_ -d pair -f - >/dev/null
echo "A = $1 ($(git -C "$repo" rev-parse --short "$1")), B = $2 ($(git -C "$repo" rev-parse --short "$2")); shape $shape, $n messages, sequence $sequence, batch $batch, budget $budget, per aggregate $per, dead letters $dead"

payload='{"orderId":"o-12345","customer":"c-678","amount":123.45,"currency":"EUR","items":[1,2,3]}'
for r in $(seq 1 "$rounds"); do
  for inbox in a b; do
    psql_ -d pair -c "TRUNCATE inbox.$inbox" \
      -c "INSERT INTO inbox.$inbox (event_id, event_type, source, aggregate_id, payload)
          SELECT 'm' || g, 'token', 'bench', $aggregate, '$payload' FROM generate_series(1, $n) g" \
      -c "INSERT INTO inbox.$inbox (event_id, event_type, source, aggregate_id, payload, retry_count)
          SELECT 'd' || g, 'token', 'bench', 'dead-' || g, '$payload', 3 FROM generate_series(1, $dead) g" \
      -c "VACUUM ANALYZE inbox.$inbox"
  done
  psql_ -d pair -c CHECKPOINT
  psql_ -d pair 2>&1 <<SQL | sed 's/^NOTICE:  //'
SET synchronous_commit = off;
DO \$\$
DECLARE
    spent float8[] := '{0,0}';
    got bigint[] := '{0,0}';
    t0 timestamptz;
    k bigint;
    turn integer := 0;
    j integer;
BEGIN
    LOOP
        turn := turn + 1;
        FOR i IN 1..2 LOOP
            j := CASE WHEN turn % 2 = 1 THEN i ELSE 3 - i END;  -- A, B, then B, A
            t0 := clock_timestamp();
            IF j = 1 THEN
                SELECT count(*) INTO k FROM inbox.claim_a($args);
            ELSE
                SELECT count(*) INTO k FROM inbox.claim_b($args);
            END IF;
            spent[j] := spent[j] + extract(epoch FROM clock_timestamp() - t0);
            got[j] := got[j] + k;
            COMMIT;
        END LOOP;
        EXIT WHEN got[1] >= $n AND got[2] >= $n;
        IF got[1] + got[2] = 0 THEN
            RAISE EXCEPTION 'nothing claimed';
        END IF;
    END LOOP;
    RAISE NOTICE 'round $r (load %): A % us/message, B % us/message, B / A %',
        split_part(pg_read_file('/proc/loadavg'), ' ', 1),
        round((spent[1] * 1e6 / got[1])::numeric, 2), round((spent[2] * 1e6 / got[2])::numeric, 2),
        round((spent[2] / got[2] / (spent[1] / got[1]))::numeric, 3);
END
\$\$;
SQL
done
