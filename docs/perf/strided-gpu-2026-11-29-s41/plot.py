# Session 41's plot (run where matplotlib is: the device): f32 -> bf16 padded sub-tensors per
# case, before (call 1) and after (call 2) typed tiles without groups, each against a copy of
# the bytes moved. `python3 plot.py C1DIR C2DIR OUTDIR`.
import csv, sys
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt

c1, c2, out = sys.argv[1:4]
fig, ax = plt.subplots(figsize=(9, 3.4))
x = 0
ticks, labels = [], []
for s in ['cutt', 'fresh']:
    before = {r['case']: float(r['ratio']) for r in csv.DictReader(open(f'{c1}/h-{s}-f32-bf16.csv'))}
    after = [(r['case'], float(r['ratio'])) for r in csv.DictReader(open(f'{c2}/h-{s}-f32-bf16.csv'))]
    for case, r in after:
        ax.bar(x - 0.2, before[case], 0.4, color='tab:gray', label='before' if x == 0 else None)
        ax.bar(x + 0.2, r, 0.4, color='tab:blue', label='after' if x == 0 else None)
        ticks.append(x); labels.append(case.split('-')[0] + '-' + case.split('-')[1][:5]); x += 1
    x += 1
ax.set_xticks(ticks); ax.set_xticklabels(labels, rotation=70, fontsize=7)
ax.set_ylabel('ratio to copy'); ax.set_ylim(0, 1)
ax.set_title('H200, f32 -> bf16 padded (--pad 7): pointers off 4 bytes, general kernel -> ungrouped tile')
ax.legend(fontsize=8)
fig.tight_layout(); fig.savefig(f'{out}/ungrouped.png', dpi=110)
