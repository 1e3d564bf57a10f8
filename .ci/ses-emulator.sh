#!/usr/bin/env bash
# Installs the SES v2 emulator the mailroom's SES tests use (npm package aws-ses-v2-local) into
# the cache directory the tests read (MAILROOM_SES_EMULATOR_DIR), installing node and npm with apt
# where they are missing. Idempotent. Without npm the SES tests skip themselves and say so.
set -euo pipefail
version=2.10.2
dir=${MAILROOM_SES_EMULATOR_DIR:-$HOME/.cache/mailroom-test/aws-ses-v2-local}
if ! command -v npm >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
  else
    echo "SKIP: npm is not installed and cannot be installed here; the mailroom SES tests will skip."
    exit 0
  fi
fi
if [ ! -f "$dir/node_modules/aws-ses-v2-local/dist/cli.js" ]; then
  mkdir -p "$dir"
  npm install --no-audit --no-fund --prefix "$dir" "aws-ses-v2-local@$version" >/dev/null
fi
echo "SES emulator aws-ses-v2-local $version in $dir"
