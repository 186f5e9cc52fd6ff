#!/usr/bin/env python3
"""Draw the sections that dev/test questions are written from (tests/fixtures/eval/).

A fixed seed makes the draw repeatable; the draw is made once, before any question is
written, and the question writers see only the section (never kbidx's ranking).

    scripts/sample-sections.py [--shared ../shared] > /tmp/sample.tsv

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
    args = ap.parse_args()
    rng = random.Random(SEED)
    for corpus, n in COUNTS.items():
        root = "knowledge" if corpus == "knowledge" else os.path.join(args.shared, "corpora", corpus)
        pool = [s for s in sections(root) if len(s[2]) >= 200]
        javadoc = [s for s in pool if s[0].startswith("javadoc/")]
        other = [s for s in pool if not s[0].startswith("javadoc/")]
        k = JAVADOC_SHARE.get(corpus, 0)
        drawn = rng.sample(other, n - k) + (rng.sample(javadoc, k) if k else [])
        for ref, title, _ in sorted(drawn):
            print(f"{corpus}\t{ref}\t{title}")


if __name__ == "__main__":
    main()
