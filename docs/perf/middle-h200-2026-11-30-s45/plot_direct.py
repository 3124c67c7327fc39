# Speed-up per problem whose plan changed (the build against main, graph-replayed, the
# geometric mean of two rounds) against its size, by element size. Usage:
# python3 plot_direct.py DIR OUT LIST...
import csv, sys
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt

def load(f):
    return {r['case']: r for r in csv.DictReader(open(f))}

g = lambda r: float(r['copy_graph_us']) / float(r['graph_us'])
d, out, lists = sys.argv[1], sys.argv[2], sys.argv[3:]
pts = []
for name in lists:
    h1, n1 = load(f'{d}/{name}-head-r1.csv'), load(f'{d}/{name}-new-r1.csv')
    h2, n2 = load(f'{d}/{name}-head-r2.csv'), load(f'{d}/{name}-new-r2.csv')
    for c in h1:
        if h1[c]['plan'] == n1[c]['plan']: continue
        n = h1[c]['normalized']
        es = int(n.split(' B;')[0].split()[-1]); vol = int(n.split('volume ')[1].split()[0])
        sp = ((g(n1[c]) * g(n2[c])) / (g(h1[c]) * g(h2[c]))) ** 0.5
        pts.append((vol * es / 2**20, sp, es))
fig, ax = plt.subplots(figsize=(6.4, 3.6))
for es, m in ((4, 'o'), (8, 's'), (16, '^')):
    xs = [p[0] for p in pts if p[2] == es]; ys = [p[1] for p in pts if p[2] == es]
    ax.scatter(xs, ys, marker=m, s=18, alpha=0.8, label=f'{es}-byte elements (view)')
ax.axhline(1, color='gray', lw=0.8)
ax.set_xscale('log'); ax.set_xlabel('tensor size (MiB)'); ax.set_ylabel('speed-up over main')
ax.set_title('direct kernel in L2 (H200): plans that changed, graph-replayed', fontsize=9)
ax.legend(fontsize=8); fig.tight_layout(); fig.savefig(out, dpi=110)
