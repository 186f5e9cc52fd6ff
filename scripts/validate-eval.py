#!/usr/bin/env python3
"""Checks the repository's question sets (tests/fixtures/eval/{dev,test,holdout,holdout2,holdout3,holdout4}/*.jsonl).

    scripts/validate-eval.py [--shared ../shared] [FILE.jsonl ...]

Every line must be a JSON object with id, corpus, query and a non-empty `expected` list
whose entries name an existing file and section (grade must|acceptable, at least one
must). ids are unique across all files, and no source section is in two splits.
Corpora under ../shared are checked only when ../shared exists (a fresh clone has none).
Exit 0 when every file is valid, 1 otherwise.
"""
import argparse
import glob
import json
import os
import sys

ROOTS = {"knowledge": "knowledge"}


def section_ids(path):
    with open(path, encoding="utf-8-sig") as fh:
        doc = json.load(fh)
    secs = doc.get("sections")
    if isinstance(secs, list):
        return {s.get("id") for s in secs if isinstance(s, dict)}
    if isinstance(secs, dict):
        return set(secs)
    return set()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or sorted(glob.glob("tests/fixtures/eval/*/*.jsonl"))
    errors, ids, split_of_source, cache, n = [], set(), {}, {}, 0
    for name in files:
        split = os.path.basename(os.path.dirname(name))
        with open(name, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                where = f"{name}:{lineno}"
                try:
                    q = json.loads(line)
                except ValueError as e:
                    errors.append(f"{where}: not JSON: {e}")
                    continue
                n += 1
                for key in ("id", "corpus", "query", "expected"):
                    if not q.get(key):
                        errors.append(f"{where}: missing {key}")
                if q.get("id") in ids:
                    errors.append(f"{where}: duplicate id {q.get('id')}")
                ids.add(q.get("id"))
                src = (q.get("corpus"), q.get("source"))
                if src[1] and split_of_source.setdefault(src, split) != split:
                    errors.append(f"{where}: source {src[1]} is in both {split_of_source[src]} and {split}")
                corpus = q.get("corpus", "")
                root = ROOTS.get(corpus) or os.path.join(args.shared, "corpora", corpus)
                exp = q.get("expected") or []
                if not any(e.get("grade") == "must" for e in exp):
                    errors.append(f"{where}: no must section")
                for e in exp:
                    if e.get("grade") not in ("must", "acceptable"):
                        errors.append(f"{where}: bad grade {e.get('grade')!r}")
                    if not os.path.isdir(root):
                        continue
                    path = os.path.join(root, e.get("file", ""))
                    if path not in cache:
                        cache[path] = section_ids(path) if os.path.isfile(path) else None
                    if cache[path] is None:
                        errors.append(f"{where}: no file {e.get('file')}")
                    elif e.get("section") not in cache[path]:
                        errors.append(f"{where}: no section {e.get('file')}#{e.get('section')}")
    for err in errors:
        print(err, file=sys.stderr)
    print(f"{n} questions in {len(files)} files, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
