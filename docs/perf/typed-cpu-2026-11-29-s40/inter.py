# Call 4 of docs/perf/typed-h100.md's session 40 (each case alone, main m and the change n back to
# back, m n then n m): `python3 inter.py DIR`. Per case the faster of each build's two runs
# against the median copy of all four; per config and suite: n, main and change median / p10 /
# worst, geometric mean speed-up, over the plans that changed (count, range) and the others.
import csv,sys,statistics as st,math,collections,glob,os
d=sys.argv[1]
g=lambda v: math.exp(sum(map(math.log,v))/len(v))
for f in sorted(glob.glob(d+'/res-*.csv')):
    cfg=os.path.basename(f)[4:-4]
    ms=collections.defaultdict(lambda: collections.defaultdict(list)); cp=collections.defaultdict(list); plan={}
    for row in csv.reader(open(f)):
        b,suite,case,elem,t,c=row[:6]; k=(suite,case)
        ms[b][k].append(float(t)); cp[k].append(float(c)); plan[(b,k)]=row[9]
    for suite in sorted({k[0] for k in cp}):
        ks=[k for k in cp if k[0]==suite and k in ms['m'] and k in ms['n']]
        q=lambda v: f"{st.median(v):.3f} / {sorted(v)[len(v)//10]:.3f} / {min(v):.3f}"
        rm=[st.median(cp[k])/min(ms['m'][k]) for k in ks]; rn=[st.median(cp[k])/min(ms['n'][k]) for k in ks]
        sp=[min(ms['m'][k])/min(ms['n'][k]) for k in ks]
        ch=[s for s,k in zip(sp,ks) if plan[('m',k)]!=plan[('n',k)]]; un=[s for s,k in zip(sp,ks) if plan[('m',k)]==plan[('n',k)]]
        print(f"| {cfg} | {suite} | {len(ks)} | {q(rm)} | {q(rn)} | {g(sp):.3f} | {len(ch)}: {g(ch) if ch else float('nan'):.3f} ({min(ch) if ch else 0:.2f}-{max(ch) if ch else 0:.2f}) | {g(un) if un else float('nan'):.3f} ({min(un) if un else 0:.2f}-{max(un) if un else 0:.2f}) |")
