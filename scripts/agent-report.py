#!/usr/bin/env python3
"""Scores an agent run set up by scripts/agent-harness.sh: what the agent paid and what it found.

    scripts/agent-report.py DIR EVAL.jsonl [--format markdown|json]

DIR holds the wrapper's log (every kbidx call: its arguments, the question it served, what it
printed) and out.jsonl (the agent's judgements: id, high, partial, answer). EVAL.jsonl is the
question set with expected sections and answer phrases (tests/fixtures/eval/SPLIT/CORPUS.jsonl).
Per question: kbidx calls (searches, reads), characters and estimated tokens of kbidx output read
(kbidx's own estimate, src/output/tokens.rs, ported below), judged-High recall (must sections the
agent judged High), answer recall (must sections with an answer phrase whose phrase is in the
output of the question's last search), the ranks of the must sections in the question's first
search (replayed with DIR's own kbidx and index as `--format json --top 30`: reciprocal rank of
the first, R@10, R@30), and the medians and sums over the run. The judged answers'
fact coverage needs a judge that sees the expected phrases and the answers: see
docs/accuracy.md, "What the agent pays".
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys

RATES = [1000, 650, 550, 150, 2000, 350, 850, 800]


def is_han(c):
    o = ord(c)
    return (0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF
            or 0x20000 <= o <= 0x3FFFF or c in '々〆')


def is_kana(c):
    o = ord(c)
    return 0x3041 <= o <= 0x309F or 0x30A0 <= o <= 0x30FF or 0xFF66 <= o <= 0xFF9F or 0x31F0 <= o <= 0x31FF


def estimate(text):
    """kbidx's token estimate (src/output/tokens.rs)."""
    n = [0] * 8
    in_word = in_break = False
    digits = 0
    for ch in text:
        letter = ch.isascii() and ch.isalpha()
        if letter and not in_word:
            n[2] += 1
        in_word = letter
        if ch.isascii() and ch.isdigit():
            if digits % 3 == 0:
                n[4] += 1
            digits += 1
        else:
            digits = 0
        newline = ch == '\n'
        if newline and not in_break:
            n[6] += 1
        in_break = newline or (in_break and ch.isspace())
        if letter:
            n[3] += 1
        elif ch.isascii() and ch.isdigit():
            pass
        elif ch.isascii() and not ch.isalnum() and not ch.isspace() and ch.isprintable():
            n[5] += 1
        elif ch.isspace():
            pass
        elif is_han(ch):
            n[0] += 1
        elif is_kana(ch):
            n[1] += 1
        else:
            n[7] += 1
    return -(-sum(a * b for a, b in zip(n, RATES)) // 1000)


def squeeze(s):
    return ''.join(s.split()).lower()


# Flags that shape the document, not the ranking: left out when a first search is replayed.
VALUED = {'--format', '--max-tokens', '--max-chars', '--top', '--hand-over',
          '--max-tokens-per-result', '--max-chars-per-result'}
BARE = {'--with-content', '--explain', '--suggest'}


def first_search_ranks(run_dir, args):
    """The ranks (1-based, top 30) of a search's results, replayed without its document flags."""
    wrapper = open(os.path.join(run_dir, 'bin', 'kbidx'), encoding='utf-8').read()
    knowledge = re.search(r'--knowledge "([^"]+)"', wrapper).group(1)
    kept, skip = [], False
    for arg in args[1:]:
        if skip:
            skip = False
        elif arg in VALUED:
            skip = True
        elif arg in BARE or arg.split('=', 1)[0] in VALUED:
            continue
        else:
            kept.append(arg)
    if '-' in kept:
        return None  # keywords from stdin were not logged
    out = subprocess.run([os.path.join(run_dir, 'real', 'kbidx'), '--config', '/dev/null', 'search',
                          '--index', os.path.join(run_dir, 'index.toon'), '--knowledge', knowledge,
                          *kept, '--format', 'json', '--top', '30'],
                         capture_output=True, text=True).stdout
    try:
        results = json.loads(out)['results']
    except (ValueError, KeyError):
        return None
    return {r['reference']: i + 1 for i, r in enumerate(results)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('eval')
    ap.add_argument('--format', default='markdown', choices=['markdown', 'json'])
    a = ap.parse_args()
    cases = {}
    for line in open(a.eval, encoding='utf-8'):
        c = json.loads(line)
        cases[c['id']] = c
    out = {}
    path = os.path.join(a.dir, 'out.jsonl')
    if os.path.exists(path):
        for line in open(path, encoding='utf-8'):
            line = line.strip()
            if line:
                r = json.loads(line)
                out[r['id']] = r
    calls = {}
    for args_file in sorted(glob.glob(os.path.join(a.dir, 'log', '*.args'))):
        stem = args_file[:-5]
        q = open(stem + '.q', encoding='utf-8').read().strip() if os.path.exists(stem + '.q') else ''
        args = open(args_file, encoding='utf-8').read().split('\n')
        text = open(stem + '.out', encoding='utf-8', errors='replace').read() if os.path.exists(stem + '.out') else ''
        calls.setdefault(q, []).append((args[0], text, [x for x in args if x != '']))
    rows = []
    for qid, case in cases.items():
        if qid not in calls and qid not in out:
            continue
        mine = [(sub, text) for sub, text, _ in calls.get(qid, [])]
        first = next((args for sub, _, args in calls.get(qid, []) if sub == 'search'), None)
        ranks = first_search_ranks(a.dir, first) if first else None
        must = [f"{e['file']}#{e['section']}" for e in case['expected'] if e['grade'] == 'must']
        phrases = {f"{e['file']}#{e['section']}": e['answer'] for e in case['expected']
                   if e['grade'] == 'must' and e.get('answer')}
        searches = [t for s, t in mine if s == 'search']
        last = searches[-1] if searches else ''
        seen = squeeze(''.join(t for _, t in mine))
        high = set(out.get(qid, {}).get('high', []))
        rows.append({
            'id': qid,
            'searches': len(searches),
            'reads': sum(1 for s, _ in mine if s == 'read'),
            'chars': sum(len(t) for _, t in mine),
            'tokens': sum(estimate(t) for _, t in mine),
            'high_recall': (sum(1 for m in must if m in high) / len(must)) if must else None,
            'answer_recall_last_search': (sum(1 for p in phrases.values() if squeeze(p) in squeeze(last)) / len(phrases)) if phrases else None,
            'answer_recall_read': (sum(1 for p in phrases.values() if squeeze(p) in seen) / len(phrases)) if phrases else None,
            'first_search_rr': (1 / min((ranks[m] for m in must if m in ranks), default=float('inf'))) if ranks is not None and must else None,
            'first_search_r10': (sum(1 for m in must if ranks.get(m, 99) <= 10) / len(must)) if ranks is not None and must else None,
            'first_search_r30': (sum(1 for m in must if m in ranks) / len(must)) if ranks is not None and must else None,
        })
    def med(k):
        v = [r[k] for r in rows if r[k] is not None]
        return statistics.median(v) if v else None
    def mean(k):
        v = [r[k] for r in rows if r[k] is not None]
        return round(sum(v) / len(v), 3) if v else None
    summary = {
        'questions': len(rows),
        'median_chars': med('chars'), 'median_tokens': med('tokens'),
        'mean_chars': mean('chars'), 'mean_tokens': mean('tokens'),
        'calls_per_question': round(sum(r['searches'] + r['reads'] for r in rows) / max(len(rows), 1), 2),
        'searches_per_question': mean('searches'), 'reads_per_question': mean('reads'),
        'high_recall': mean('high_recall'),
        'answer_recall_last_search': mean('answer_recall_last_search'),
        'answer_recall_read': mean('answer_recall_read'),
        'first_search_mrr': mean('first_search_rr'),
        'first_search_r10': mean('first_search_r10'),
        'first_search_r30': mean('first_search_r30'),
    }
    if a.format == 'json':
        json.dump({'summary': summary, 'questions': rows}, sys.stdout, ensure_ascii=False, indent=1)
        print()
        return
    print('| id | searches | reads | chars | tokens | High recall | answer recall (last search) | answer recall (all read) | first search: RR / R@10 |')
    print('|---|--:|--:|--:|--:|--:|--:|--:|--:|')
    for r in rows:
        f = lambda x: '–' if x is None else (f'{x:.2f}' if isinstance(x, float) else str(x))
        print(f"| {r['id']} | {r['searches']} | {r['reads']} | {r['chars']} | {r['tokens']} | {f(r['high_recall'])} | {f(r['answer_recall_last_search'])} | {f(r['answer_recall_read'])} | {f(r['first_search_rr'])} / {f(r['first_search_r10'])} |")
    print()
    print(json.dumps(summary, ensure_ascii=False))


if __name__ == '__main__':
    main()
