# Per case, main's ratio against the change's, one panel per suite (session 44, call 6: cutt-random and fresh
# at their sizes, fresh-middle graph-replayed); pairs whose plans did not change are left out.
# Usage: python3 plot.py DIR OUT.png
import csv, glob, os, re, sys
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt

d, out = sys.argv[1:3]
seed = open(os.path.join(d, 'seed.txt')).read().split()
panels = {'cutt': 'cutt-random (~100-200 MB)', 'fresh': f'fresh (30-500 MB elements), seed {seed[0]}',
          'middle': f'fresh-middle (1-16 MiB), seed {seed[1]}, graph-replayed'}
fig, axes = plt.subplots(1, 3, figsize=(15, 5))
for ax, (suite, title) in zip(axes, panels.items()):
    for head in sorted(glob.glob(os.path.join(d, f'{suite}-head-*.csv'))):
        kind = re.match(r'.*-head-(.*)\.csv', head).group(1)
        A = {r['case']: r for r in csv.DictReader(open(head))}
        B = {r['case']: r for r in csv.DictReader(open(head.replace('-head-', '-new-')))}
        if all(A[k]['plan'] == B[k]['plan'] for k in A):
            continue  # controls: no plan changed

        def ratio(r):
            if suite == 'middle':
                return float(r['copy_graph_us']) / float(r['graph_us'])
            return float(r['ratio'])
        ax.scatter([ratio(A[k]) for k in A], [ratio(B[k]) for k in A], s=16,
                   label=kind.replace('-a2', ' alpha 2').replace('-', ' -> '))
    ax.plot([0, 1.2], [0, 1.2], color='gray', lw=0.8)
    ax.set_xlim(0, 1.1)
    ax.set_ylim(0, 1.1)
    ax.set_xlabel('main 30245d4 (typed tiles): ratio to a copy')
    ax.set_ylabel('this session (converting loads): ratio to a copy')
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc='lower right')
fig.suptitle('f32 -> fp8 on the H200, per case')
fig.tight_layout()
fig.savefig(out, dpi=80)
