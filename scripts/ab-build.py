#!/usr/bin/env python3
"""ab-build.py — two (or more) kbidx binaries' builds, timed alternately.

Usage: scripts/ab-build.py [-n RUNS] [--corpus DIR] KBIDX_A KBIDX_B [...]

Runs `KBIDX build --quiet --terms 0 --knowledge CORPUS --out TMP` for each
binary in turn, RUNS times (the order flips every round), so that a machine
whose speed drifts within minutes skews no binary more than another. Prints,
per binary, the median, 25th percentile and minimum wall time, the median CPU
time (user + system, from rusage) and a histogram by whole milliseconds, which
shows a bimodal distribution (e.g. threads sharing one CPU) that a mean hides.
CORPUS defaults to ../shared/corpora/nabledge-6-large. Release builds only.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=60)
    parser.add_argument(
        "--corpus",
        default=os.path.join(root, "..", "shared", "corpora", "nabledge-6-large"),
    )
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()
    if not os.path.isdir(args.corpus):
        print(f"ab-build: corpus directory not found: {args.corpus}", file=sys.stderr)
        return 2
    wall = {b: [] for b in args.binaries}
    cpu = {b: [] for b in args.binaries}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            order = args.binaries if i % 2 == 0 else args.binaries[::-1]
            for b in order:
                out = os.path.join(tmp, f"{args.binaries.index(b)}.toon")
                cmd = [b, "build", "--quiet", "--terms", "0",
                       "--knowledge", args.corpus, "--out", out]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(cmd, check=True)
                wall[b].append((time.perf_counter() - start) * 1000)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[b].append(((after.ru_utime - before.ru_utime)
                               + (after.ru_stime - before.ru_stime)) * 1000)
    for b in args.binaries:
        w = sorted(wall[b])
        hist = {}
        for x in w:
            hist[int(x)] = hist.get(int(x), 0) + 1
        print(f"{b}: median {statistics.median(w):.2f} ms, p25 {w[len(w) // 4]:.2f}, "
              f"min {w[0]:.2f}; CPU median {statistics.median(cpu[b]):.1f} ms")
        print("  ms:runs " + " ".join(f"{k}:{hist[k]}" for k in sorted(hist)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
