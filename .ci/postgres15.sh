#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster on 127.0.0.1:$PORT for the second CI run.
#   .ci/postgres15.sh start   -> prints its JDBC URL; exit 3 when PostgreSQL 15 is not installed
#   .ci/postgres15.sh stop
# As root it runs the server as the postgres user (PostgreSQL refuses to run as root).
set -euo pipefail
PORT=${PORT:-25315} # below the ephemeral ports: see free-port.sh
BIN=${PG15_BIN:-/usr/lib/postgresql/15/bin}
DATA=${PG15_DATA:-/tmp/inbox-pg15-$PORT}

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-start}" in
  stop)
    [ -f "$DATA/postmaster.pid" ] && as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true
    exit 0
    ;;
  start) ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac

[ -x "$BIN/postgres" ] || exit 3
# Take the next free port if the wanted one is busy (an embedded test server may hold it).
PORT=$("$(dirname "$0")/free-port.sh" "$PORT")
if [ -f "$DATA/postmaster.pid" ]; then
  as_postgres "$BIN/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true
fi
rm -rf "$DATA"
mkdir -p "$DATA"
if [ "$(id -u)" = 0 ]; then chown postgres "$DATA"; fi
as_postgres "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
as_postgres "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -o \
  "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
  start >/dev/null
echo "jdbc:postgresql://127.0.0.1:$PORT/postgres?user=postgres"
