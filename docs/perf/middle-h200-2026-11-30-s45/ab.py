# A/B tables of session 45's calls: per list, main (head) against the build (new), the same
# cases; ratio = copy / transposition (graph-replayed where the list ran with --latency).
# Usage: python3 ab.py DIR [--cases] (ab_cells.py in the call scripts)
import csv, math, os, statistics, sys

def load(f):
    return {r['case']: r for r in csv.DictReader(open(f))} if os.path.exists(f) else None

def ratio(r, graph):
    return float(r['copy_graph_us']) / float(r['graph_us']) if graph else float(r['ratio'])

def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')

d, cases = sys.argv[1], '--cases' in sys.argv
lists = [('middle', True), ('bound', True), ('large', False), ('fmid', True), ('fma', True),
         ('fmb', True), ('cells', True), ('edge', True), ('above', True), ('sizes', True),
         ('cutt', False), ('cutt4', False), ('cutt8', False), ('fresh', False)]
print('| list | round | cases | main: median / worst | build: median / worst | speed-up, geomean (range) | changed plans: n, geomean (range) |')
print('| --- | --- | ---: | --- | --- | --- | --- |')
for name, graph in lists:
    for rnd in ('-r1', '-r2', ''):
        h, n = load(f'{d}/{name}-head{rnd}.csv'), load(f'{d}/{name}-new{rnd}.csv')
        if not h or not n: continue
        keys = [c for c in h if c in n]
        a = [ratio(h[c], graph) for c in keys]; b = [ratio(n[c], graph) for c in keys]
        sp = [y / x for x, y in zip(a, b)]
        ch = [s for s, c in zip(sp, keys) if h[c]['plan'] != n[c]['plan']]
        rng = lambda v: f'{min(v):.2f}-{max(v):.2f}' if v else '-'
        print(f"| {name}{' (graph)' if graph else ''} | {rnd[1:] or '1'} | {len(keys)} | "
              f"{statistics.median(a):.3f} / {min(a):.3f} | {statistics.median(b):.3f} / {min(b):.3f} | "
              f"{geo(sp):.3f} ({rng(sp)}) | {len(ch)}: {geo(ch):.3f} ({rng(ch)}) |")
        if cases:
            for c, x, y in sorted(zip(keys, a, b)):
                if h[c]['plan'] != n[c]['plan']:
                    print(f"    {c:24s} {h[c]['elem']:>2}B {x:.3f} -> {y:.3f} x{y/x:.2f}  {n[c]['plan'][14:70]}")
