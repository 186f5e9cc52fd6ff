#!/usr/bin/env python3
"""Draw the sections that dev/test questions are written from (tests/fixtures/eval/).

A fixed seed makes the draw repeatable; the draw is made once, before any question is
written, and the question writers see only the section (never kbidx's ranking).

    scripts/sample-sections.py [--shared ../shared] > /tmp/sample.tsv
    scripts/sample-sections.py --draw holdout [--shared ../shared] > /tmp/holdout.tsv
    scripts/sample-sections.py --draw dev2 [--shared ../shared] > /tmp/dev2.tsv
    scripts/sample-sections.py --draw holdout2 [--shared ../shared] > /tmp/holdout2.tsv
    scripts/sample-sections.py --draw holdout3 [--shared ../shared] > /tmp/holdout3.tsv
    scripts/sample-sections.py --draw holdout4 [--shared ../shared] > /tmp/holdout4.tsv

The draws after the first, each with its own seed and in the order of DRAWS, leave out every
section that is the source of, or expected by, a question of an earlier draw
(tests/fixtures/eval, told apart by id: `lg-`/`ft-`/`kb-` first, `ho-` holdout, `lg2-`/`ft2-`
dev2, `h2-` holdout2, `h3-` holdout3) or of ../shared/eval. They are
`holdout` (30 sections each of large and fulltext and, drawn after them, 12 of knowledge/:
the `holdout` split), `dev2` (40 each of large and fulltext,
more `dev` questions: with 35–37 per corpus one question moves R@30 by 0.03),
`holdout2` (30 each of large and fulltext, id prefix `h2-`), drawn before the ranking methods
it judges were tuned, so that they are judged on questions no choice had seen, and `holdout3`
(the same sizes, `h3-`), drawn after holdout2 had judged two methods, for the methods that
followed, and `holdout4` (the same sizes, `h4-`), drawn when every earlier split had judged
L3 coverage, to judge it as a default. Each draw is repeatable as long as the questions of earlier draws are unchanged.

Prints `corpus<TAB>reference<TAB>title` rows. Sections shorter than 200 characters
(bare headings) are not drawn: nobody asks a question a heading answers. In
nabledge-6-fulltext, javadoc pages are drawn at the share the maintainers' own
questions expect them (2 of 128 expected sections), i.e. rarely.
"""
import argparse
import glob
import json
import os
import random

SEED = 20261124
COUNTS = {"nabledge-6-large": 75, "nabledge-6-fulltext": 72, "knowledge": 36}
# name: (seed, sections per corpus, id prefixes of the draw's questions), in draw order.
DRAWS = {
    "first": (SEED, COUNTS, ("lg-", "ft-", "kb-")),
    "holdout": (
        20261125,
        {"nabledge-6-large": 30, "nabledge-6-fulltext": 30, "knowledge": 12},
        ("ho-",),
    ),
    "dev2": (20261126, {"nabledge-6-large": 40, "nabledge-6-fulltext": 40}, ("lg2-", "ft2-")),
    "holdout2": (20261127, {"nabledge-6-large": 30, "nabledge-6-fulltext": 30}, ("h2-",)),
    "holdout3": (20261128, {"nabledge-6-large": 30, "nabledge-6-fulltext": 30}, ("h3-",)),
    "holdout4": (20261202, {"nabledge-6-large": 30, "nabledge-6-fulltext": 30}, ("h4-",)),
}
JAVADOC_SHARE = {"nabledge-6-fulltext": 4}


def sections(root):
    """Yields (reference, title, text) for every section of every knowledge file."""
    for path in sorted(glob.glob(os.path.join(root, "**", "*.json"), recursive=True)):
        rel = os.path.relpath(path, root)
        try:
            with open(path, encoding="utf-8-sig") as fh:
                doc = json.load(fh)
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict) or doc.get("no_knowledge_content"):
            continue
        secs = doc.get("sections")
        titles = {e.get("id"): e.get("title", "") for e in doc.get("index", []) if isinstance(e, dict)}
        if isinstance(secs, list):
            for s in secs:
                yield f"{rel}#{s.get('id')}", s.get("title", ""), s.get("content", "") or ""
        elif isinstance(secs, dict):
            for sid, body in secs.items():
                text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
                yield f"{rel}#{sid}", titles.get(sid, doc.get("title", "")), text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--draw", choices=sorted(DRAWS), default="first", help="which draw (see above)")
    args = ap.parse_args()
    seed, counts, _ = DRAWS[args.draw]
    names = list(DRAWS)
    earlier = tuple(p for name in names[: names.index(args.draw)] for p in DRAWS[name][2])
    rng = random.Random(seed)
    used = set()
    if earlier:
        for name in sorted(glob.glob("tests/fixtures/eval/*/*.jsonl")):
            for line in open(name, encoding="utf-8"):
                if line.strip() and json.loads(line)["id"].startswith(earlier):
                    q = json.loads(line)
                    used.add(q.get("source"))
                    used.update(f"{e['file']}#{e['section']}" for e in q.get("expected", []))
        for name in sorted(glob.glob(os.path.join(args.shared, "eval", "*.jsonl"))):
            for line in open(name, encoding="utf-8"):
                if line.strip():
                    q = json.loads(line)
                    used.update(f"{e['file']}#{e['section']}" for e in q.get("expected", []) if isinstance(e, dict) and "file" in e)
    for corpus, n in counts.items():
        root = "knowledge" if corpus == "knowledge" else os.path.join(args.shared, "corpora", corpus)
        pool = [s for s in sections(root) if len(s[2]) >= 200 and s[0] not in used]
        javadoc = [s for s in pool if s[0].startswith("javadoc/")]
        other = [s for s in pool if not s[0].startswith("javadoc/")]
        k = JAVADOC_SHARE.get(corpus, 0)
        drawn = rng.sample(other, n - k) + (rng.sample(javadoc, k) if k else [])
        for ref, title, _ in sorted(drawn):
            print(f"{corpus}\t{ref}\t{title}")


if __name__ == "__main__":
    main()
