#!/usr/bin/env python3
"""Scores recorded agent-mode runs (docs/accuracy.md, "Agent mode").

    scripts/score-agent-runs.py [--kbidx target/release/kbidx] [--shared ../shared]

Reads tests/fixtures/agent-runs/{dev,test}-{large,fulltext}.jsonl (what agents following SKILL.md
searched for; PROMPT.md there is how they were run), writes each run's first and second keyword
searches as query sets into a temporary directory, and runs `kbidx eval --mode keywords` on them
against tests/fixtures/eval's expected sections. Prints R@10/R@30/MRR/R@20000chars per search,
the union R@30 of both searches, and how many sections the agents judged High and how many of
those are expected.
"""
import argparse,collections,json,os,subprocess,sys,tempfile
ap=argparse.ArgumentParser(); ap.add_argument('--kbidx',default='target/release/kbidx'); ap.add_argument('--shared',default='../shared')
args=ap.parse_args()
B=os.path.abspath(args.kbidx); SHARED=os.path.abspath(args.shared)
TMP=tempfile.mkdtemp()
def load(p): return [json.loads(l) for l in open(p) if l.strip()]
rows=[]
indexes={}
for c in ['large','fulltext']:
    indexes[c]=f'{TMP}/{c}.toon'
    subprocess.run([B,'--config','/dev/null','build','-q','--knowledge',f'{SHARED}/corpora/nabledge-6-{c}','--out',indexes[c]],check=True,cwd=TMP)
for sp in ['dev','test']:
  for c in ['large','fulltext']:
    out=f'tests/fixtures/agent-runs/{sp}-{c}.jsonl'
    if not os.path.exists(out): continue
    recs={}
    for r in load(out): recs[r['id']]=r
    gold={q['id']:q for q in load(f'tests/fixtures/eval/{sp}/{c}.jsonl')}
    for which in ['first','second']:
        path=f'{TMP}/{sp}-{c}.{which}.eval.jsonl'
        with open(path,'w') as f:
            for i,r in recs.items():
                kw=r.get(which) or r['first']
                kw={k:[x for x in kw.get(k,[]) if x] for k in ['l1','l2','l3']}
                f.write(json.dumps({'id':i,'query':gold[i]['query'],'keywords':kw,'expected':gold[i]['expected']},ensure_ascii=False)+'\n')
        r=subprocess.run([B,'--config','/dev/null','eval','--knowledge',f'{SHARED}/corpora/nabledge-6-{c}','--index',indexes[c],'--eval',path,'--mode','keywords','--scoring','default','--format','json'],capture_output=True,text=True,env=dict(os.environ,KBIDX_CACHE_DIR=f'{TMP}/cache'))
        d=json.loads(r.stdout); run=d['runs'][0]
        recs_metrics=run['metrics']
        rows.append((sp,c,which,len(recs),recs_metrics,{x['id']:x for x in run['cases']}))
    # union + high
    first=[x for x in rows if x[0]==sp and x[1]==c and x[2]=='first'][0][5]
    second=[x for x in rows if x[0]==sp and x[1]==c and x[2]=='second'][0][5]
    must=found=0; high=highexp=0; seconds=0
    for i,r in recs.items():
        seconds+= r.get('second') is not None
        exp={e['file']+'#'+e['section'] for e in gold[i]['expected']}
        for h in r.get('high',[]):
            high+=1; highexp+= h in exp
        for a,b in zip(first[i]['ranks'],second[i]['ranks']):
            if a['grade']!='must': continue
            must+=1
            found+= (a['rank'] is not None and a['rank']<=30) or (b['rank'] is not None and b['rank']<=30)
    print(f"{sp}/{c}: n={len(recs)} second searches={seconds} union R@30={found/max(1,must):.2f} high={high} of which expected={highexp}")
for sp,c,which,n,m,_ in rows:
    print(f"| {sp}/{c} | {which} | {n} | {m['recall_at_10']:.2f} | {m['recall_at_30']:.2f} | {m['mrr']:.2f} | {m['recall_at_chars']:.2f} |")
