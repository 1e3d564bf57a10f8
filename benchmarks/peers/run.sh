#!/usr/bin/env bash
# The peer comparison of docs/benchmarks.md ("Peers"): ours, pgmq, PgQ, pg-boss and graphile-worker on
# one fresh PostgreSQL 15 (durable commits, loopback only), the same two workloads each, interleaved by
# peer, with the load average before and after every measurement. Writes one Markdown table.
#
#   benchmarks/peers/run.sh [--scale F] [--out FILE] [--skip-build]
#
#   --scale F     messages per measurement = 50,000 x F (default 1: ~3 minutes on a quiet 2-core
#                 machine, each measurement after an untimed warm-up of as many messages; a
#                 timeout bounds every measurement)
#   --out FILE    where the table goes (default benchmarks/peers/results-DATE.md); also printed
#   --skip-build  use the benchmarks jar already built (benchmarks/target/benchmarks.jar)
# Environment:
#   PGMQ_SQL=/path/to/pgmq.sql  pgmq's extension script (pgmq-extension/sql/pgmq.sql of a pgmq release;
#                               it is not in any package registry): installed as the extension pgmq
#                               (needs root to write PostgreSQL's extension directory). Without it
#                               pgmq is skipped and the table says why
#   BENCH_PG_PORT (25432), BENCH_PG_DATA (/tmp/inbox-bench-peers): the cluster, see pg15-cluster.sh
#   PEERS_TIMEOUT (300): seconds one measurement may take before it is stopped and reported failed
# Needs: PostgreSQL 15 server binaries, Java 17, Node.js >= 20 with npm; PgQ is installed from Debian
# (postgresql-15-pgq3) when missing and the script runs as root, graphile-worker and pg-boss from npm
# into benchmarks/peers/node (versions pinned by its package-lock.json).
set -euo pipefail
cd "$(dirname "$0")/../.."

scale=1
out=""
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale=${2:?--scale needs a number}; shift 2 ;;
    --out) out=${2:?--out needs a file}; shift 2 ;;
    --skip-build) build=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
done
if ! [[ $scale =~ ^[0-9]*\.?[0-9]+$ ]]; then
  echo "--scale must be a positive number, got: $scale" >&2
  exit 2
fi
messages=$(awk -v s="$scale" 'BEGIN { n = int(50000 * s / 1000) * 1000; print (n < 1000 ? 1000 : n) }')
timeout_s=${PEERS_TIMEOUT:-300}
out=${out:-benchmarks/peers/results-$(date -u +%F).md}
logs=$(mktemp -d /tmp/inbox-peers-logs.XXXXXX)
batches=(100 1000)

for tool in java node npm psql awk timeout; do
  command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 1; }
done
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
  echo "Node.js >= 20 is required, found $(node --version)" >&2
  exit 1
fi

