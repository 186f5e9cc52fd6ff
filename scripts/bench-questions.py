#!/usr/bin/env python3
"""Warm `kbidx search` latency over every question of a corpus's eval sets.

    scripts/bench-questions.py [--kbidx target/release/kbidx] [--baseline OTHER_KBIDX]
                               [--corpus fulltext] [--runs 5]

Builds the corpus's index into a temporary directory, warms the search cache with one search,
then times each question (`kbidx search --index … --knowledge … --format json QUESTION`,
process start and output included) `--runs` times and keeps its median. Timed from Python
(`subprocess.run`, which adds Python's own fork and exec, about 1–3 ms, to every run), or with
`--hyperfine` by one `hyperfine -N` run per question (as scripts/bench-search.sh times one
question; each command goes through env(1) to get its own cache directory, the same small
cost for every variant). Prints the median and
95th percentile over the questions' medians, with the body stage on (the default) and with
`--no-body` (and with `--baseline`, another kbidx binary with its own search cache, e.g. the
previous commit's build), measured in the same run, in alternation. Questions: `../shared/eval/<corpus>.jsonl`
and `tests/fixtures/eval/*/<corpus>.jsonl`.
"""
import argparse
import glob
import json
import os
import shlex
import statistics
import subprocess
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbidx", default="target/release/kbidx")
    ap.add_argument("--corpus", default="fulltext")
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline", help="another kbidx binary to time in the same run")
    ap.add_argument("--hyperfine", action="store_true", help="time each question with hyperfine -N")
    args = ap.parse_args()
    kbidx = os.path.abspath(args.kbidx)
    corpus = os.path.abspath(os.path.join(args.shared, "corpora", f"nabledge-6-{args.corpus}"))
    sets = [os.path.join(args.shared, "eval", f"{args.corpus}.jsonl")]
    sets += sorted(glob.glob(f"tests/fixtures/eval/*/{args.corpus}.jsonl"))
    questions = [json.loads(l)["query"] for f in sets if os.path.exists(f) for l in open(f) if l.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, KBIDX_CACHE_DIR=os.path.join(tmp, "cache"))
        index = os.path.join(tmp, "index.toon")
        subprocess.run([kbidx, "build", "-q", "--knowledge", corpus, "--out", index], check=True, env=env, cwd=tmp)
        search = ["search", "--index", index, "--knowledge", corpus, "--format", "json"]
        # name -> (command, environment); each binary keeps its own search cache.
        variants = {
            "body stage": ([kbidx] + search, env),
            "--no-body": ([kbidx] + search + ["--no-body"], env),
        }
        if args.baseline:
            baseline_env = dict(env, KBIDX_CACHE_DIR=os.path.join(tmp, "cache-baseline"))
            variants["baseline"] = ([os.path.abspath(args.baseline)] + search, baseline_env)
        for command, env_ in variants.values():  # warm the cache (word and body entries)
            subprocess.run(command + [questions[0]], stdout=subprocess.DEVNULL, env=env_, cwd=tmp)
        medians = {name: [] for name in variants}
        for q in questions:
            if args.hyperfine:
                out = os.path.join(tmp, "hyperfine.json")
                command = ["hyperfine", "-N", "--style", "none", "--warmup", "1", "--runs", str(args.runs), "--export-json", out]
                for name, (argv, env_) in variants.items():
                    cache = env_["KBIDX_CACHE_DIR"]
                    command += [f"--command-name={name}", " ".join(shlex.quote(a) for a in ["env", f"KBIDX_CACHE_DIR={cache}"] + argv + [q])]
                subprocess.run(command, stdout=subprocess.DEVNULL, cwd=tmp, check=True)
                for result in json.load(open(out))["results"]:
                    medians[result["command"]].append(result["median"])
                continue
            times = {name: [] for name in variants}
            for _ in range(args.runs):
                for name, (command, env_) in variants.items():
                    t = time.perf_counter()
                    subprocess.run(command + [q], stdout=subprocess.DEVNULL, env=env_, cwd=tmp)
                    times[name].append(time.perf_counter() - t)
            for name in variants:
                medians[name].append(statistics.median(times[name]))
    print(f"nabledge-6-{args.corpus}: {len(questions)} questions, {args.runs} runs each (median per question)")
    for name, m in medians.items():
        m.sort()
        p95 = m[min(len(m) - 1, int(round(0.95 * (len(m) - 1))))]
        print(f"  {name:11} median {statistics.median(m) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, max {m[-1] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
