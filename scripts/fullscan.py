#!/usr/bin/env python3
"""Baseline for scripts/bench-search.sh: a plain full-text scan in Python.

Reads every *.json knowledge file under CORPUS (what an agent without an index
would do), flattens each section's text (title, hints and content of the three
nabledge schemas), lowercases it, and scores each section by how many of the
query's whitespace-separated terms it contains. Prints the top 30 references.

Usage: fullscan.py CORPUS TERM [TERM ...]
"""
import json
import os
import sys


def texts(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from texts(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from texts(v)


def sections(rel, doc):
    title = doc.get("title", "") if isinstance(doc, dict) else ""
    secs = doc.get("sections") if isinstance(doc, dict) else None
    hints = {e.get("id"): e for e in doc.get("index", [])} if isinstance(doc, dict) and isinstance(doc.get("index"), list) else {}
    if isinstance(secs, dict):
        for sid, body in secs.items():
            entry = hints.get(sid, {})
            yield f"{rel}#{sid}", " ".join([title, *texts(entry), *texts(body)])
    elif isinstance(secs, list):
        for s in secs:
            if isinstance(s, dict):
                yield f"{rel}#{s.get('id')}", " ".join([title, *texts(s)])


def main():
    root, terms = sys.argv[1], [t.lower() for t in sys.argv[2:]]
    scored = []
    for dirpath, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".json"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            for ref, text in sections(rel, doc):
                low = text.lower()
                score = sum(1 for t in terms if t in low)
                if score:
                    scored.append((-score, ref))
    scored.sort()
    for _, ref in scored[:30]:
        print(ref)


if __name__ == "__main__":
    main()
