# Sourced by the benchmark scripts: starts a fresh local PostgreSQL 15 configured like the reference
# machine of docs/benchmarks.md (synchronous_commit=on, fsync=on, shared_buffers=1GB) on
# 127.0.0.1:$PORT, stops it when the sourcing script exits, and exports INBOX_TEST_DATABASE_URL.
# psql_to DATABASE [psql arguments...]: psql on that server, stopping at the first error.
BIN=${PG15_BIN:-/usr/lib/postgresql/15/bin}
DATA=${BENCH_PG_DATA:-/tmp/inbox-bench-pg15}
# Below 32768: Linux hands out 32768-60999 to outgoing connections, and one held 55440 here once.
PORT=${BENCH_PG_PORT:-25432}
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true
rm -rf "$DATA" && mkdir -p "$DATA"
if [ "$(id -u)" = 0 ]; then chown postgres "$DATA"; fi
as_postgres "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
as_postgres "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -o \
  "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=1GB -c synchronous_commit=on -c fsync=on" \
  start >/dev/null
trap 'as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true' EXIT
export INBOX_TEST_DATABASE_URL="jdbc:postgresql://127.0.0.1:$PORT/postgres?user=postgres"
psql_to() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres -d "$1" "${@:2}"; }
