#!/usr/bin/env bash
# med.sh <runs> <cmd...> : runs cmd, prints each rate and the median
R=$1; shift
rates=()
for i in $(seq $R); do out=$("$@" 2>/dev/null | grep rate=); rates+=($(echo "$out" | sed 's/.*rate=\([0-9]*\).*/\1/')); done
sorted=($(printf '%s\n' "${rates[@]}" | sort -n))
echo "runs: ${rates[*]}  median: ${sorted[$((R/2))]}  :: $*"
