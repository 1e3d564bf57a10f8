#!/usr/bin/env bash
# The README's first command as a user runs it: mailroom-app/target/mailroom/bin/mailroom (its small
# heap flags) in embedded mode on a fresh machine state (empty binaries cache, new data directory):
# it must start, answer `health` with the password from its data directory, and stop with 0 on
# SIGTERM. Also checks that the runnable jar carries one platform's PostgreSQL binaries only.
set -euo pipefail
cd "$(dirname "$0")/.."

dist=mailroom-app/target/mailroom
jar=$dist/lib/mailroom-app.jar
size=$(stat -c %s "$jar")
binaries=$(unzip -l "$jar" | grep -c 'postgres-.*\.txz$' || true)
echo "mailroom-app.jar: $((size / 1024 / 1024)) MiB, $binaries PostgreSQL binaries archive(s)"
if [ "$binaries" -ne 1 ] || [ "$size" -gt $((40 * 1024 * 1024)) ]; then
  echo "FAILED: the jar should carry exactly the build platform's binaries (and stay under 40 MiB)" >&2
  exit 1
fi
tar tzf mailroom-app/target/mailroom.tar.gz | grep -x 'mailroom/bin/mailroom' >/dev/null

work=$(mktemp -d)
port=$(.ci/free-port.sh 25590)
cleanup() {
  if [ -n "${pid:-}" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  rm -rf "$work"
}
trap cleanup EXIT
export XDG_CACHE_HOME=$work/cache MAILROOM_DATA_DIR=$work/data MAILROOM_EMBEDDED_PORT=$port
unset MAILROOM_DATABASE_URL
"$dist/bin/mailroom" >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 240); do
  grep -q '\[PG\] connected' "$work/err" && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; echo "FAILED: bin/mailroom exited" >&2; exit 1; }
  sleep 0.5
done
grep -q '\[PG\] connected' "$work/err" || { cat "$work/err" >&2; echo "FAILED: not connected" >&2; exit 1; }
"$dist/bin/mailroom" health >/dev/null
kill -TERM "$pid"
wait "$pid"
pid=
echo "bin/mailroom: embedded first start, health and SIGTERM OK"
