#!/usr/bin/env python3
"""Answer recall of the `start` and `adaptive` hand-overs on every split (docs/accuracy.md,
"What reaches the judge: answer recall"): one markdown row per split, corpus and mode, then the
pooled held-out rows. Needs ../shared and a release build (cargo build --release).

    python3 scripts/answer-recall-table.py [--kbidx target/release/kbidx]
"""
import argparse
import collections
import json
import os
import subprocess

SPLITS = ["dev", "test", "holdout", "holdout2", "holdout3", "holdout4"]
CORPORA = ["large", "fulltext"]


def answered(kbidx, index, corpus, split, hand_over):
    out = subprocess.run(
        [kbidx, "--config", "/dev/null", "eval", "--index", index,
         "--knowledge", f"../shared/corpora/nabledge-6-{corpus}", "--mode", "keywords,question",
         "--scoring", "default", "--format", "json", "--hand-over", hand_over,
         "--eval", f"tests/fixtures/eval/{split}/{corpus}.jsonl"],
        capture_output=True, text=True, check=True).stdout
    counts = {}
    for run in json.loads(out)["runs"]:
        n, total = [0, 0, 0, 0], 0
        for case in run["cases"]:
            for e in case["ranks"]:
                if e["grade"] != "must" or not e.get("answered"):
                    continue
                total += 1
                for i, a in enumerate(e["answered"]):
                    n[i] += a
                n[3] += bool(e["rank"])
        counts[run["mode"]] = (total, n)
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbidx", default="target/release/kbidx")
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    work = "/tmp/kbidx-answer-recall"
    os.makedirs(work, exist_ok=True)
    for corpus in CORPORA:
        subprocess.run([args.kbidx, "--config", "/dev/null", "build", "--knowledge",
                        f"../shared/corpora/nabledge-6-{corpus}", "--out", f"{work}/{corpus}.toon"],
                       check=True, capture_output=True)
    share = lambda n, t: " / ".join(f"{x / t:.3f}" for x in n[:3])
    pooled = collections.defaultdict(lambda: [0, [0] * 4, [0] * 4])
    print("| split | corpus | mode | sections | ranked (top 30) | `start` 2k / 5k / 10k | `adaptive` 2k / 5k / 10k |")
    print("|---|---|---|---|---|---|---|")
    for split in SPLITS:
        for corpus in CORPORA:
            index = f"{work}/{corpus}.toon"
            start = answered(args.kbidx, index, corpus, split, "start")
            adaptive = answered(args.kbidx, index, corpus, split, "adaptive")
            for mode in ["keywords", "question"]:
                total, s = start[mode]
                _, a = adaptive[mode]
                print(f"| {split} | {corpus} | {mode} | {total} | {s[3] / total:.3f} | {share(s, total)} | {share(a, total)} |")
                if split != "dev":
                    p = pooled[mode]
                    p[0] += total
                    for i in range(4):
                        p[1][i] += s[i]
                        p[2][i] += a[i]
    print()
    print("| pooled held-out | sections | `start` 2k / 5k / 10k | `adaptive` 2k / 5k / 10k |")
    print("|---|---|---|---|")
    for mode, (total, s, a) in pooled.items():
        print(f"| {mode} | {total} | {share(s, total)} | {share(a, total)} |")


if __name__ == "__main__":
    main()
