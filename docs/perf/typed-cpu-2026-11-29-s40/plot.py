# The plots of docs/perf/typed-h100.md's session 40: `python3 plot.py C4DIR gpu-bound.csv OUTDIR`.
# speedup.png: call 4's per-case speed-up (main's time / the change's, each the faster of two
# runs) of the padded problems whose plan changed, against the tile's area (ti x to), per pair.
# gpu-bound.png: call 3's GPU ratios of padded cases against their 32-byte-sector bound
# (gpu-bound.csv, bound.py's numbers: `python3 bound.py --csv c3` here).
import csv, glob, os, re, sys
from collections import defaultdict
import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt
c4, gpu, out = sys.argv[1], sys.argv[2], sys.argv[3]
fig, ax = plt.subplots(figsize=(6, 3.2))
for f in sorted(glob.glob(c4 + '/res-*pad7.csv')):
    ms, plan = defaultdict(lambda: defaultdict(list)), {}
    for row in csv.reader(open(f)):
        ms[row[0]][row[2]].append(float(row[4])); plan[(row[0], row[2])] = row[9]
    pts = [(int(m.group(1)) * int(m.group(2)), min(ms['m'][k]) / min(ms['n'][k]))
           for k in ms['n'] if plan[('m', k)] != plan[('n', k)]
           for m in [re.search(r'typed ti=(\d+) to=(\d+)', plan[('n', k)])] if m]
    name = os.path.basename(f)[4:-10].replace('-', ' -> ')
    ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=14, label=name)
ax.axhline(1, color='k', lw=0.8); ax.set_xscale('log')
ax.set_xlabel('tile elements (ti x to)'); ax.set_ylabel('speed-up over main')
ax.set_title('16-core host, --pad 7: padded problems now in the tiled engine (call 4)', fontsize=9)
ax.legend(fontsize=7); fig.tight_layout(); fig.savefig(out + '/speedup.png', dpi=110)
fig, ax = plt.subplots(figsize=(6, 3.2))
rows = list(csv.DictReader(open(gpu)))
for pair in sorted({r['pair'] for r in rows}):
    sel = [r for r in rows if r['pair'] == pair]
    ax.scatter([float(r['bound']) for r in sel], [float(r['ratio']) for r in sel], s=14,
               label=pair + ' padded')
ax.plot([0.3, 1], [0.3, 1], 'k--', lw=0.8)
ax.set_xlabel('sector bound (bytes moved / sectors touched)'); ax.set_ylabel('ratio to copy')
ax.set_title('H200, padded problems (call 3): measured against the sector bound', fontsize=9)
ax.legend(fontsize=7); fig.tight_layout(); fig.savefig(out + '/gpu-bound.png', dpi=110)
