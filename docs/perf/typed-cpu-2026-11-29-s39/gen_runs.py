# Random dense problems whose leading dim stays (perm[0] = 0, perm[1] != 1) with runs of 2-300
# elements, ranks 3-7, 8-40 M elements: `xpose bench FILE` lines. python3 gen_runs.py SEED N
import random, sys
rng = random.Random(int(sys.argv[1])); n = int(sys.argv[2])
for i in range(n):
    while True:
        rank = rng.randint(3, 7)
        lead = rng.choice([rng.randint(2, 40), rng.randint(41, 300)])
        target = rng.randint(8, 40) * 10**6 / lead
        rest = [2] * (rank - 1)
        per = max(2.0, target ** (1.0 / (rank - 1)))
        rest = [max(2, int(per * rng.uniform(0.5, 1.6))) for _ in range(rank - 1)]
        vol = lead
        for e in rest: vol *= e
        if 4e6 <= vol <= 60e6: break
    p = list(range(1, rank))
    while True:
        rng.shuffle(p)
        if p[0] != 1: break
    ext = [lead] + rest
    print(f"runs r{i:02d}-{rank} {','.join(map(str, ext))} {','.join(map(str, [0] + p))}")
