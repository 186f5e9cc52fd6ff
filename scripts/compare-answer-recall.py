#!/usr/bin/env python3
"""Answer recall and ranking of two kbidx builds on every split, side by side: what a change of
the hand-over or of the document costs the judge (docs/accuracy.md, "What the agent pays").

    python3 scripts/compare-answer-recall.py BASE_KBIDX NEW_KBIDX [--hand-over MODE] [--format json]

Per split, corpus and mode: R@10, R@30, MRR and answer recall at 2,000 / 5,000 / 10,000 tokens
(with the number of must sections whose phrase was handed over) for both builds, then the same
pooled over test and the held-out splits. Each build makes its own index of
../shared/corpora/nabledge-6-{large,fulltext} in a temporary directory. Run from the repository
root; needs ../shared.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

SPLITS = ["dev", "test", "holdout", "holdout2", "holdout3", "holdout4"]
CORPORA = ["large", "fulltext"]


def run(kbidx, index, corpus, split, extra):
    out = subprocess.run(
        [kbidx, "--config", "/dev/null", "eval", "--index", index,
         "--knowledge", f"../shared/corpora/nabledge-6-{corpus}", "--mode", "keywords,question",
         "--scoring", "default",
         "--format", "json", "--eval", f"tests/fixtures/eval/{split}/{corpus}.jsonl"] + extra,
        capture_output=True, text=True, check=True).stdout
    rows = {}
    for r in json.loads(out)["runs"]:
        m = r["metrics"]
        sections = m.get("answer_sections") or 0
        ar = m.get("answer_recall") or [0, 0, 0]
        rows[r["mode"]] = {
            "n": m["queries"], "r10": m["recall_at_10"], "r30": m["recall_at_30"], "mrr": m["mrr"],
            "sections": sections, "answered": [round(a * sections) for a in ar], "ar": ar,
        }
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--hand-over", default=None)
    ap.add_argument("--format", default="markdown", choices=["markdown", "json"])
    a = ap.parse_args()
    extra = ["--hand-over", a.hand_over] if a.hand_over else []
    tmp = tempfile.mkdtemp(prefix="kbidx-compare-")
    results = {}
    for name, kbidx in (("base", a.base), ("new", a.new)):
        for corpus in CORPORA:
            index = os.path.join(tmp, f"{name}-{corpus}.toon")
            subprocess.run([kbidx, "--config", "/dev/null", "build", "--knowledge",
                            f"../shared/corpora/nabledge-6-{corpus}", "--out", index, "--quiet"],
                           check=True)
            for split in SPLITS:
                results[(name, corpus, split)] = run(kbidx, index, corpus, split, extra)
                print(f"{name} {corpus} {split}", file=sys.stderr)
    if a.format == "json":
        json.dump({"|".join(k): v for k, v in results.items()}, sys.stdout, indent=1)
        return
    print("| split | corpus | mode | R@10 | R@30 | MRR | answer recall 2k / 5k / 10k (sections) |")
    print("|---|---|---|---|---|---|---|")
    pooled = {}
    for split in SPLITS:
        for corpus in CORPORA:
            for mode in ("keywords", "question"):
                b, n = results[("base", corpus, split)][mode], results[("new", corpus, split)][mode]
                f = lambda k: f"{b[k]:.3f} → {n[k]:.3f}"
                ans = " / ".join(f"{x}→{y}" for x, y in zip(b["answered"], n["answered"]))
                print(f"| {split} | {corpus} | {mode} | {f('r10')} | {f('r30')} | {f('mrr')} | "
                      f"{ans} of {n['sections']} |")
                if split != "dev":
                    p = pooled.setdefault(mode, {"sections": 0, "base": [0, 0, 0], "new": [0, 0, 0]})
                    p["sections"] += n["sections"]
                    for i in range(3):
                        p["base"][i] += b["answered"][i]
                        p["new"][i] += n["answered"][i]
    print()
    print("| pooled test + held-out | sections | answer recall 2k | 5k | 10k |")
    print("|---|--:|---|---|---|")
    for mode, p in pooled.items():
        s = p["sections"]
        cells = " | ".join(f"{p['base'][i] / s:.3f} → {p['new'][i] / s:.3f}" for i in range(3))
        print(f"| {mode} | {s} | {cells} |")


if __name__ == "__main__":
    main()