# --- the peers' software ---------------------------------------------------------------------------
declare -A skipped=()
sharedir=$("${PG15_BIN:-/usr/lib/postgresql/15/bin}/pg_config" --sharedir)
if [ ! -f "$sharedir/extension/pgq.control" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing PgQ (postgresql-15-pgq3) from Debian" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15-pgq3 >"$logs/apt.log" 2>&1 \
      || skipped[pgq]="apt-get install postgresql-15-pgq3 failed (see $logs/apt.log)"
  else
    skipped[pgq]="PgQ is not installed: run apt-get install postgresql-15-pgq3 as root"
  fi
fi
. benchmarks/peers/pgmq.sh
if [ -z "${PGMQ_SQL:-}" ]; then
  skipped[pgmq]="no registry ships pgmq's SQL: set PGMQ_SQL to pgmq's extension script to include it"
elif [ ! -r "$PGMQ_SQL" ]; then
  echo "PGMQ_SQL=$PGMQ_SQL is not a readable file" >&2
  exit 1
elif ! why=$(pgmq_install "$PGMQ_SQL" "$sharedir"); then
  skipped[pgmq]=$why
fi
echo "installing graphile-worker and pg-boss from npm (benchmarks/peers/node)" >&2
(cd benchmarks/peers/node && npm ci --no-audit --no-fund --silent)
if [ "$build" = 1 ]; then
  echo "building the benchmarks jar" >&2
  ./mvnw -q -B -Pbenchmarks package -DskipTests
fi

# --- one fresh PostgreSQL 15, stopped when this script exits ------------------------------------------
export BENCH_PG_DATA=${BENCH_PG_DATA:-/tmp/inbox-bench-peers}
. benchmarks/pg15-cluster.sh
for db in peers_pgmq peers_pgq peers_pgboss peers_graphile peers_graphile_queues; do
  psql_to postgres -c "CREATE DATABASE $db"
done
[ -n "${skipped[pgq]:-}" ] || psql_to peers_pgq -c "CREATE EXTENSION pgq"
[ -n "${skipped[pgmq]:-}" ] || psql_to peers_pgmq -c "CREATE EXTENSION pgmq VERSION 'peers'"

# --- measurements ----------------------------------------------------------------------------------
declare -A result=()
load1() { cut -d' ' -f1 /proc/loadavg; }
grouped() { echo "$1" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta'; } # 12345 -> 12,345

# measure PEER WORKLOAD BATCH: one measurement, its rate and the load average before and after.
measure() {
  local peer=$1 workload=$2 batch=$3 log="$logs/$1-$2-$3.log" before after output rate
  if [ -n "${skipped[$peer]:-}" ]; then
    result[$peer,$workload,$batch]="skipped"
    return
  fi
  before=$(load1)
  echo "$(date -u +%T) $peer $workload batch $batch, $messages messages (load $before)" >&2
  case "$peer" in
    ours|ours-ordered)
      local scenario="peer-$workload"
      [ "$peer" = ours-ordered ] && scenario=peer-consume-ordered
      output=$(timeout "$timeout_s" java -jar benchmarks/target/benchmarks.jar --batch "$batch" \
        --messages "$messages" "$scenario" 2>"$log" | tee -a "$log" | awk -F'|' '/^\| ours/ { print $6 }') || true
      ;;
    *)
      local database=peers_${peer//-/_}
      database=${database/graphile_worker/graphile}
      database=${database/pg_boss/pgboss}
      output=$(PEERS_DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/$database" timeout "$timeout_s" \
        node benchmarks/peers/node/peers.mjs "$peer" "$workload" "$batch" "$messages" 2>"$log" \
        | tee -a "$log" | sed -n 's/.*"rate":\([0-9]*\).*/\1/p') || true
      ;;
  esac
  after=$(load1)
  rate=$(echo "$output" | tr -d ' ')
  if [[ $rate =~ ^[0-9]+$ ]]; then
    result[$peer,$workload,$batch]="$(grouped "$rate") (load $before → $after)"
  else
    result[$peer,$workload,$batch]="failed, see $log"
  fi
  echo "  → ${result[$peer,$workload,$batch]}" >&2
}

peers=(ours pgmq pgq pg-boss graphile-worker ours-ordered graphile-worker-queues)
started_load=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u '+%F %H:%M UTC')
for workload in produce consume; do
  for batch in "${batches[@]}"; do
    for peer in "${peers[@]}"; do
      case "$peer" in ours-ordered|graphile-worker-queues) [ "$workload" = consume ] || continue ;; esac
      measure "$peer" "$workload" "$batch"
    done
  done
done
ended_load=$(cut -d' ' -f1-3 /proc/loadavg)

# --- the table ----------------------------------------------------------------------------------------
version() { node -p "require('./benchmarks/peers/node/node_modules/$1/package.json').version"; }
{
  echo "### Peers, $started"
  echo
  echo "- Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo) RAM; 1-min/5-min/15-min load average $started_load at the start, $ended_load at the end"
  echo "- Server: $(psql_to postgres -At -c "SELECT 'PostgreSQL ' || current_setting('server_version') || ', synchronous_commit=' || current_setting('synchronous_commit') || ', fsync=' || current_setting('fsync') || ', shared_buffers=' || current_setting('shared_buffers')"), on 127.0.0.1"
  echo "- Peers: PgQ $( [ -n "${skipped[pgq]:-}" ] && echo "skipped (${skipped[pgq]})" || psql_to peers_pgq -At -c "SELECT extversion FROM pg_extension WHERE extname = 'pgq'"), pg-boss $(version pg-boss), graphile-worker $(version graphile-worker) on Node.js $(node --version), pgmq $( [ -n "${skipped[pgmq]:-}" ] && echo "skipped (${skipped[pgmq]})" || echo "from $(basename "$PGMQ_SQL")"); ours on $(java -version 2>&1 | head -1)"
  echo "- $(grouped "$messages") messages per measurement (scale $scale), ~100-byte JSON payloads, one producer or one worker, one timed run after an untimed warm-up of as many; messages/s and the 1-min load average before → after"
  echo
  echo "| peer | produce, 100 per call | produce, 1,000 per call | consume + ack, batch 100 | consume + ack, batch 1,000 |"
  echo "|---|---|---|---|---|"
  for peer in "${peers[@]}"; do
    printf '| %s |' "$peer"
    for workload in produce consume; do
      for batch in "${batches[@]}"; do
        printf ' %s |' "${result[$peer,$workload,$batch]:-–}"
      done
    done
    echo
  done
} | tee "$out"
echo "(logs in $logs)" >&2
