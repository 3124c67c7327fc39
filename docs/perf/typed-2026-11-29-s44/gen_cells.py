# Random problems whose first k >= 2 input dims are the output's first k (cells), half of them with
# input dim 0 first: ranks k+1..k+3, 16-64 M elements. Usage: python3 gen_cells.py SEED N
import random, sys
seed, n = int(sys.argv[1]), int(sys.argv[2])
r = random.Random(seed)
for i in range(n):
    fvi = i % 2 == 1
    k = r.randint(3, 4) if fvi else r.randint(2, 4)
    rank = k + r.randint(1, 3)
    ext = [r.randint(2, 60 if k == 2 else 13) for _ in range(k)]
    cell = 1
    for e in ext: cell *= e
    target = r.randint(16, 64) << 20
    rest = max(1, target // cell)
    outer = []
    for d in range(rank - k - 1):
        e = r.randint(2, max(2, int(rest ** (1.0 / (rank - k)))))
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
    print('cells c%02d-k%d%s %s %s' % (i, k, 'f' if fvi else '', ','.join(map(str, ext)), ','.join(map(str, perm))))
