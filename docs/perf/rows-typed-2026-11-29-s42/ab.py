# Per case: ratio of build A and build B (and optional C), row bytes, plans; geomean of B/A.
KINDS = ['f32-bf16', 'f16-f32', 'bf16-f32', 'f8e4m3-f32', 'bf16-f8e4m3', 'f32-beta1', 'f32-f16', 'f32-bf16-pad7', 'beta1', 'pad7']
FILES = ['long', 'short', 'cutt']
import csv, math, sys, re
def load(f):
    try: return {r['case']: r for r in csv.DictReader(open(f))}
    except FileNotFoundError: return {}
d = sys.argv[1]; tags = sys.argv[2:]
for kind in KINDS:
    for f in FILES:
        A = load(f'{d}/{f}-head-{kind}.csv'); B = load(f'{d}/{f}-new-{kind}.csv'); C = load(f'{d}/{f}-rows-{kind}.csv')
        if not A: continue
        print(f'== {f} {kind}')
        lr = []; lc = []
        for k, a in A.items():
            b = B.get(k); c = C.get(k)
            ext = re.search(r'extents \(([^)]*)\)', a['normalized']).group(1)
            ra, rb = float(a['ratio']), float(b['ratio']) if b else float('nan')
            rc = float(c['ratio']) if c and c['ratio'] else float('nan')
            lr.append(rb / ra)
            if c: lc.append(rc / ra)
            pa = a['plan'].replace('backend cuda: ', '').split(' grid')[0][:34]
            pb = b['plan'].replace('backend cuda: ', '').split(' grid')[0][:24] if b else ''
            print(f"{k:8s} {ext:28s} {ra:.3f} -> {rb:.3f} ({rb/ra:5.2f}x) rows {rc:.3f} | {pa:34s} | {pb}")
        g = math.exp(sum(map(math.log, lr)) / len(lr))
        med = lambda R: sorted(float(r['ratio']) for r in R.values())[len(R)//2]
        print(f'   geomean new/head {g:.3f}; medians head {med(A):.3f} new {med(B):.3f}' + (f'; forced rows/head {math.exp(sum(map(math.log, lc))/len(lc)):.3f}' if lc else ''))
