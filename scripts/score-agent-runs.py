#!/usr/bin/env python3
"""Scores recorded agent-mode runs (docs/accuracy.md, "Agent mode").

    scripts/score-agent-runs.py [--kbidx target/release/kbidx] [--shared ../shared]
                                [--config NAME ...] [--runs SUFFIX] [--format markdown|json]

Reads tests/fixtures/agent-runs/{dev,test,holdout3}-{large,fulltext}SUFFIX.jsonl (what agents following SKILL.md
searched for; PROMPT.md there is how they were run), writes each run's first and second keyword
searches as query sets into a temporary directory, and runs `kbidx eval --mode keywords` on them
against tests/fixtures/eval's expected sections, once per configuration (CONFIGS below: the
agents' recorded keywords replayed with each hand-over or result-shaping option; the agents
themselves ran only the default, `off`). Prints, per set x search x configuration, n, R@10,
R@30, MRR, R@20000chars, the lower bound R@20000chars-whole (must sections handed over
whole) and answer recall at 2,000 / 5,000 / 10,000 tokens (must sections that carry an answer
phrase), then per set the union R@30 of both searches and how many sections the agents judged
High and how many of those are expected (from the agents' own run, not the replays).
Run from the repository root.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# name -> extra `kbidx eval` flags. `off` is what the agents ran.
CONFIGS = {
    'off': [],
    'cap1000': ['--chars-per-result', '1000'],
    'passages': ['--passages'],
    'group': ['--group-by', 'file'],
    'collapse': ['--collapse'],
}

ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
ap.add_argument('--kbidx', default='target/release/kbidx')
ap.add_argument('--shared', default='../shared')
ap.add_argument('--config', action='append', choices=list(CONFIGS),
                help='configurations to replay (repeatable; default: all)')
ap.add_argument('--runs', default='', metavar='SUFFIX',
                help="which records: '' (the first runs) or e.g. '.adaptive', '.signals'")
ap.add_argument('--format', choices=['markdown', 'json'], default='markdown')
args = ap.parse_args()
B = os.path.abspath(args.kbidx)
SHARED = os.path.abspath(args.shared)
configs = args.config or list(CONFIGS)
TMP = tempfile.mkdtemp(prefix='kbidx-agent-runs-')
env = dict(os.environ, KBIDX_CACHE_DIR=f'{TMP}/cache')


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


indexes = {}
for corpus in ['large', 'fulltext']:
    indexes[corpus] = f'{TMP}/{corpus}.toon'
    subprocess.run([B, '--config', '/dev/null', 'build', '-q', '--knowledge',
                    f'{SHARED}/corpora/nabledge-6-{corpus}', '--out', indexes[corpus]],
                   check=True, cwd=TMP, env=env)

rows = []      # (set, search, config, n, metrics)
summaries = []  # per set: union R@30 and High judgements
for split in ['dev', 'test', 'holdout3']:
    for corpus in ['large', 'fulltext']:
        runs_file = f'tests/fixtures/agent-runs/{split}-{corpus}{args.runs}.jsonl'
        if not os.path.exists(runs_file):
            continue
        name = f'{split}/{corpus}'
        recs = {r['id']: r for r in load(runs_file)}
        gold = {q['id']: q for q in load(f'tests/fixtures/eval/{split}/{corpus}.jsonl')}
        cases = {}
        for which in ['first', 'second']:
            path = f'{TMP}/{split}-{corpus}.{which}.eval.jsonl'
            with open(path, 'w') as f:
                for i, r in recs.items():
                    # Second search: the agent's second keywords, else its first.
                    kw = r.get(which) or r['first']
                    kw = {k: [x for x in kw.get(k, []) if x] for k in ['l1', 'l2', 'l3']}
                    f.write(json.dumps({'id': i, 'query': gold[i]['query'], 'keywords': kw,
                                        'expected': gold[i]['expected']},
                                       ensure_ascii=False) + '\n')
            for config in configs:
                out = subprocess.run(
                    [B, '--config', '/dev/null', 'eval', '--knowledge',
                     f'{SHARED}/corpora/nabledge-6-{corpus}', '--index', indexes[corpus],
                     '--eval', path, '--mode', 'keywords', '--scoring', 'default',
                     '--format', 'json', *CONFIGS[config]],
                    capture_output=True, text=True, env=env)
                if out.returncode != 0:
                    sys.exit(f'kbidx eval failed ({name} {which} {config}): {out.stderr}')
                run = json.loads(out.stdout)['runs'][0]
                rows.append((name, which, config, len(recs), run['metrics']))
                if config == 'off':
                    cases[which] = {x['id']: x for x in run['cases']}
        must = found = high = high_expected = seconds = 0
        for i, r in recs.items():
            seconds += r.get('second') is not None
            expected = {e['file'] + '#' + e['section'] for e in gold[i]['expected']}
            for h in r.get('high', []):
                high += 1
                high_expected += h in expected
            if 'off' not in configs:
                continue
            for a, b in zip(cases['first'][i]['ranks'], cases['second'][i]['ranks']):
                if a['grade'] != 'must':
                    continue
                must += 1
                found += any(x['rank'] is not None and x['rank'] <= 30 for x in (a, b))
        summaries.append({'set': name, 'n': len(recs), 'second_searches': seconds,
                          'union_recall_at_30': round(found / max(1, must), 4)
                          if 'off' in configs else None,
                          'high': high, 'high_expected': high_expected})

if args.format == 'json':
    print(json.dumps({'rows': [{'set': s, 'search': w, 'config': c, 'n': n, 'metrics': m}
                               for s, w, c, n, m in rows],
                      'sets': summaries}, ensure_ascii=False, indent=2))
    sys.exit(0)
print('| set | search | configuration | n | R@10 | R@30 | MRR | R@20000chars | whole '
      '| answer recall 2k / 5k / 10k |')
print('|---|---|---|--:|--:|--:|--:|--:|--:|---|')
for s, w, c, n, m in rows:
    answer = ' / '.join(f'{x:.2f}' for x in m.get('answer_recall') or []) or '–'
    print(f"| {s} | {w} | {c} | {n} | {m['recall_at_10']:.2f} | {m['recall_at_30']:.2f} | "
          f"{m['mrr']:.2f} | {m['recall_at_chars']:.2f} | {m['recall_whole_at_chars']:.2f} "
          f"| {answer} |")
print()
for x in summaries:
    union = '' if x['union_recall_at_30'] is None else f" union R@30={x['union_recall_at_30']:.2f}"
    print(f"{x['set']}: n={x['n']} second searches={x['second_searches']}{union} "
          f"high={x['high']} of which expected={x['high_expected']}")
