#!/usr/bin/env python3
"""Calibration of `confidence` on every split (docs/accuracy.md, "Suggestions and confidence"):
per split, corpus and mode, each level's queries (share), then the share of them with a must
section in the top 3 / top 30; `both` pools the two corpora. Needs ../shared and a release build.

    python3 scripts/confidence-table.py [--kbidx target/release/kbidx]
"""
import argparse
import json
import os
import subprocess

LEVELS = ["high", "medium", "low"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbidx", default="target/release/kbidx")
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    print("| split | corpus | mode | queries | high | medium | low |")
    print("|---|---|---|--:|---|---|---|")
    for split in ["dev", "test", "holdout", "holdout2", "holdout3", "holdout4"]:
        counts = {}
        for corpus in ["large", "fulltext"]:
            out = subprocess.run(
                [args.kbidx, "--config", "/dev/null", "eval", "--eval",
                 f"tests/fixtures/eval/{split}/{corpus}.jsonl", "--knowledge",
                 f"../shared/corpora/nabledge-6-{corpus}", "--mode", "keywords,question",
                 "--scoring", "default", "--format", "json"],
                capture_output=True, text=True, check=True).stdout
            for run in json.loads(out)["runs"]:
                for c in run["metrics"]["calibration"]:
                    n = c["queries"]
                    counts[(corpus, run["mode"], c["level"])] = (
                        n, round(c["must_in_top_3"] * n), round(c["must_in_top_30"] * n))
        for mode in ["keywords", "question"]:
            for corpus in ["large", "fulltext", "both"]:
                corpora = ["large", "fulltext"] if corpus == "both" else [corpus]
                cells = {}
                for level in LEVELS:
                    n, t3, t30 = (sum(counts[(c, mode, level)][i] for c in corpora) for i in range(3))
                    cells[level] = (n, t3, t30)
                total = sum(v[0] for v in cells.values())
                row = [f"{n} ({n / total:.2f}) {t3 / n if n else 0:.2f} / {t30 / n if n else 0:.2f}"
                       for n, t3, t30 in (cells[l] for l in LEVELS)]
                print(f"| {split} | {corpus} | {mode} | {total} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
