#!/usr/bin/env python3
"""Draw the sections that dev/test questions are written from (tests/fixtures/eval/).

A fixed seed makes the draw repeatable; the draw is made once, before any question is
written, and the question writers see only the section (never kbidx's ranking).

    scripts/sample-sections.py [--shared ../shared] > /tmp/sample.tsv
    scripts/sample-sections.py --holdout [--shared ../shared] > /tmp/holdout.tsv

`--holdout` is the second draw (session 10) for the `holdout` split: another seed, 30
sections each of large and fulltext, none that is already the source of a question in
tests/fixtures/eval or expected by ../shared/eval.

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
HOLDOUT_SEED = 20261125
HOLDOUT_COUNTS = {"nabledge-6-large": 30, "nabledge-6-fulltext": 30}
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
    ap.add_argument("--holdout", action="store_true", help="the second draw (see above)")
    args = ap.parse_args()
    rng = random.Random(HOLDOUT_SEED if args.holdout else SEED)
    used = set()
    if args.holdout:
        for name in sorted(glob.glob("tests/fixtures/eval/*/*.jsonl")):
            for line in open(name, encoding="utf-8"):
                if line.strip():
                    q = json.loads(line)
                    used.add(q.get("source"))
                    used.update(f"{e['file']}#{e['section']}" for e in q.get("expected", []))
        for name in sorted(glob.glob(os.path.join(args.shared, "eval", "*.jsonl"))):
            for line in open(name, encoding="utf-8"):
                if line.strip():
                    q = json.loads(line)
                    used.update(f"{e['file']}#{e['section']}" for e in q.get("expected", []) if isinstance(e, dict) and "file" in e)
    for corpus, n in (HOLDOUT_COUNTS if args.holdout else COUNTS).items():
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
