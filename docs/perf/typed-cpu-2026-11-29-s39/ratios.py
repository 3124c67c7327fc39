# Medians of the CPU typed A/Bs of session 39 (docs/perf/typed-h100.md): `python3 ratios.py DIR`
# over an extracted call*.tgz folder of res-PAIR-{base,new}-ROUND.csv (xpose bench CSVs). Per
# case: each build's fastest round, against the median copy time of all its rounds (both builds),
# so the ratios do not move with the copy baseline's run-to-run noise. Prints a markdown row per
# pair and suite: n, main and new median / p10 / worst, the geomean speed-up, and the fused cases'.
import csv, glob, math, statistics as st, sys, os
d = sys.argv[1]
cfgs = sorted({os.path.basename(f).rsplit('-',2)[0][4:] for f in glob.glob(d+'/res-*.csv')})
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
for cfg in cfgs:
    ms = {'base': {}, 'new': {}}; copy = {}; plan = {}
    for b in ms:
        for f in glob.glob(f'{d}/res-{cfg}-{b}-*.csv'):
            for r in csv.DictReader(open(f)):
                k = (r['suite'], r['case'], r['normalized'])
                ms[b].setdefault(k, []).append(float(r['ms'])); copy.setdefault(k, []).append(float(r['copy_ms']))
                if b == 'new': plan[k] = r['plan']
    for suite in sorted({k[0] for k in ms['new']}):
        ks = [k for k in ms['new'] if k[0] == suite and k in ms['base']]
        rb = [st.median(copy[k]) / min(ms['base'][k]) for k in ks]
        rn = [st.median(copy[k]) / min(ms['new'][k]) for k in ks]
        sp = [min(ms['base'][k]) / min(ms['new'][k]) for k in ks]
        fz = [s for s, k in zip(sp, ks) if 'fused' in plan[k]]
        q = lambda v: f"{st.median(v):.3f} / {sorted(v)[len(v)//10]:.3f} / {min(v):.3f}"
        print(f"| {cfg} | {suite} | {len(ks)} | {q(rb)} | {q(rn)} | {g(sp):.3f} | {len(fz)}: {g(fz) if fz else float('nan'):.3f} ({min(fz) if fz else 0:.2f}-{max(fz) if fz else 0:.2f}) |")
