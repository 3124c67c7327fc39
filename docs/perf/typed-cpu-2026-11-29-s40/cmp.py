# Calls 1-3 of docs/perf/typed-h100.md's session 40 (one binary per variant or build, whole
# suites run back to back): `python3 cmp.py DIR` over an extracted call*.tgz folder of
# res-CONFIG-VARIANT-ROUND.csv. Per case each variant's fastest round against the median copy of
# all runs; per config and suite: median / p10 / worst ratio per variant, and where the folder
# has them, the geometric mean speed-up of `rule` (call 2) over `old`.
import csv, glob, math, os, statistics as st, sys
from collections import defaultdict
d = sys.argv[1]
split = lambda f: os.path.basename(f)[4:-4].rsplit('-', 2)  # config, variant, round
for cfg in sorted({split(f)[0] for f in glob.glob(d + '/res-*.csv')}):
    ms, cp = defaultdict(lambda: defaultdict(list)), defaultdict(list)
    for f in glob.glob(f'{d}/res-{cfg}-*.csv'):
        if split(f)[0] != cfg: continue
        for r in csv.DictReader(open(f)):
            k = (r['suite'], r['case'])
            ms[split(f)[1]][k].append(float(r['ms'])); cp[k].append(float(r['copy_ms']))
    for suite in sorted({k[0] for k in cp}):
        ks = [k for k in cp if k[0] == suite and all(k in ms[v] for v in ms)]
        cells = []
        for v in sorted(ms):
            r = sorted(st.median(cp[k]) / min(ms[v][k]) for k in ks)
            cells.append(f"{v} {st.median(r):.3f} / {r[len(r) // 10]:.3f} / {r[0]:.3f}")
        if 'rule' in ms and 'old' in ms:
            s = [min(ms['old'][k]) / min(ms['rule'][k]) for k in ks]
            cells.append(f"rule/old {math.exp(st.mean(map(math.log, s))):.3f}")
        print(f"| {cfg} | {suite} | {len(ks)} | " + " | ".join(cells) + " |")
