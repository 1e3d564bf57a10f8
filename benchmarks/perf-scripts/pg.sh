#!/usr/bin/env bash
set -euo pipefail
PORT=54399
BIN=/usr/lib/postgresql/15/bin
DATA=/tmp/perfpg/data
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "${1:-start}" = stop ]; then as_postgres $BIN/pg_ctl -D $DATA -m fast stop; exit 0; fi
if [ ! -d $DATA ]; then
 mkdir -p $DATA; [ "$(id -u)" = 0 ] && chown postgres $DATA
 as_postgres $BIN/initdb -D $DATA -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
fi
as_postgres $BIN/pg_ctl -D $DATA -l $DATA/server.log -w -o "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=100 -c shared_buffers=1GB -c synchronous_commit=on -c fsync=on" start >/dev/null
echo "jdbc:postgresql://127.0.0.1:$PORT/postgres?user=postgres"
