#!/usr/bin/env bash
# Runs the benchmarks against a fresh local PostgreSQL 15 configured like the reference machine of
# docs/benchmarks.md (synchronous_commit=on, fsync=on, shared_buffers=1GB), then stops it.
#   benchmarks/run-pg15.sh [benchmark arguments...]      e.g. --runs 3 produce consume
# Against any other server: INBOX_TEST_DATABASE_URL=jdbc:postgresql://... java -jar benchmarks/target/benchmarks.jar ...
set -euo pipefail
cd "$(dirname "$0")/.."

./mvnw -q -B -Pbenchmarks package -DskipTests

. benchmarks/pg15-cluster.sh
java -jar benchmarks/target/benchmarks.jar "$@"
