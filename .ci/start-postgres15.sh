#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 cluster on 127.0.0.1:$PORT as the postgres user and prints
# its JDBC URL. Exit code 3 when PostgreSQL 15 is not installed (the caller skips that run).
set -euo pipefail
PORT=${PORT:-54315}
BIN=${PG15_BIN:-/usr/lib/postgresql/15/bin}
DATA=${PG15_DATA:-/tmp/inbox-pg15-$PORT}
if [ ! -x "$BIN/postgres" ]; then
  exit 3
fi
run_as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
if [ -f "$DATA/postmaster.pid" ]; then
  run_as_postgres "$BIN/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true
fi
rm -rf "$DATA"
mkdir -p "$DATA"
[ "$(id -u)" = 0 ] && chown postgres "$DATA"
run_as_postgres "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
run_as_postgres "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w \
  -o "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null
echo "jdbc:postgresql://127.0.0.1:$PORT/postgres?user=postgres"
