# The plot of docs/perf/typed-h100.md's session 39 section: median ratio to a 16-thread memcpy,
# main against the fused tiles, per pair, on call 3's cutt-random and fresh cases (device host).
import csv, glob, os, statistics as st, sys
import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt
d, out = sys.argv[1], sys.argv[2]
pairs = ['f32-bf16', 'f32-f16', 'f32-f8e4m3', 'bf16-f8e4m3', 'f16-bf16', 'bf16-f16', 'f16-f8e4m3']
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
ax.set_title('CPU typed conversions, 16-core host (session 39, call 3)', fontsize=9)
fig.tight_layout(); fig.savefig(out, dpi=110)
