# Per case: the faster of two rounds per build; speed-up main/new; the changed plans apart.
import csv, sys, math, statistics as st
tag = sys.argv[1]
def load(f): return {r['case']: r for r in csv.DictReader(open(f))}
m = [load('%s-main-%d.csv' % (tag, k)) for k in (1, 2)]
n = [load('%s-new-%d.csv' % (tag, k)) for k in (1, 2)]
allsp, ch, rm, rn = [], [], [], []
for c in m[0]:
    tm = min(float(x[c]['ms']) for x in m); tn = min(float(x[c]['ms']) for x in n)
    cp = min(float(x[c]['copy_ms']) for x in m + n)
    s = tm / tn; allsp.append(s); rm.append(cp / tm); rn.append(cp / tn)
    pm = m[0][c]['plan'].split(': ')[1][:40]; pn = n[0][c]['plan'].split(': ')[1][:40]
    if pm != pn:
        ch.append(s)
        if len(sys.argv) > 2: print('  %-8s %-34s %9.4f -> %9.4f ms x%.2f  %s -> %s' % (c, m[0][c]['normalized'][20:54], tm, tn, s, pm, pn))
g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')
print('%s: %d cases, median ratio main %.3f new %.3f; all x%.3f (%.2f-%.2f); changed plans %d: x%.3f (%s)' % (
    tag, len(allsp), st.median(rm), st.median(rn), g(allsp), min(allsp), max(allsp), len(ch), g(ch),
    ' '.join('%.2f' % x for x in sorted(ch))))
