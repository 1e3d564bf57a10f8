#!/usr/bin/env python3
"""Reads the statement logs of `benchmarks/ab.sh --statement-log DIR` (files DIR/<i>-<A|B>.log, one
per variant run of a consume scenario) and compares A with B drain by drain, from the server's
clock rather than the harness's:

- messages/s of each drain from its first claim's start to its last claim's end (the workers'
  start and stop left out), median over the drains of the cell;
- the claim statement's own time and the time from one claim's start to the next on the same
  connection (claim, handler, commit, the client's share), medians over every claim of the cell.

A drain starts at the harness's VACUUM ANALYZE of the backlog; its size is read from the INSERT
that filled it, its batch size from the claims' first parameter, its inbox and workers from the
processor connections that claimed (application_name inbox:<name>:processor). Usage: benchmarks/claim-log.py DIR/*.log
"""
import collections
import re
import statistics
import sys
from datetime import datetime

LINE = re.compile(
    r"^(\S+ \S+) \S+ (\d+) (.*?) LOG:  duration: ([\d.]+) ms  (?:(\w+) \S+?|statement): (.*)")
PARAMS = re.compile(r"DETAIL:  parameters: \$1 = '(\d+)'")
BACKLOG = re.compile(r"generate_series\(1, (\d+)\)")


def millis(stamp):
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f").timestamp() * 1000


def drains(path):
    """The drains of one log: backlog size, batch, the claims per connection."""
    found, current, backlog, last_claim = [], None, None, None
    for line in open(path, errors="replace"):
        if last_claim is not None and "DETAIL:  parameters:" in line:
            match = PARAMS.search(line)
            if match and current is not None:
                # The largest limit: a worker sharing an ordered inbox's heads claims its share.
                current["batch"] = max(current["batch"] or 0, int(match.group(1)))
            last_claim = None
            continue
        match = LINE.match(line)
        if not match:
            continue
        stamp, pid, app, duration, phase, text = match.groups()
        if text.startswith("INSERT") and BACKLOG.search(text):
            backlog = int(BACKLOG.search(text).group(1))
        elif text.startswith("VACUUM ANALYZE"):
            current = {"messages": backlog, "batch": None, "claims": collections.defaultdict(list)}
            found.append(current)
        elif current is not None and app.endswith(":processor") and phase == "execute":
            end, took = millis(stamp), float(duration)
            if text.startswith("-- The claim"):
                current["inbox"] = app.split(":")[1]
                current["claims"][pid].append((end - took, end, took))
                last_claim = pid
    return [d for d in found if d["claims"] and d["messages"] and d["batch"]]


def main(paths):
    rate = collections.defaultdict(lambda: collections.defaultdict(list))
    claim = collections.defaultdict(lambda: collections.defaultdict(list))
    cycle = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in paths:
        variant = re.search(r"-([AB])\.log$", path).group(1)
        for drain in drains(path):
            cell = (drain["inbox"], drain["batch"], len(drain["claims"]))
            starts = [c[0] for cs in drain["claims"].values() for c in cs]
            ends = [c[1] for cs in drain["claims"].values() for c in cs]
            rate[cell][variant].append(drain["messages"] / (max(ends) - min(starts)) * 1000)
            for cs in drain["claims"].values():
                claim[cell][variant].extend(c[2] for c in cs)
                cycle[cell][variant].extend(b[0] - a[0] for a, b in zip(cs, cs[1:]))
    print("| inbox | batch | workers | drains A / B | messages/s A | B | B / A | claim ms A | B "
          "| B / A | claim to claim ms A | B |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for cell in sorted(rate):
        med = statistics.median
        if not rate[cell]["A"] or not rate[cell]["B"]:
            continue
        ra, rb = med(rate[cell]["A"]), med(rate[cell]["B"])
        ca, cb = med(claim[cell]["A"]), med(claim[cell]["B"])
        print(f"| {cell[0]} | {cell[1]:,} | {cell[2]} | {len(rate[cell]['A'])} / {len(rate[cell]['B'])} "
              f"| {ra:,.0f} | {rb:,.0f} | {rb / ra:.2f} | {ca:.2f} | {cb:.2f} | {cb / ca:.2f} "
              f"| {med(cycle[cell]['A']):.2f} | {med(cycle[cell]['B']):.2f} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
