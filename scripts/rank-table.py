#!/usr/bin/env python3
"""Top-of-list precision and answer recall on every split, both modes, both hand-overs
(docs/accuracy.md, "The current numbers"): one markdown row per split, corpus and mode with
R@10, R@30, MRR and answer recall at 2k / 5k / 10k tokens for `--hand-over start` and
`--hand-over adaptive`, then the rows pooled over the held-out splits (every split but dev,
counting must sections). Needs ../shared and a release build (cargo build --release).

    python3 scripts/rank-table.py [--kbidx target/release/kbidx] [--save DIR]
    python3 scripts/rank-table.py --load DIR [--base OTHER_DIR]

`--save DIR` keeps each eval's JSON (SPLIT-CORPUS-HANDOVER.json) so that a later run can be
printed again with `--load DIR` instead of running kbidx; `--base DIR` (saved JSON of another
binary) prints each cell as base → new, and the cells that lose more than 0.02 are listed
after the table. `--env NAME=VALUE` sets an environment variable for kbidx (experiments
behind a variable); `--eval-arg ARG` passes one more argument to `kbidx eval` (an option under
test: `--eval-arg=--keyword-coverage=0.6`). Indexes and the search cache go under
/tmp/kbidx-rank-table/.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPLITS = ["dev", "test", "holdout", "holdout2", "holdout3", "holdout4"]
CORPORA = ["large", "fulltext"]
MODES = ["keywords", "question"]
HAND_OVERS = ["start", "adaptive"]
WORK = "/tmp/kbidx-rank-table"


def run_eval(kbidx, env, corpus, split, hand_over, extra=()):
    out = subprocess.run(
        [kbidx, "--config", "/dev/null", "eval", "--index", f"{WORK}/{corpus}.toon",
         "--knowledge", f"../shared/corpora/nabledge-6-{corpus}", "--mode", ",".join(MODES),
         "--scoring", "default", "--format", "json", "--hand-over", hand_over,
         "--eval", f"tests/fixtures/eval/{split}/{corpus}.jsonl", *extra],
        capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out)


def cells(report):
    """Per mode: (cases, rank sums [r10, r30, rr], must sections with a phrase, answered [3])."""
    out = {}
    for run in report["runs"]:
        r10 = r30 = rr = 0.0
        phrases, answered = 0, [0, 0, 0]
        for case in run["cases"]:
            must = [e for e in case["ranks"] if e["grade"] == "must"]
            ranks = [e["rank"] for e in must if e.get("rank")]
            if must:
                r10 += sum(1 for r in ranks if r <= 10) / len(must)
                r30 += sum(1 for r in ranks if r <= 30) / len(must)
            else:
                r10 += 1
                r30 += 1
            rr += 1 / min(ranks) if ranks else 0.0
            for e in must:
                if e.get("answered"):
                    phrases += 1
                    for i, a in enumerate(e["answered"]):
                        answered[i] += bool(a)
        out[run["mode"]] = (len(run["cases"]), [r10, r30, rr], phrases, answered)
    return out


def collect(args, directory):
    """{(split, corpus, hand_over): cells}, run now (and saved) or loaded from `directory`."""
    data = {}
    env = dict(os.environ, KBIDX_CACHE_DIR=f"{WORK}/cache")
    for pair in args.env:
        name, _, value = pair.partition("=")
        env[name] = value
    if directory is None or args.save:
        os.makedirs(WORK, exist_ok=True)
        for corpus in CORPORA:
            subprocess.run([args.kbidx, "--config", "/dev/null", "build", "-q", "--knowledge",
                            f"../shared/corpora/nabledge-6-{corpus}", "--out", f"{WORK}/{corpus}.toon"],
                           check=True, capture_output=True, env=env)
    for split in SPLITS:
        for corpus in CORPORA:
            for hand_over in HAND_OVERS:
                name = f"{split}-{corpus}-{hand_over}.json"
                if directory is not None and not args.save:
                    with open(os.path.join(directory, name)) as f:
                        report = json.load(f)
                else:
                    report = run_eval(args.kbidx, env, corpus, split, hand_over, args.eval_arg)
                    if args.save:
                        os.makedirs(args.save, exist_ok=True)
                        with open(os.path.join(args.save, name), "w") as f:
                            json.dump(report, f)
                data[(split, corpus, hand_over)] = cells(report)
    return data


def figures(data, keys, mode):
    """R@10, R@30, MRR (means over cases), then start 2k/5k/10k and adaptive 2k/5k/10k."""
    cases, sums, phrases = 0, [0.0, 0.0, 0.0], 0
    answered = {h: [0, 0, 0] for h in HAND_OVERS}
    for split, corpus in keys:
        for h in HAND_OVERS:
            n, s, p, a = data[(split, corpus, h)][mode]
            if h == HAND_OVERS[0]:
                cases += n
                sums = [x + y for x, y in zip(sums, s)]
                phrases += p
            answered[h] = [x + y for x, y in zip(answered[h], a)]
    ranking = [x / cases for x in sums]
    recall = [x / phrases for h in HAND_OVERS for x in answered[h]]
    return cases, phrases, ranking + recall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kbidx", default=os.path.join(ROOT, "target/release/kbidx"))
    ap.add_argument("--save", help="keep each eval's JSON in this directory")
    ap.add_argument("--load", help="print the JSON saved in this directory instead of running kbidx")
    ap.add_argument("--base", help="saved JSON of the run to compare against")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--eval-arg", action="append", default=[], metavar="ARG",
                    help="one more argument for kbidx eval, e.g. --eval-arg=--keyword-coverage=0.6")
    ap.add_argument("--splits", default=",".join(SPLITS), help="comma-separated (default: all six)")
    args = ap.parse_args()
    args.kbidx = os.path.abspath(args.kbidx)
    SPLITS[:] = args.splits.split(",")
    for d in ("save", "load", "base"):
        if getattr(args, d):
            setattr(args, d, os.path.abspath(getattr(args, d)))
    os.chdir(ROOT)
    new = collect(args, args.load if args.load else args.save)
    base = collect(argparse.Namespace(save=None, env=[], eval_arg=[], kbidx=args.kbidx), args.base) if args.base else None
    groups = [([(s, c)], s, c) for s in SPLITS for c in CORPORA]
    if any(s != "dev" for s in SPLITS):
        groups += [([(s, c) for s in SPLITS if s != "dev"], "held-out", c) for c in CORPORA]
    print("| split | corpus | mode | n | must | R@10 | R@30 | MRR | `start` 2k / 5k / 10k | `adaptive` 2k / 5k / 10k |")
    print("|---|---|---|--:|--:|---|---|---|---|---|")
    losses = []
    for keys, split, corpus in groups:
        for mode in MODES:
            n, must, f = figures(new, keys, mode)
            b = figures(base, keys, mode)[2] if base else None
            cell = lambda i: f"{b[i]:.3f} → {f[i]:.3f}" if b and abs(b[i] - f[i]) >= 0.0005 else f"{f[i]:.3f}"
            print(f"| {split} | {corpus} | {mode} | {n} | {must} | {cell(0)} | {cell(1)} | {cell(2)} | "
                  f"{' / '.join(cell(i) for i in (3, 4, 5))} | {' / '.join(cell(i) for i in (6, 7, 8))} |")
            if b:
                names = ["R@10", "R@30", "MRR"] + [f"{h} {t}" for h in HAND_OVERS for t in ("2k", "5k", "10k")]
                for i, name in enumerate(names):
                    if f[i] < b[i] - 0.02:
                        losses.append(f"{split} {corpus} {mode} {name}: {b[i]:.3f} → {f[i]:.3f}")
    if base:
        print()
        print("losses over 0.02:" if losses else "no cell loses more than 0.02")
        for line in losses:
            print(f"- {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
