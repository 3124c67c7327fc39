# The direct-in-L2 rule against the measurements of calls 4-7: every problem of 4-16 byte
# elements (the plan's view) in L2 where direct and a tile plan were both timed (call 4: forced
# direct against the heuristic; calls 5-7: the plans that changed), the direct kernel's speed-up
# against the problem's read traffic (its bytes times the sectors a warp, or a block of 256,
# touches over those its bytes fill), for thresholds in MiB. Usage: python3 direct_rule.py ROOT
# (ROOT holding c4/ .. c7/ as the archives unpack).
import csv, math, sys

def load(f):
    return {r['case']: r for r in csv.DictReader(open(f))}

g = lambda r: float(r['copy_graph_us']) / float(r['graph_us'])

def geo(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')

def factor(ext, perm, es, group):
    stride = [1] * len(ext)
    for k in range(1, len(ext)): stride[k] = stride[k - 1] * ext[k - 1]
    vol, touched, n = math.prod(ext), 0, 0
    for first in (0, vol // 2 // 256 * 256):
        for b in range(first, min(vol, first + 256), group):
            seen = set()
            for j in range(b, min(vol, b + group, first + 256)):
                r, off = j, 0
                for k in range(len(ext)):
                    e = ext[perm[k]]; off += (r % e) * stride[perm[k]]; r //= e
                seen.add(off * es // 32)
            touched += len(seen)
        n += min(256, vol - first)
    return touched * 32 / (n * es)

root, rows = sys.argv[1], []
def add(src, h1, n1, h2, n2, changed_only):
    H1, N1, H2, N2 = (load(f'{root}/{x}') for x in (h1, n1, h2, n2))
    for c in H1:
        if changed_only and H1[c]['plan'] == N1[c]['plan']: continue
        nz = H1[c]['normalized']
        ext = list(map(int, nz.split('extents (')[1].split(')')[0].split(',')))
        perm = list(map(int, nz.split('perm (')[1].split(')')[0].split(',')))
        es = int(nz.split(' B;')[0].split()[-1]); mib = math.prod(ext) * es / 2**20
        if es < 4 or mib > 22.5: continue
        if perm[0] != 0 and ext[0] >= 32 and ext[perm[0]] >= 32: continue  # wide2d's
        if perm[0] == 0 and ext[0] * es >= 1024: continue                  # rows.cu's
        sp = (g(N1[c]) * g(N2[c]) / (g(H1[c]) * g(H2[c]))) ** 0.5
        rows.append(dict(src=src, mib=mib, warp=factor(ext, perm, es, 32),
                         block=factor(ext, perm, es, 256), sp=sp))
add('c4fa', 'c4/fa-heur-r1.csv', 'c4/fa-direct-r1.csv', 'c4/fa-heur-r2.csv', 'c4/fa-direct-r2.csv', False)
add('c4fb', 'c4/fb-heur-r1.csv', 'c4/fb-direct-r1.csv', 'c4/fb-heur-r2.csv', 'c4/fb-direct-r2.csv', False)
for d in ('c5', 'c6', 'c7'):
    for f in ('fma', 'fmb', 'cells', 'edge', 'sizes'):
        add(d + f, f'{d}/{f}-head-r1.csv', f'{d}/{f}-new-r1.csv', f'{d}/{f}-head-r2.csv',
            f'{d}/{f}-new-r2.csv', True)
print(f'{len(rows)} problems with both timed')
print('| count | threshold (MiB) | taken | speed-up, geomean | under 0.95x | min | left to tiles, their direct speed-up |')
print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
for key in ('block', 'warp'):
    for t in (16, 20, 24, 32, 48):
        take = [r['sp'] for r in rows if r['mib'] * r[key] <= t]
        left = [r['sp'] for r in rows if r['mib'] * r[key] > t]
        print(f'| {key} | {t} | {len(take)} | {geo(take):.3f} | {sum(x < 0.95 for x in take)} | '
              f'{min(take):.2f} | {len(left)}: {geo(left):.3f} |')
