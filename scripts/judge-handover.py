#!/usr/bin/env python3
"""Judged hand-overs: what an LLM judge finds in whole sections, capped sections and passages.

    scripts/judge-handover.py packs [--kbidx target/release/kbidx] [--shared ../shared] OUT_DIR
    scripts/judge-handover.py score JUDGED_DIR

`packs` picks every fourth dev question of `tests/fixtures/eval/dev/{large,fulltext}.jsonl`
(starting with the second, 8 per set), runs `kbidx search QUESTION --with-content --max-chars
20000 --top 30` under three hand-overs and writes one pack per hand-over and set
(`OUT_DIR/{whole,cap,passages}-{large,fulltext}.txt`):

    whole     sections whole, in rank order, until the 20,000 characters run out
    cap       --max-chars-per-result 1000
    passages  --passages --max-chars-per-result 1000

Indexes are built into a temporary directory (`kbidx --config /dev/null build`). Each pack goes
to a separate judge (an LLM agent following `tests/fixtures/judge-runs/PROMPT.md`, which sees
its pack only, never the expected sections nor the other hand-overs) that writes
`JUDGED_DIR/<pack name>.jsonl`: one `{"id", "high", "partial", "answerable", "answer"}` per
question.

`score` prints, per hand-over and set: sections judged High, how many of them the question
set expects (must or acceptable), questions with a must section judged High, and how many
questions the judge could answer (yes / partly / no).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = ["large", "fulltext"]
HANDOVERS = {
    "whole": [],
    "cap": ["--max-chars-per-result", "1000"],
    "passages": ["--passages", "--max-chars-per-result", "1000"],
}


def questions(corpus):
    path = os.path.join(ROOT, "tests/fixtures/eval/dev", corpus + ".jsonl")
    with open(path, encoding="utf-8") as f:
        every = [json.loads(line) for line in f if line.strip()]
    return every[1::4][:8]


def packs(args):
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, KBIDX_CACHE_DIR=os.path.join(tmp, "cache"))
        for corpus in SETS:
            knowledge = os.path.join(args.shared, "corpora", "nabledge-6-" + corpus)
            index = os.path.join(tmp, corpus + ".toon")
            subprocess.run([args.kbidx, "--config", "/dev/null", "build", "--knowledge", knowledge,
                            "--out", index], check=True, env=env, capture_output=True)
            chosen = questions(corpus)
            for name, extra in HANDOVERS.items():
                parts = []
                for q in chosen:
                    run = subprocess.run(
                        [args.kbidx, "--config", "/dev/null", "search", "--index", index,
                         "--knowledge", knowledge, q["query"], "--with-content",
                         "--max-chars", "20000", "--top", "30"] + extra,
                        env=env, capture_output=True, text=True)
                    parts.append(f"==================== QUESTION {q['id']} ====================\n"
                                 f"{q['query']}\n"
                                 "-------------------- kbidx search output --------------------\n"
                                 f"{run.stdout}\n")
                with open(os.path.join(args.out, f"{name}-{corpus}.txt"), "w", encoding="utf-8") as f:
                    f.write("".join(parts))


def score(args):
    print("| hand-over | set | questions | judged High | High and expected | questions with a must section High | answerable yes / partly / no |")
    print("|---|---|--:|--:|--:|--:|---|")
    for name in HANDOVERS:
        for corpus in SETS:
            path = os.path.join(args.judged, f"{name}-{corpus}.jsonl")
            if not os.path.exists(path):
                continue
            expected = {}
            with open(os.path.join(ROOT, "tests/fixtures/eval/dev", corpus + ".jsonl"), encoding="utf-8") as f:
                for line in f:
                    q = json.loads(line)
                    expected[q["id"]] = {f"{e['file']}#{e['section']}": e["grade"] for e in q["expected"]}
            with open(path, encoding="utf-8") as f:
                judged = [json.loads(line) for line in f if line.strip()]
            high = sum(len(j["high"]) for j in judged)
            hit = sum(1 for j in judged for r in j["high"] if r in expected[j["id"]])
            must = sum(1 for j in judged
                       if any(expected[j["id"]].get(r) == "must" for r in j["high"]))
            answers = [sum(1 for j in judged if j["answerable"] == a) for a in ("yes", "partly", "no")]
            print(f"| {name} | {corpus} | {len(judged)} | {high} | {hit} | {must} | "
                  f"{answers[0]} / {answers[1]} / {answers[2]} |")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("packs")
    p.add_argument("--kbidx", default=os.path.join(ROOT, "target/release/kbidx"))
    p.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    p.add_argument("out")
    s = sub.add_parser("score")
    s.add_argument("judged")
    args = ap.parse_args()
    if args.command == "packs":
        packs(args)
    else:
        score(args)


if __name__ == "__main__":
    sys.exit(main())
