#!/usr/bin/env bash
# ab.sh <runs> <script> <dirA> <dirB> args... : alternates A and B runs, prints medians
R=$1; S=$2; A=$3; B=$4; shift 4
ra=(); rb=()
for i in $(seq $R); do
  ra+=($($S $A "$@" 2>/dev/null | sed -n 's/.*rate=\([0-9]*\).*/\1/p'))
  rb+=($($S $B "$@" 2>/dev/null | sed -n 's/.*rate=\([0-9]*\).*/\1/p'))
done
ma=$(printf '%s\n' "${ra[@]}" | sort -n | sed -n "$((R/2+1))p"); mb=$(printf '%s\n' "${rb[@]}" | sort -n | sed -n "$((R/2+1))p")
echo "$S $* | A=$A: ${ra[*]} median $ma | B=$B: ${rb[*]} median $mb"
