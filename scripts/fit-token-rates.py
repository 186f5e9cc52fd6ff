#!/usr/bin/env python3
"""Fits the token-estimate rates of src/output/tokens.rs.

Usage (the TSV comes from the ignored test, which counts with o200k_base):
  KBIDX_TOKENS_TSV=/tmp/tokens.tsv cargo test --lib tokens -- --ignored --nocapture
  python3 scripts/fit-token-rates.py /tmp/tokens.tsv [RATES]

Least squares on estimate/true per section (sections of 20+ tokens: shorter ones are
dominated by rounding), each corpus weighing the same. Prints the fitted rates, then per
corpus the whole-corpus ratio estimate/true and the per-section p5/p50/p95 of it. RATES
(comma-separated, in the order of CLASSES) are evaluated the same way beside the fit.
Pure Python: no numpy needed.
"""
import csv
import sys

CLASSES = ["han", "kana", "words", "letters", "digit_groups", "symbols", "breaks", "other"]
CORPORA = ["small", "large", "fulltext"]


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [
        (r["corpus"], [float(r[c]) for c in CLASSES], float(r["true"]))
        for r in rows
        if float(r["true"]) >= 20
    ]


def fit(data):
    """Minimises sum over sections of w * (x.r / t - 1)^2 (normal equations)."""
    sections = {}
    for corpus, _, _ in data:
        sections[corpus] = sections.get(corpus, 0) + 1
    n = len(CLASSES)
    a = [[0.0] * n for _ in range(n)]
    b = [0.0] * n
    for corpus, x, t in data:
        w = 1.0 / sections[corpus]
        xs = [v / t for v in x]
        for i in range(n):
            b[i] += w * xs[i]
            for j in range(n):
                a[i][j] += w * xs[i] * xs[j]
    m = [a[i] + [b[i]] for i in range(n)]
    for i in range(n):  # Gauss-Jordan with partial pivoting
        p = max(range(i, n), key=lambda k: abs(m[k][i]))
        m[i], m[p] = m[p], m[i]
        for k in range(n):
            if k != i:
                f = m[k][i] / m[i][i]
                m[k] = [x - f * y for x, y in zip(m[k], m[i])]
    return [m[i][n] / m[i][i] for i in range(n)]


def report(data, rates):
    for corpus in CORPORA:
        ratios, est, true = [], 0.0, 0.0
        for c, x, t in data:
            if c == corpus:
                e = sum(v * r for v, r in zip(x, rates))
                ratios.append(e / t)
                est += e
                true += t
        if not ratios:
            continue
        ratios.sort()
        q = lambda p: ratios[round((len(ratios) - 1) * p)]
        print(f"  {corpus:<9} ratio {est / true:.3f}  p5 {q(.05):.3f}  p50 {q(.5):.3f}  p95 {q(.95):.3f}")


def main():
    data = load(sys.argv[1])
    rates = fit(data)
    print("fitted: " + ", ".join(f"{c} {r:.3f}" for c, r in zip(CLASSES, rates)))
    report(data, rates)
    if len(sys.argv) > 2:
        given = [float(v) for v in sys.argv[2].split(",")]
        print("given:  " + ", ".join(f"{c} {r:.3f}" for c, r in zip(CLASSES, given)))
        report(data, given)


if __name__ == "__main__":
    main()
