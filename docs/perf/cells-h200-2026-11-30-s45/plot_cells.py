# Speed-up of each wide cells problem (the build against main, the same run) against its size:
# graph-replayed for the lists of 1-40 MiB, by events above. Usage: python3 plot_cells.py C1 C2 OUT
import csv, sys
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt

def load(f):
    return {r['case']: r for r in csv.DictReader(open(f))}

def points(d, name, rnd, graph):
    h, n = load(f'{d}/{name}-head{rnd}.csv'), load(f'{d}/{name}-new{rnd}.csv')
    g = (lambda r: float(r['copy_graph_us']) / float(r['graph_us'])) if graph else \
        (lambda r: float(r['ratio']))
    for c in h:
        vol = int(h[c]['normalized'].split('volume ')[1].split()[0])
        yield vol * int(h[c]['elem']) / 2**20, g(n[c]) / g(h[c]), int(h[c]['elem'])

c1, c2, out = sys.argv[1:4]
pts = list(points(c1, 'middle', '-r1', True)) + list(points(c2, 'middle', '-r1', True)) + \
      list(points(c2, 'bound', '-r1', True)) + list(points(c1, 'large', '', False)) + \
      list(points(c2, 'large', '', False))
fig, ax = plt.subplots(figsize=(6.4, 3.6))
for es, m in ((4, 'o'), (8, 's'), (16, '^')):
    xs = [p[0] for p in pts if p[2] == es]; ys = [p[1] for p in pts if p[2] == es]
    ax.scatter(xs, ys, marker=m, s=18, label=f'{es}-byte elements', alpha=0.8)
ax.axhline(1, color='gray', lw=0.8)
ax.axvline(0.75 * 60 / 2 * 1e6 / 2**20, color='gray', ls='--', lw=0.8)
ax.text(23, 2.1, 'L2 bound (H200)', fontsize=8, color='gray')
ax.set_xscale('log'); ax.set_xlabel('tensor size (MiB)')
ax.set_ylabel('speed-up over main')
ax.set_title('cells for 4-16 B elements (H200): graph-replayed to 40 MiB, events above', fontsize=9)
ax.legend(fontsize=8); fig.tight_layout(); fig.savefig(out, dpi=110)
