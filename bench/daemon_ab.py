#!/usr/bin/env python3
"""Compares the CPU per collection of two edgemond builds, side by side on one fixture board.

Both daemons run at the same interval, out of phase (the second starts half an interval after the
first): two daemons ticking together are not comparable, because the one that runs right after the
other finds the fixture's pages, dentries and shared library text warm (docs/performance.md,
"Comparing two builds"). CPU is the run time of every thread (/proc/PID/task/*/schedstat), read
every --window seconds; the report gives each build's median CPU per tick and the median and
quartiles of the per-window ratio second / first. Run it twice with the builds swapped.

Usage: bench/daemon_ab.py FIRST_BUILD SECOND_BUILD [--board jetson-orin-jp6] [--interval 0.2]
                          [--windows 12] [--window 5]
"""

import argparse
import os
import statistics
import subprocess
import tempfile
import time

from daemon_cost import cpu_ns  # This script's directory is on the path.

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--board", default="jetson-orin-jp6")
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("--windows", type=int, default=12)
    parser.add_argument("--window", type=float, default=5)
    args = parser.parse_args()

    root = os.path.join(REPO, "tests", "fixtures", "devices", args.board)
    builds = [args.first, args.second]
    with tempfile.TemporaryDirectory(prefix="edgemond-ab-") as workdir:
        config = os.path.join(workdir, "edgemond.json")
        with open(config, "w") as f:
            f.write("{}")
        procs = []
        for i, build in enumerate(builds):
            procs.append(subprocess.Popen(
                [os.path.join(build, "daemon", "edgemond"), "--config", config, "--root", root,
                 "--db", os.path.join(workdir, f"{i}.db"), "--listen", "127.0.0.1:0",
                 "--interval", str(args.interval)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            time.sleep(args.interval / 2)  # Out of phase.
        time.sleep(5)  # Both have scanned and settled.
        per_tick = []  # [first, second] microseconds per tick, one row per window.
        before = [cpu_ns(p.pid) for p in procs]
        start = time.monotonic()
        for _ in range(args.windows):
            time.sleep(args.window)
            after = [cpu_ns(p.pid) for p in procs]
            now = time.monotonic()
            ticks = (now - start) / args.interval
            per_tick.append([(b - a) / ticks / 1000 for a, b in zip(before, after)])
            before, start = after, now
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)

    ratios = [second / first for first, second in per_tick]
    quartiles = statistics.quantiles(ratios, n=4)
    print(f"{args.windows} windows of {args.window:g} s at {args.interval:g} s on {args.board}")
    for i, build in enumerate(builds):
        print(f"  {build}: median {statistics.median(row[i] for row in per_tick):.1f} µs per tick")
    print(f"  second / first: median {statistics.median(ratios):.3f} "
          f"(quartiles {quartiles[0]:.3f} to {quartiles[2]:.3f})")


if __name__ == "__main__":
    main()
