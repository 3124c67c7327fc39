# The traffic bound of a strided problem against the copy yardstick (docs/perf/typed-h100.md,
# session 40): the distinct GRAIN-byte pieces (CPU lines 64, GPU sectors 32) the input's and the
# output's elements lie on; output pieces written in part cost a read for ownership too
# ("rmw"). Bound = bytes moved (in + out) / bytes of pieces moved. Base pointers taken as
# aligned. `python3 bound.py CSV IN_BYTES OUT_BYTES [GRAIN]` over xpose bench CSVs;
# `python3 bound.py --csv C3DIR > gpu-bound.csv` for plot.py.
import csv, re, statistics as st, sys
import numpy as np


def offsets(ext, stride):
    o = np.zeros(1, dtype=np.int64)
    for e, s in zip(ext, stride):
        o = (o[None, :] + np.arange(e, dtype=np.int64)[:, None] * s).ravel()
    return o


def pieces(ext, stride, eb, grain):
    """Distinct grain-byte pieces a tensor's elements lie on, and how many of them are covered
    whole, from its runs along the dim of stride 1 (run i: pieces [a_i, b_i]). Strides > 0."""
    d = stride.index(1) if 1 in stride else -1  # no dim of stride 1: runs of one element
    run = ext[d] if d >= 0 else 1
    starts = np.sort(offsets([e for k, e in enumerate(ext) if k != d],
                             [s for k, s in enumerate(stride) if k != d])) * eb
    a, b = starts // grain, (starts + run * eb - 1) // grain
    reach = np.maximum.accumulate(b)
    lo = np.maximum(a, np.concatenate(([a[0]], reach[:-1] + 1)))
    distinct = int(np.maximum(0, b - lo + 1).sum())
    inner = int(np.maximum(0, b - a - 1).sum())  # pieces inside one run: whole
    # The end pieces: each run's bytes in its first and last piece, summed per piece.
    first = np.minimum(run * eb, (a + 1) * grain - starts)
    last = np.where(b > a, starts + run * eb - b * grain, 0)
    ends = np.concatenate((a, b[b > a]))
    got = np.concatenate((first, last[b > a]))
    _, idx = np.unique(ends, return_inverse=True)
    whole_ends = int((np.bincount(idx, weights=got) == grain).sum())
    return distinct, inner + whole_ends


def bound(normalized, ie, oe, grain=64):
    m = re.search(r'extents \(([\d,]+)\) perm \(([\d,]+)\) in_strides \(([\d,-]+)\) '
                  r'out_strides \(([\d,-]+)\)', normalized)
    ext, _, ist, ost = [list(map(int, g.split(','))) for g in m.groups()]
    pieces_in, _ = pieces(ext, ist, ie, grain)
    out, whole = pieces(ext, ost, oe, grain)
    moved = int(np.prod(ext)) * (ie + oe)
    return (moved / (grain * (pieces_in + out)),
            moved / (grain * (pieces_in + whole + 2 * (out - whole))))


def gpu_csv(c3):
    """gpu-bound.csv of call 3's GPU runs (32-byte sectors): pair,suite,case,ratio,bound,rmw."""
    print('pair,suite,case,ratio,bound,rmw')
    for name, ie, oe in [('f32-f32', 4, 4), ('f32-bf16', 4, 2)]:
        for r in csv.DictReader(open(f'{c3}/gpu-{name}--pad7.csv')):
            b, brmw = bound(r['normalized'], ie, oe, 32)
            print(f"{name.replace('-', ' -> ') if ie != oe else 'f32'},{r['suite']},{r['case']},"
                  f"{r['ratio']},{b:.4f},{brmw:.4f}")


if __name__ == '__main__' and sys.argv[1] == '--csv':
    gpu_csv(sys.argv[2])
elif __name__ == '__main__':
    f, ie, oe = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    grain = int(sys.argv[4]) if len(sys.argv) > 4 else 64
    got, plain, rmw = [], [], []
    for r in csv.DictReader(open(f)):
        b, brmw = bound(r['normalized'], ie, oe, grain)
        got.append(float(r['ratio'])); plain.append(b); rmw.append(brmw)
        print(f"{r['case']:14s} ratio {got[-1]:.3f} bound {b:.3f} (rmw {brmw:.3f})")
    print(f"median ratio {st.median(got):.3f}, bound {st.median(plain):.3f} "
          f"(rmw {st.median(rmw):.3f}); bound >= 0.85 on {sum(b >= 0.85 for b in plain)} "
          f"of {len(plain)} (rmw: {sum(b >= 0.85 for b in rmw)})")
