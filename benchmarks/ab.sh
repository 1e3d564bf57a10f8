#!/usr/bin/env bash
# Compares two commits side by side: builds each in a worktree of its own, starts one fresh
# PostgreSQL 15 (as run-pg15.sh does), then runs the same benchmark arguments for A, B, A, B, ...
# in turn, so both variants see the same machine over the same minutes. Results are appended to
# OUT (the tables only; the log goes to stdout) with each run's label and the load average
# before it.
#   benchmarks/ab.sh [--rounds N] [--order ABBA...] [--statement-log DIR] [--out FILE] A_REF B_REF
#                    [benchmark arguments...]
#   e.g. benchmarks/ab.sh --rounds 3 7ca69c3 main --runs 1 --scale 0.3 produce consume-plain
# Each variant runs in its own worktree, so the mailroom scenarios use its own jar and distribution.
# --order runs the variants in that sequence instead of N rounds of A, B (ABBAAB evens out a drift
# of the machine). --statement-log DIR has the server log every statement with its duration and
# keeps one log per variant run in DIR (DIR/<i>-<A|B>.log): the drain rates of a 2-core machine
# swing by 10-20 % from run to run, the claim statement's own time much less
# (benchmarks/claim-log.py reads those logs).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=3
ORDER=
STATEMENT_LOG=
OUT=ab-results.md
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --order) ORDER=$2; shift 2 ;;
    --statement-log) STATEMENT_LOG=$(realpath -m "$2"); shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { sed -n 2,15p "$0"; exit 2; }
[ -n "$ORDER" ] || ORDER=$(printf 'AB%.0s' $(seq 1 "$ROUNDS"))
case "$ORDER" in *[!AB]*) echo "--order takes only A and B: $ORDER" >&2; exit 2 ;; esac
OUT=$(realpath -m "$OUT")
A_REF=$1 B_REF=$2
shift 2
WORK=${AB_WORK:-/tmp/inbox-ab}
mkdir -p "$WORK"

build() { # REF -> prints the worktree path holding its build
  local sha dir
  sha=$(git rev-parse --short=10 "$1^{commit}")
  dir=$WORK/$sha
  if [ ! -f "$dir/benchmarks/target/benchmarks.jar" ]; then
    git worktree remove --force "$dir" >/dev/null 2>&1 || rm -rf "$dir"
    git worktree add --quiet --detach "$dir" "$sha" >/dev/null
    (cd "$dir" && ./mvnw -q -B -Pbenchmarks package -DskipTests -Dspotless.check.skip=true) >&2 \
      || { echo "build of $1 failed" >&2; return 1; }
  fi
  echo "$dir"
}
A_DIR=$(build "$A_REF") || exit 1
B_DIR=$(build "$B_REF") || exit 1

. benchmarks/pg15-cluster.sh
drop_bench_databases() {
  "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qAt -c \
    "SELECT datname FROM pg_database WHERE datname LIKE 'bench%'" |
    while read -r db; do "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -q \
      -c "DROP DATABASE \"$db\" WITH (FORCE)"; done
}

if [ -n "$STATEMENT_LOG" ]; then
  mkdir -p "$STATEMENT_LOG"
  "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qAt \
    -c "ALTER SYSTEM SET log_min_duration_statement = 0" \
    -c "ALTER SYSTEM SET log_line_prefix = '%m %p %a '" -c "SELECT pg_reload_conf()" >/dev/null
fi

i=0
for variant in $(echo "$ORDER" | grep -o .); do
  i=$((i + 1))
  if [ $variant = A ]; then dir=$A_DIR ref=$A_REF; else dir=$B_DIR ref=$B_REF; fi
  drop_bench_databases
  [ -z "$STATEMENT_LOG" ] || : > "$DATA/server.log"
  printf '\n## Run %s, %s = %s (%s), load average before: %s\n' "$i" "$variant" "$ref" \
    "$(git -C "$dir" rev-parse --short HEAD)" "$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
  (cd "$dir" && java -jar benchmarks/target/benchmarks.jar --out "$OUT" "$@")
  [ -z "$STATEMENT_LOG" ] || cp "$DATA/server.log" "$STATEMENT_LOG/$i-$variant.log"
done
