# Random problems whose first k >= 2 input dims are the output's first k (cells) with elements of
# 4, 8 and 16 bytes: cells of 16 B - 8 KB (log-uniform), a third with input dim 0 first, ranks
# k+1..k+3, tensors of LO-HI MiB. Usage: python3 gen_wide_cells.py SEED N LO_MIB HI_MIB
import math, random, sys
seed, n, lo, hi = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
r = random.Random(seed)
out = 0
while out < n:
    es = r.choice([4, 8, 16])
    fvi = r.random() < 1 / 3
    k = r.randint(3, 4) if fvi else r.randint(2, 4)
    cell_bytes = 2 ** r.uniform(4, 13)
    elems = max(4, cell_bytes / es)
    ext = []
    left = elems
    for d in range(k):
        share = left ** (1.0 / (k - d)) * r.uniform(0.6, 1.6)
        e = max(2, int(round(share)))
        ext.append(e); left = max(1.0, left / e)
    cell = es * math.prod(ext)
    if cell < 16 or cell > 8192: continue
    rank = k + r.randint(1, 3)
    target = int(2 ** r.uniform(math.log2(lo), math.log2(hi)) * 2**20)
    rest = max(1, target // cell)
    outer = []
    for d in range(rank - k - 1):
        e = r.randint(2, max(2, int(rest ** (1.0 / (rank - k)) * 1.5)))
        outer.append(e); rest = max(1, rest // e)
    outer.append(max(1, rest))
    ext += outer
    perm = list(range(rank))
    head = perm[1:k] if fvi else perm[:k]
    while True:
        r.shuffle(head)
        if head != sorted(head) and (fvi or head[0] != 0): break
    perm = ([0] + head if fvi else head) + perm[k:]
    tail = perm[k:]; r.shuffle(tail); perm = perm[:k] + tail
    print('cells w%02d-k%d%s-%dB %s %s elem=%d' % (out, k, 'f' if fvi else '', cell, ','.join(map(str, ext)), ','.join(map(str, perm)), es))
    out += 1
