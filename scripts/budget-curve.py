#!/usr/bin/env python3
"""What a budget buys: for one split's helper-written first keywords (what an agent following
SKILL.md searches with first), the share of must sections whose answer phrase is in the printed
lean text of `kbidx search --keywords - --max-tokens B`, and the median characters printed, per
budget B (docs/output.md, "Choosing a budget").

    python3 scripts/budget-curve.py [--kbidx target/release/kbidx] [--split dev] [--budgets 2000,4000,6000]

A phrase counts when it is in the printed text, white space aside. Indexes are those of
scripts/rank-table.py (/tmp/kbidx-rank-table/); needs ../shared.
"""
import argparse
import json
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor


def squeeze(s):
    return re.sub(r"\s+", "", s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbidx", default="target/release/kbidx")
    ap.add_argument("--split", default="dev")
    ap.add_argument("--budgets", default="2000,3000,4000,5000,6000,8000")
    a = ap.parse_args()
    budgets = [int(b) for b in a.budgets.split(",")]
    print("| corpus | " + " | ".join(f"{b:,}" for b in budgets) + " |")
    print("|---|" + "---|" * len(budgets))
    for corpus in ("large", "fulltext"):
        path = f"tests/fixtures/eval/{a.split}/{corpus}.jsonl"
        cases = [json.loads(l) for l in open(path, encoding="utf-8")]

        def run(job):
            case, budget = job
            out = subprocess.run(
                [a.kbidx, "--config", "/dev/null", "search", "--index",
                 f"/tmp/kbidx-rank-table/{corpus}.toon", "--knowledge",
                 f"../shared/corpora/nabledge-6-{corpus}", "--keywords", "-",
                 "--max-tokens", str(budget)],
                input=json.dumps(case["keywords"], ensure_ascii=False),
                capture_output=True, text=True).stdout
            return (case["id"], budget), out

        with ThreadPoolExecutor(2) as ex:
            outs = dict(ex.map(run, [(c, b) for c in cases for b in budgets]))
        cells = []
        for b in budgets:
            phrases = found = 0
            chars = sorted(len(outs[(c["id"], b)]) for c in cases)
            for c in cases:
                printed = squeeze(outs[(c["id"], b)])
                for e in c["expected"]:
                    if e["grade"] == "must" and e.get("answer"):
                        phrases += 1
                        found += squeeze(e["answer"]) in printed
            cells.append(f"{found / phrases:.3f} ({chars[len(chars) // 2]:,})")
        print(f"| {corpus} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
