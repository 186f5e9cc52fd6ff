#!/usr/bin/env python3
"""Share of `suggest` words that are whole words of the knowledge.

Reads `kbidx eval --second-search N --format json` documents (each case lists
its first search's suggestions as `suggested`) and the knowledge directory
they ran on, and prints, per document and mode, how many suggestions are
whole words, then the ones that are not.

A word (NFKC, lowercase) is whole when it is a hint (one white-space
separated element of an `index[].hints` entry) or when it occurs in some
string or key of the knowledge files (NFKC, lowercase) with neither end
glued to its neighbour. An end is glued when the word's edge character and
the neighbour are both identifier characters (a-z 0-9 _), both katakana
(with ー), or both hiragana in a word of kana only (a kanji word ends in
okurigana before a particle: 後ろに); when the neighbour is `-` with an
identifier character on both sides (web-inf; a `.` separates: java.util);
or, at the start, when an identifier follows `%` or `\\` (a format directive, an escape). Kanji edges
are never glued: kanji compounds are cut anywhere.
The same definition is checked by tests/cli/suggest.rs.

    scripts/suggest-words.py --knowledge DIR EVAL.json...
"""
import argparse
import json
import pathlib
import unicodedata


def norm(s):
    return unicodedata.normalize("NFKC", s).lower()


def ident(c):
    return c.isascii() and (c.isalnum() or c == "_")


def kata(c):
    return "\u30a1" <= c <= "\u30fa" or c == "\u30fc"


def hira(c):
    return "\u3041" <= c <= "\u309f"


def same(a, b, kana_word):
    return (
        (ident(a) and ident(b))
        or (kata(a) and kata(b))
        or (kana_word and hira(a) and hira(b))
    )


def bounded(text, i, w):
    j = i + len(w)
    before = text[i - 1] if i > 0 else " "
    after = text[j] if j < len(text) else " "
    kana_word = all(kata(c) or hira(c) for c in w)
    if same(before, w[0], kana_word) or same(w[-1], after, kana_word):
        return False
    if ident(w[0]) and (before in "%\\"):
        return False
    if before == "-" and i > 1 and ident(text[i - 2]) and ident(w[0]):
        return False
    if after == "-" and j + 1 < len(text) and ident(text[j + 1]) and ident(w[-1]):
        return False
    return True


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)


def load(knowledge):
    hints, texts = set(), []
    for path in sorted(pathlib.Path(knowledge).rglob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for entry in doc.get("index", []) if isinstance(doc, dict) else []:
            for h in entry.get("hints", []):
                hints.update(norm(h).split())
        texts.extend(norm(s) for s in strings(doc))
    return hints, "\n".join(texts)


def whole(word, hints, text):
    w = norm(word)
    if w in hints:
        return True
    i = text.find(w)
    while i >= 0:
        if bounded(text, i, w):
            return True
        i = text.find(w, i + 1)
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--knowledge", required=True)
    ap.add_argument("eval", nargs="+")
    args = ap.parse_args()
    hints, text = load(args.knowledge)
    memo = {}
    for path in args.eval:
        doc = json.load(open(path, encoding="utf-8"))
        for run in doc["runs"]:
            words = [w for case in run["cases"] for w in case.get("suggested", [])]
            bad = []
            for w in words:
                if w not in memo:
                    memo[w] = whole(w, hints, text)
                if not memo[w]:
                    bad.append(w)
            share = 1 - len(bad) / len(words) if words else 1.0
            print(f"{path} {run['mode']} {run['method']}: {len(words) - len(bad)} of {len(words)} whole ({share:.3f})")
            if bad:
                print("  not whole:", " ".join(sorted(set(bad))))


if __name__ == "__main__":
    main()
