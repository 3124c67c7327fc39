import csv, re, sys, math
d=sys.argv[1]
KS = sys.argv[2].split(',') if len(sys.argv) > 2 else ['f32-bf16','f16-f32','bf16-f8e4m3','f32-f16','f32-bf16-pad7','f32-beta1']
pts=[]
for kind in KS:
  for f in ['long','short']:
    try:
      A={r['case']:r for r in csv.DictReader(open(f'{d}/{f}-head-{kind}.csv'))}
      B={r['case']:r for r in csv.DictReader(open(f'{d}/{f}-new-{kind}.csv'))}
    except FileNotFoundError: continue
    for k,a in A.items():
      b=B[k]
      m=re.search(r'rows row=(\d+)B', b['plan'])
      if not m or 'direct' in a['plan']: continue
      pts.append((int(m.group(1)), kind, float(b['ratio'])/float(a['ratio'])))
pts.sort()
for lo,hi in [(1024,1536),(1536,2048),(2048,3072),(3072,4096),(4096,6144),(6144,8192),(8192,16384),(16384,1e12)]:
  for kinds in [tuple(k for k in KS if k != 'f32-beta1'), ('f32-beta1',)]:
    s=[x for b,k,x in pts if lo<=b<hi and k in kinds]
    if s: print(f'{lo:6d}-{hi:<8.0f} {kinds[0]:10s} n={len(s):2d} geomean {math.exp(sum(map(math.log,s))/len(s)):.3f} min {min(s):.2f} max {max(s):.2f}')
