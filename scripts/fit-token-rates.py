#!/usr/bin/env python3
"""Fits the token-estimate rates of src/output/tokens.rs.

Usage (the TSV comes from the ignored test, which counts with o200k_base):
  KBIDX_TOKENS_TSV=/tmp/tokens.tsv cargo test --lib tokens -- --ignored --nocapture
  python3 scripts/fit-token-rates.py /tmp/tokens.tsv [RATES]
RATES (comma-separated, in the order of the TSV's class columns) are evaluated
beside the fit. Least squares on estimate/true per section (sections of 20+
tokens), each corpus weighing the same; prints the rates, then per corpus the
whole-corpus ratio and the per-section p5/p50/p95 of estimate/true.
"""
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
names=['han','kana','words','letters','digit_groups','symbols','breaks','other']
data=[( r['corpus'],[float(r[n]) for n in names],float(r['true'])) for r in rows if float(r['true'])>=20]
per={}
for c,_,_ in data: per[c]=per.get(c,0)+1
n=len(names)
A=[[0.0]*n for _ in range(n)]; b=[0.0]*n
for c,x,t in data:
    w=1.0/per[c]
    xs=[v/t for v in x]
    for i in range(n):
        b[i]+=w*xs[i]
        for j in range(n): A[i][j]+=w*xs[i]*xs[j]
# solve
M=[A[i]+[b[i]] for i in range(n)]
for i in range(n):
    p=max(range(i,n),key=lambda k:abs(M[k][i])); M[i],M[p]=M[p],M[i]
    for k in range(n):
        if k!=i:
            f=M[k][i]/M[i][i]
            M[k]=[a-f*c for a,c in zip(M[k],M[i])]
r=[M[i][n]/M[i][i] for i in range(n)]
print(dict(zip(names,[round(v,3) for v in r])))
def ev(rates):
    for corpus in ['small','large','fulltext']:
        rs=[];te=tt=0
        for c,x,t in data:
            if c!=corpus: continue
            e=sum(a*b for a,b in zip(x,rates)); rs.append(e/t); te+=e; tt+=t
        rs.sort(); q=lambda p: rs[round((len(rs)-1)*p)]
        print(corpus, round(te/tt,3), round(q(.05),3),round(q(.5),3),round(q(.95),3))
ev(r)
if len(sys.argv)>2:
    rr=[float(v) for v in sys.argv[2].split(',')]; print('given');ev(rr)
