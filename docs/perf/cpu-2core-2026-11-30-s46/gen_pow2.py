# Random 4-byte problems with power-of-two extents (ML shapes), 64 KiB - 16 MiB, ranks 2-4,
# a random non-identity permutation. Usage: python3 gen_pow2.py SEED N
import random, sys
seed, n = int(sys.argv[1]), int(sys.argv[2])
r = random.Random(seed)
for i in range(n):
    rank = r.randint(2, 4)
    total = r.randint(14, 22)  # log2 of elements: 64 KiB - 16 MiB of f32
    cuts = sorted(r.sample(range(1, total), rank - 1))
    logs = [b - a for a, b in zip([0] + cuts, cuts + [total])]
    ext = [2 ** l for l in logs]
    perm = list(range(rank))
    while perm == sorted(perm): r.shuffle(perm)
    print('edge p%02d-r%d %s %s elem=4' % (i, rank, ','.join(map(str, ext)), ','.join(map(str, perm))))
