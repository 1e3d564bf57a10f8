#!/usr/bin/env bash
# prints total CPU ticks (user+sys) of the PG15 cluster incl. exited children
PM=$(head -1 /tmp/perfpg/data/postmaster.pid)
t=$(awk '{print $14+$15+$16+$17}' /proc/$PM/stat)
for c in $(pgrep -P $PM); do t=$((t + $(awk '{print $14+$15}' /proc/$c/stat 2>/dev/null || echo 0))); done
echo $t
