# Random plain problems of LO-HI MiB (log-uniform), ranks 2-8, elements of 4, 8 and 16 bytes,
# extents from a random split of the volume (each >= 2), a random permutation other than the
# identity. Usage: python3 gen_random.py SEED N LO_MIB HI_MIB
import math, random, sys
seed, n, lo, hi = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
r = random.Random(seed)
for i in range(n):
    es = r.choice([4, 8, 16])
    rank = r.randint(2, 8)
    vol = 2 ** r.uniform(math.log2(lo), math.log2(hi)) * 2**20 / es
    w = [r.uniform(0.3, 1.0) for _ in range(rank)]
    ext = [max(2, int(round(vol ** (x / sum(w))))) for x in w]
    perm = list(range(rank))
    while perm == sorted(perm): r.shuffle(perm)
    print('edge e%02d-r%d %s %s elem=%d' % (i, rank, ','.join(map(str, ext)), ','.join(map(str, perm)), es))
