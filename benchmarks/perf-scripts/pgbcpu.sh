#!/usr/bin/env bash
# pgbcpu.sh <sqldir> : fresh inbox, 100 x 1000-row inserts from 1 pgbench client; prints server CPU ms per 1000 rows and latency
export PGHOST=127.0.0.1 PGPORT=54399 PGUSER=postgres
psql -q -d postgres -c "DROP DATABASE IF EXISTS prod" -c "CREATE DATABASE prod" >/dev/null 2>&1
psql -q -d prod -v ON_ERROR_STOP=1 -f $1/install.sql >/dev/null
psql -q -d prod -c "SELECT inbox.create_inbox('q')" -c CHECKPOINT >/dev/null
sleep 1
a=$(/tmp/perfpg/cpu.sh)
lat=$(pgbench -n -c 1 -t 200 -f /tmp/perfpg/ins.sql prod 2>/dev/null | grep "latency average")
sleep 1; b=$(/tmp/perfpg/cpu.sh)
echo "cpu_ms_per_1000_rows=$(( (b - a) * 10 / 200 )) $lat :: $1"
