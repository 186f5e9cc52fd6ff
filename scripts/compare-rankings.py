#!/usr/bin/env python3
"""Judges a ranking change on every question split at once, as docs/accuracy.md does by hand.

    scripts/compare-rankings.py --base OLD_KBIDX [--new NEW_KBIDX] [--new-env NAME=VALUE ...]
                                [--splits dev,test,holdout,holdout2,holdout3,holdout4,shared]
                                [--mode question] [--shared ../shared] [--format markdown|json]

Runs `kbidx eval --mode MODE --scoring default --format json` with both sides on each split
and corpus (tests/fixtures/eval/SPLIT/{large,fulltext,knowledge}.jsonl; `shared` is
../shared/eval/{large,fulltext,small}.jsonl). Each side gets its own, fresh search cache, and
indexes are built once into a temporary directory. `--new-env` sets environment variables
for the new side only, for experiments behind a variable. With `--new` omitted the base
binary is used, so `--new-env` alone compares one binary with and without a setting.

Prints, per set:
- R@10 / R@30 / MRR / R@20000chars before and after;
- each difference below -0.02 (the issue's keep rule: no set loses more than 0.02);
- how many questions moved up and down (the mean reciprocal rank of their must sections).

Then the same pooled over the held-out splits, every split but `dev`, counting must
sections: a 30-question set moves 0.033 per question, and the pooled numbers show whether
the gains and losses add up to anything. Exit 0, or 1 when some held-out set loses more
than 0.02. Needs ../shared for the nabledge corpora (their sets are skipped without it).
Paths given on the command line are relative to the working directory; `--shared` defaults
to the `shared` directory beside the repository.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPLITS = "dev,test,holdout,holdout2,holdout3,holdout4,shared"
METRICS = ("recall_at_10", "recall_at_30", "mrr", "recall_at_chars")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="the kbidx binary to compare against")
    ap.add_argument("--new", help="the changed kbidx binary (default: --base)")
    ap.add_argument("--new-env", action="append", default=[], metavar="NAME=VALUE",
                    help="environment for the new side only (repeatable)")
    ap.add_argument("--splits", default=SPLITS)
    ap.add_argument("--mode", default="question", choices=["question", "keywords", "terms"])
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--format", default="markdown", choices=["markdown", "json"])
    args = ap.parse_args()
    base = os.path.abspath(args.base)
    new = os.path.abspath(args.new or args.base)
    new_env = {}
    for pair in args.new_env:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            sys.exit(f"compare-rankings: --new-env needs NAME=VALUE, got {pair!r}")
        new_env[name] = value
    shared = os.path.abspath(args.shared)
    with tempfile.TemporaryDirectory(prefix="kbidx-compare-") as tmp:
        sides = {
            "base": (base, dict(os.environ, KBIDX_CACHE_DIR=os.path.join(tmp, "cache-base"))),
            "new": (new, dict(os.environ, KBIDX_CACHE_DIR=os.path.join(tmp, "cache-new"), **new_env)),
        }
        indexes = {}

        def index(name, knowledge):
            if name not in indexes:
                out = os.path.join(tmp, f"{name}.toon")
                built = subprocess.run([base, "--config", "/dev/null", "build", "-q", "--knowledge", knowledge,
                                        "--out", out], capture_output=True, text=True, cwd=tmp,
                                       env=sides["base"][1])
                if built.returncode != 0:
                    sys.exit(f"compare-rankings: build failed ({knowledge}): {built.stderr.strip()}")
                indexes[name] = out
            return indexes[name]

        rows = []
        for split in args.splits.split(","):
            for corpus in ("large", "fulltext", "knowledge"):
                if split == "shared":
                    name = "small" if corpus == "knowledge" else corpus
                    knowledge = os.path.join(shared, "corpora", f"nabledge-6-{name}")
                    questions = os.path.join(shared, "eval", f"{name}.jsonl")
                else:
                    name = corpus
                    knowledge = (os.path.join(ROOT, "knowledge") if corpus == "knowledge"
                                 else os.path.join(shared, "corpora", f"nabledge-6-{corpus}"))
                    questions = os.path.join(ROOT, "tests", "fixtures", "eval", split, f"{corpus}.jsonl")
                if not (os.path.isfile(questions) and os.path.isdir(knowledge)):
                    continue
                idx = index(name, knowledge)
                runs = {}
                for side, (binary, env) in sides.items():
                    out = subprocess.run(
                        [binary, "--config", "/dev/null", "eval", "--knowledge", knowledge, "--index", idx,
                         "--eval", questions, "--mode", args.mode, "--scoring", "default", "--format", "json"],
                        capture_output=True, text=True, env=env, cwd=tmp)
                    if out.returncode not in (0, 1):
                        sys.exit(f"compare-rankings: eval failed ({side}, {split}/{name}): {out.stderr.strip()}")
                    found = json.loads(out.stdout)["runs"]
                    runs[side] = found[0] if found else None
                if runs["base"] is None or runs["new"] is None:
                    continue  # no question of this mode in the set
                rows.append(compare(split, name, runs["base"], runs["new"]))
    report(rows, args.format)
    held_out = [r for r in rows if r["split"] != "dev"]
    sys.exit(1 if any(r["losses"] for r in held_out) else 0)


def mean_rr(case):
    must = [r["rank"] for r in case["ranks"] if r["grade"] == "must"]
    return sum(1 / r for r in must if r) / max(1, len(must))


def compare(split, corpus, before, after):
    b, a = before["metrics"], after["metrics"]
    old = {c["id"]: c for c in before["cases"]}
    up = down = 0
    for case in after["cases"]:
        delta = mean_rr(case) - mean_rr(old[case["id"]])
        up += delta > 1e-9
        down += delta < -1e-9
    musts = []  # (rank before, starts within the budget before, the same after)
    for case in after["cases"]:
        pairs = zip(old[case["id"]]["ranks"], case["ranks"])
        for x, y in pairs:
            if x["grade"] == "must":
                musts.append((x["rank"], within(x), y["rank"], within(y)))
    losses = [m for m in METRICS if (a.get(m) or 0) < (b.get(m) or 0) - 0.02 - 1e-9]
    return {"split": split, "corpus": corpus, "n": b["queries"], "before": {m: b.get(m) for m in METRICS},
            "after": {m: a.get(m) for m in METRICS}, "losses": losses, "up": up, "down": down,
            "musts": musts}


def within(rank):
    return rank.get("starts_at") is not None and rank["starts_at"] < 20000


def pooled(rows):
    out = {}
    for corpus in ("large", "fulltext", "knowledge", "small"):
        musts = [m for r in rows if r["corpus"] == corpus for m in r["musts"]]
        if not musts:
            continue
        n = len(musts)

        def share(test):
            return round(sum(1 for m in musts if test(m)) / n, 4)

        out[corpus] = {
            "must_sections": n,
            "before": {"recall_at_10": share(lambda m: m[0] and m[0] <= 10),
                       "recall_at_30": share(lambda m: m[0] and m[0] <= 30),
                       "recall_at_chars": share(lambda m: m[1])},
            "after": {"recall_at_10": share(lambda m: m[2] and m[2] <= 10),
                      "recall_at_30": share(lambda m: m[2] and m[2] <= 30),
                      "recall_at_chars": share(lambda m: m[3])},
        }
    return out


def report(rows, fmt):
    held_out = [r for r in rows if r["split"] != "dev"]
    if fmt == "json":
        print(json.dumps({"sets": [{k: v for k, v in r.items() if k != "musts"} for r in rows],
                          "pooled_held_out": pooled(held_out)}, indent=2))
        return

    def cells(m):
        return " / ".join("-" if m[k] is None else f"{m[k]:.3f}" for k in METRICS)

    print("| set | n | before: R@10 / R@30 / MRR / R@20000chars | after | losses > 0.02 | questions up / down |")
    print("|---|--:|---|---|---|---|")
    for r in rows:
        losses = ", ".join(r["losses"]) or "-"
        print(f"| {r['split']} {r['corpus']} | {r['n']} | {cells(r['before'])} | {cells(r['after'])} | "
              f"{losses} | {r['up']} / {r['down']} |")
    up = sum(r["up"] for r in held_out)
    down = sum(r["down"] for r in held_out)
    print(f"\nheld-out sets (all but dev): {up} questions up, {down} down; "
          f"{sum(1 for r in held_out if r['losses'])} of {len(held_out)} sets lose more than 0.02")
    print("\n| pooled held-out | must sections | before: R@10 / R@30 / R@20000chars | after |")
    print("|---|--:|---|---|")
    for corpus, p in pooled(held_out).items():
        f = lambda m: " / ".join(f"{m[k]:.3f}" for k in ("recall_at_10", "recall_at_30", "recall_at_chars"))
        print(f"| {corpus} | {p['must_sections']} | {f(p['before'])} | {f(p['after'])} |")


if __name__ == "__main__":
    main()
