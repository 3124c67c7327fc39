# Main ("head") against the change ("new") per suite and type pair, from the CSVs of a call
# (SUITE-{head,new}-KIND.csv): median / p10 / worst ratio of each build, the geometric mean and
# range of new / head per case, and the plans that changed. With --graph, the graph-replayed
# ratio (copy_graph_us / graph_us; `xpose bench --latency`) instead of the batched one.
# Usage: python3 ab.py DIR [--graph] [--cases]
import csv, glob, math, os, re, sys

d = sys.argv[1]
graph = '--graph' in sys.argv
cases = '--cases' in sys.argv


def ratio(r):
    if graph:
        return float(r['copy_graph_us']) / float(r['graph_us'])
    return float(r['ratio'])


def stats(v):
    v = sorted(v)
    n = len(v)
    med = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    return med, v[max(0, int(0.1 * n + 0.5) - 1)], v[0]


for head in sorted(glob.glob(os.path.join(d, '*-head-*.csv'))):
    new = head.replace('-head-', '-new-')
    if not os.path.exists(new):
        continue
    suite, kind = re.match(r'(.*)-head-(.*)\.csv', os.path.basename(head)).groups()
    A = {r['case']: r for r in csv.DictReader(open(head))}
    B = {r['case']: r for r in csv.DictReader(open(new))}
    if graph and 'graph_us' not in next(iter(A.values())):
        continue
    keys = [k for k in A if k in B]
    sp = [ratio(B[k]) / ratio(A[k]) for k in keys]
    changed = [k for k in keys if A[k]['plan'] != B[k]['plan']]
    g = math.exp(sum(map(math.log, sp)) / len(sp))
    gc = [ratio(B[k]) / ratio(A[k]) for k in changed]
    gcm = math.exp(sum(map(math.log, gc)) / len(gc)) if gc else float('nan')
    sa, sb = stats([ratio(A[k]) for k in keys]), stats([ratio(B[k]) for k in keys])
    print(f'| {kind} | {suite} | {len(keys)} | {sa[0]:.3f} / {sa[1]:.3f} / {sa[2]:.3f} | '
          f'{sb[0]:.3f} / {sb[1]:.3f} / {sb[2]:.3f} | {g:.3f} ({min(sp):.2f}-{max(sp):.2f}) | '
          f'{len(changed)}: {gcm:.3f} |')
    if cases:
        for k in keys:
            ext = re.search(r'extents \(([^)]*)\) perm \(([^)]*)\)', A[k]['normalized'])
            pa = A[k]['plan'].replace('backend cuda: ', '').split(' grid')[0]
            pb = B[k]['plan'].replace('backend cuda: ', '').split(' grid')[0]
            print(f'    {k:10s} ({ext.group(1)}) perm ({ext.group(2)}) {ratio(A[k]):.3f} -> '
                  f'{ratio(B[k]):.3f} ({ratio(B[k]) / ratio(A[k]):.2f}x) | {pa} | {pb}')
