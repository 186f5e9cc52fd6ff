#!/usr/bin/env python3
"""Whether a search's results show that the answer depends on the kind of application
(docs/experiments.md, "Tried and dropped": a kinds line in the document).

    python3 scripts/kinds-table.py [--kbidx target/release/kbidx]

Runs the questions of tests/fixtures/kinds/{large,fulltext}.jsonl (10 ambiguous ones, whose
answer differs by kind and which name none, and 6 that name one kind; `kinds` lists the kinds
their must sections are for) and of the test split, keywords and question, as `kbidx search
--max-tokens 6000 --format json` (what SKILL.md runs). A kind is a folder under
`processing-pattern/`; per set and mode it counts the searches whose printed results (twins
folded into a result included) come from two or more kinds, and for the ambiguous questions
those whose results hold every kind their must sections are for. Indexes are those of
scripts/rank-table.py (/tmp/kbidx-rank-table/); needs ../shared.
"""
import argparse
import json
import re
import subprocess

SETS = [("tests/fixtures/kinds", "large"), ("tests/fixtures/kinds", "fulltext"),
        ("tests/fixtures/eval/test", "large"), ("tests/fixtures/eval/test", "fulltext")]
TWIN = re.compile(r"^\[([^\]#\s]+\.json)#", re.M)


def kinds_of(doc):
    """The processing-pattern folders of the printed results, in order of appearance."""
    seen = []
    for r in doc.get("results", []):
        files = [r["reference"].split("#")[0]] + TWIN.findall(r.get("content", ""))
        for f in files:
            parts = f.split("/")
            if len(parts) > 2 and parts[0] == "processing-pattern" and parts[1] not in seen:
                seen.append(parts[1])
    return seen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbidx", default="target/release/kbidx")
    a = ap.parse_args()
    print("| set | mode | questions | results span 2+ kinds | results hold every kind the answer needs |")
    print("|---|---|--:|--:|--:|")
    for folder, corpus in SETS:
        cases = [json.loads(l) for l in open(f"{folder}/{corpus}.jsonl", encoding="utf-8")]
        for mode in ("keywords", "question"):
            groups = {}
            for c in cases:
                args = [a.kbidx, "--config", "/dev/null", "search", "--index",
                        f"/tmp/kbidx-rank-table/{corpus}.toon", "--knowledge",
                        f"../shared/corpora/nabledge-6-{corpus}", "--format", "json",
                        "--max-tokens", "6000"]
                if mode == "keywords":
                    args += ["--keywords", "-"]
                    stdin = json.dumps(c["keywords"], ensure_ascii=False)
                else:
                    args += [c["query"]]
                    stdin = ""
                out = subprocess.run(args, input=stdin, capture_output=True, text=True).stdout
                got = kinds_of(json.loads(out))
                style = c["style"] if folder.endswith("kinds") else "all"
                g = groups.setdefault(style, [0, 0, 0])
                g[0] += 1
                g[1] += len(got) >= 2
                g[2] += set(c.get("kinds", [])) <= set(got)
            for style, (n, spans, holds) in sorted(groups.items()):
                name = f"{folder.split('/')[-1]} {corpus} {style}"
                held = holds if style == "ambiguous" else "–"
                print(f"| {name} | {mode} | {n} | {spans} | {held} |")


if __name__ == "__main__":
    main()
