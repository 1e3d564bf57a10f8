#!/usr/bin/env bash
# usage: prod.sh <sqldir> <batch> <producers> <total> [extra sql after create]
export PGHOST=127.0.0.1 PGPORT=54399 PGUSER=postgres
SQLDIR=$1; B=$2; P=$3; N=$4; EXTRA=${5:-}
psql -q -d postgres -c "DROP DATABASE IF EXISTS prod" -c "CREATE DATABASE prod" >/dev/null
psql -q -d prod -v ON_ERROR_STOP=1 -f $SQLDIR/install.sql >/dev/null
psql -q -d prod -c "SELECT inbox.create_inbox('q')" >/dev/null; [ -n "$EXTRA" ] && psql -q -d prod -c "$EXTRA" >/dev/null
psql -q -d prod -c "CHECKPOINT" >/dev/null
java -cp /root/.m2/repository/org/postgresql/postgresql/42.7.14/postgresql-42.7.14.jar:/tmp/perfpg/bench Bench produce prod q $B $P $N
