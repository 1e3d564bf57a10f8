#!/usr/bin/env bash
# usage: cons.sh <sqldir> <batch> <consumers> [extra sql after create]
export PGHOST=127.0.0.1 PGPORT=54399 PGUSER=postgres
SQLDIR=$1; B=$2; C=$3; EXTRA=${4:-}
psql -q -d postgres -c "DROP DATABASE IF EXISTS cons" -c "CREATE DATABASE cons" >/dev/null 2>&1
psql -q -d cons -v ON_ERROR_STOP=1 -f $SQLDIR/install.sql >/dev/null
psql -q -d cons -c "SELECT inbox.create_inbox('q')" >/dev/null; [ -n "$EXTRA" ] && psql -q -d cons -c "$EXTRA" >/dev/null
psql -q -d cons -c "INSERT INTO inbox.q (event_id, event_type, source, aggregate_id, payload) SELECT 'e' || g, CASE WHEN g % 10 = 0 THEN 'order.cancelled' ELSE 'order.placed' END, 'bench', 'agg-' || (g % 1000), '{\"order\":\"ORD-000000\",\"amount\":4999,\"currency\":\"EUR\",\"customer\":\"C-12345\",\"note\":\"abcdefghij\"}' FROM generate_series(1, 100000) g" -c "VACUUM ANALYZE inbox.q" -c CHECKPOINT >/dev/null
java -cp /root/.m2/repository/org/postgresql/postgresql/42.7.14/postgresql-42.7.14.jar:/tmp/perfpg/bench Bench consume cons q $B $C 0
