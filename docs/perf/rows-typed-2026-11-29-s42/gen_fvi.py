# FVI-match problems (input dim 0 stays output dim 0), rows of 8-100000 elements (or argv 3-4),
# ranks 1-6, 8-50 M elements; seed from argv 1, count argv 2.
import math, random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 24
lo, hi = (float(sys.argv[3]), float(sys.argv[4])) if len(sys.argv) > 4 else (8, 100000)
rng = random.Random(seed)
for c in range(n):
    rank = rng.choice([1, 2, 3, 3, 4, 4, 5, 6])
    total = int(math.exp(rng.uniform(math.log(8e6), math.log(50e6))))
    rank = max(rank, 3) if lo > 8 else rank
    row = int(math.exp(rng.uniform(math.log(lo), math.log(hi)))) if rank > 1 else total
    ext = [row]
    rest = max(1, total // row)
    for k in range(rank - 2):
        e = max(2, int(round(rest ** (1.0 / (rank - 1 - k)) * rng.uniform(0.5, 1.5))))
        ext.append(e); rest = max(1, rest // e)
    if rank > 1: ext.append(max(2, rest))
    perm = [0] + rng.sample(range(1, rank), rank - 1) if rank > 2 else list(range(rank))
    if rank > 2 and perm == list(range(rank)): perm[1], perm[2] = perm[2], perm[1]
    print(f"fvi c{c:02d}-r{rank} {','.join(map(str, ext))} {','.join(map(str, perm))}")
