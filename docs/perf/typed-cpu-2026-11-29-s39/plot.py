# The plots of docs/perf/typed-h100.md's session 39 section: median ratio to a 16-thread memcpy,
# main against the change, per pair, on a call's cutt-random and fresh cases (device host):
# python3 plot.py DIR OUT.png TITLE PAIR,PAIR,.. (DIR: an extracted call*.tgz).
import csv, glob, os, statistics as st, sys
import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt
d, out, title = sys.argv[1], sys.argv[2], sys.argv[3]
pairs = sys.argv[4].split(',')
fig, ax = plt.subplots(figsize=(8, 3.2))
for i, suite in enumerate(['cutt-random', 'fresh']):
    for j, b in enumerate(['base', 'new']):
        meds = []
        for p in pairs:
            ms, copy = {}, {}
            for f in glob.glob(f'{d}/res-{p}-*-*.csv'):
                bb = os.path.basename(f).rsplit('-', 2)[1]
                for r in csv.DictReader(open(f)):
                    if r['suite'] != suite: continue
                    k = r['case'] + r['normalized']
                    copy.setdefault(k, []).append(float(r['copy_ms']))
                    if bb == b: ms[k] = min(ms.get(k, 1e9), float(r['ms']))
            meds.append(st.median(st.median(copy[k]) / ms[k] for k in ms))
        x = [q + (i * 2 + j - 1.5) * 0.2 for q in range(len(pairs))]
        ax.bar(x, meds, 0.2, label=f"{suite} {'main' if b == 'base' else 'fused'}",
               color=['#bbbbbb', '#1f77b4', '#dddddd', '#ff7f0e'][i * 2 + j])
ax.axhline(0.8, color='k', lw=0.8, ls='--')
ax.set_xticks(range(len(pairs))); ax.set_xticklabels([p.replace('-', '->') for p in pairs], fontsize=8)
ax.set_ylabel('median ratio to memcpy'); ax.legend(fontsize=7, ncol=2)
ax.set_title(title, fontsize=9)
fig.tight_layout(); fig.savefig(out, dpi=110)
