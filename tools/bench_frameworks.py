#!/usr/bin/env python3
"""Time PyTorch, CuPy and JAX on the cases of an `xpose bench` suite, on the GPU.

The cases come from `xpose bench SUITE --list` (lines "SUITE CASE EXTENTS PERM [elem=BYTES]",
column-major: extents[0] is stride-1, output dimension i is input dimension perm[i]). numpy /
PyTorch order is the reverse, so a case becomes shape = reversed(extents) and
axes[i] = r-1-perm[r-1-i]. A case's element size is its own (elem=BYTES) or --elem; its dtype is
the default of that size (uint8, float16, float32, float64, complex128) unless --dtype names
another of the same size (int8, float8_e4m3fn, bfloat16). CuPy has neither bfloat16 nor fp8 and
runs those cases as the unsigned integer of the same size (its rows say which dtype ran).

Per case and framework, the transposition and a same-run copy of the same bytes in the same
framework, timed the same way; ratio = copy time / transposition time, as in `xpose bench`
(> 1: faster than a copy). Every result is checked once, byte for byte, against PyTorch's.
- PyTorch: `out.copy_(x.permute(axes))` into a preallocated output; copy `out.copy_(x)`.
- CuPy: `cupy.ascontiguousarray(x.transpose(axes))` (allocating from CuPy's pool, as users call
  it); copy `cupy.copyto`.
- JAX: `jnp.transpose(x, axes)` under `jax.jit`; copy `jnp.copy` under `jax.jit`. Compiled and
  run once before timing.
PyTorch and CuPy run on the legacy default stream and are timed with CUDA events, one call per
event pair, or batches of calls lasting ~0.1 ms where the copy takes under 50 us (as `xpose
bench`). JAX runs on its own streams, which those events do not order, so it is timed on the
host clock in batches lasting ~2 ms, each ended by block_until_ready (one dispatch and wait per
batch). Times are medians of --reps batches.

With --xpose-csv (from `xpose bench SUITE --csv` on the same cases), the table has xpose's rows
too and the share of cases where xpose is at least as fast as each framework.

The framework "xpose-py" is the Python package (python/xpose) on PyTorch tensors:
`xpose.transpose(x, axes, out=out)` into the same preallocated output as PyTorch's row, timed
the same way, with PyTorch's copy. --cases reads the `--list` lines from a file instead of
running the xpose command (a machine with the package but not the command), and --png draws
the median and 10th-percentile ratios of each framework per suite and element size.

    python3 tools/bench_frameworks.py --xpose build/tools/xpose --suite dtypes --limit 60 \\
        --xpose-csv dtypes.csv --csv frameworks.csv
    xpose bench quick --list --elem 4 > cases.txt
    python3 tools/bench_frameworks.py --frameworks xpose-py,torch,cupy,jax --cases cases.txt \\
        --png frameworks.png
"""
import argparse
import csv
import math
import os
import statistics
import subprocess
import sys
import time
from collections import namedtuple

# JAX takes 75 % of the GPU's memory at its first call unless told not to, which would leave
# PyTorch too little for the suite's buffers; and without 64-bit types it would make float64 and
# complex128 float32 and complex64 (Jax below asks for them again, and refuses a case without).
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
os.environ.setdefault("JAX_ENABLE_X64", "1")

DTYPE_SIZES = {"uint8": 1, "int8": 1, "float8_e4m3fn": 1, "float16": 2, "bfloat16": 2,
               "float32": 4, "float64": 8, "complex128": 16}
DEFAULT_DTYPES = {1: "uint8", 2: "float16", 4: "float32", 8: "float64", 16: "complex128"}
CUPY_STANDINS = {"float8_e4m3fn": "uint8", "bfloat16": "uint16"}
FIELDS = ["framework", "suite", "case", "elem", "dtype", "ms", "copy_ms", "ratio", "batch", "ok",
          "error"]

Case = namedtuple("Case", "suite name extents perm elem")


def list_cases(xpose, suite, elem, limit, seed):
    """The suite's cases as `xpose bench SUITE --list` gives them (its stderr, e.g. the fresh
    suite's seed, passed on)."""
    cmd = [xpose, "bench", suite, "--list", "--elem", str(elem)]
    cmd += ["--limit", str(limit)] if limit else []
    cmd += ["--seed", str(seed)] if seed is not None else []
    run = subprocess.run(cmd, check=True, capture_output=True, text=True)
    sys.stderr.write(run.stderr)
    return [parse_case(line, elem) for line in run.stdout.splitlines() if line.strip()]


def parse_case(line, run_elem):
    words = line.split()
    elem = run_elem
    if words and words[-1].startswith("elem="):
        elem = int(words.pop()[len("elem="):])
    if len(words) != 4:
        raise SystemExit(f"bench_frameworks: unexpected --list line '{line}'")
    suite, name, extents, perm = words
    return Case(suite, name, [int(e) for e in extents.split(",")],
                [int(p) for p in perm.split(",")], elem)


def numpy_order(extents, perm):
    """Column-major (extents, perm) as a row-major shape and numpy.transpose axes."""
    r = len(extents)
    shape = list(reversed(extents))
    axes = [r - 1 - perm[r - 1 - i] for i in range(r)]
    return shape, axes


def volume(shape):
    return math.prod(shape)


def case_dtypes(names):
    """Element size -> dtype name: the defaults, each replaced by a --dtype of its size."""
    chosen, given = dict(DEFAULT_DTYPES), {}
    for name in names or []:
        if name not in DTYPE_SIZES:
            raise SystemExit(f"bench_frameworks: --dtype {name} is not one of "
                             f"{', '.join(DTYPE_SIZES)}")
        size = DTYPE_SIZES[name]
        if size in given:
            raise SystemExit(f"bench_frameworks: --dtype {name}: {given[size]} is {size}-byte too "
                             "(one dtype per size and run)")
        chosen[size] = given[size] = name
    return chosen


def event_batch(once_ms):
    """Calls per event pair: batches of ~0.1 ms where one call takes under 50 us (xpose bench's
    rule: an event pair around one short launch times the launch as much as the work)."""
    return 1 if once_ms >= 0.05 else int(min(1000, max(1, 0.1 / max(once_ms, 1e-6))))


def event_ms(torch, fn, reps, batch):
    """Median milliseconds per call of fn() between CUDA events, `batch` calls per pair."""
    pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
             for _ in range(reps)]
    for start, end in pairs:
        start.record()
        for _ in range(batch):
            fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) / batch for start, end in pairs)


def timed_events(torch, fn, reps, batch=None):
    """(median ms, batch) of fn(), warmed up twice; batched by the time of one call unless
    `batch` is given (the copy's, so that a transposition is timed as its copy is)."""
    fn()
    fn()
    batch = batch or event_batch(event_ms(torch, fn, 3, 1))
    return event_ms(torch, fn, reps, batch), batch


def host_ms(fn, reps, batch=None, target_ms=2.0):
    """(median ms per call, batch) of fn(), which returns a JAX array: batches of calls lasting
    about target_ms on the host clock (or of `batch` calls), each ended by waiting for its last
    result. The first call (compilation) and a second are not timed."""
    fn().block_until_ready()
    t0 = time.perf_counter()
    fn().block_until_ready()
    once = (time.perf_counter() - t0) * 1e3
    batch = batch or int(min(1000, max(1, math.ceil(target_ms / max(once, 1e-6)))))
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(batch):
            y = fn()
        y.block_until_ready()
        samples.append((time.perf_counter() - t0) * 1e3 / batch)
    return statistics.median(samples), batch


class Torch:
    name = "torch"

    def __init__(self, torch):
        self.torch = torch

    def run(self, bufs, case, shape, axes, dtype, reps, batch, want):
        src, dst = bufs.typed_in(case, dtype), bufs.typed_out(case, dtype)
        copy_ms, batch = timed_events(self.torch, lambda: dst.copy_(src), reps, batch)
        x = src.view(shape)
        out = dst.view([shape[a] for a in axes])
        ms, _ = timed_events(self.torch, lambda: out.copy_(x.permute(axes)), reps, batch)
        return dtype, ms, copy_ms, batch, self.torch.equal(bufs.raw_out(case), want)


class XposePy:
    name = "xpose-py"

    def __init__(self, torch, xpose):
        self.torch, self.xpose = torch, xpose

    def run(self, bufs, case, shape, axes, dtype, reps, batch, want):
        src, dst = bufs.typed_in(case, dtype), bufs.typed_out(case, dtype)
        copy_ms, batch = timed_events(self.torch, lambda: dst.copy_(src), reps, batch)
        x = src.view(shape)
        out = dst.view([shape[a] for a in axes])
        ms, _ = timed_events(self.torch, lambda: self.xpose.transpose(x, axes, out=out), reps,
                             batch)
        return dtype, ms, copy_ms, batch, self.torch.equal(bufs.raw_out(case), want)


class Cupy:
    name = "cupy"

    def __init__(self, torch, cupy):
        self.torch, self.cp = torch, cupy

    def run(self, bufs, case, shape, axes, dtype, reps, batch, want):
        cp = self.cp
        dtype = CUPY_STANDINS.get(dtype, dtype)
        x = cp.asarray(bufs.raw_in(case)).view(getattr(cp, dtype)).reshape(shape)
        dst = cp.empty_like(x)
        copy_ms, batch = timed_events(self.torch, lambda: cp.copyto(dst, x), reps, batch)
        holder = {}

        def transpose():
            holder["y"] = cp.ascontiguousarray(x.transpose(axes))

        ms, _ = timed_events(self.torch, transpose, reps, batch)
        got = self.torch.as_tensor(holder["y"].reshape(-1).view(cp.uint8), device="cuda")
        return dtype, ms, copy_ms, batch, self.torch.equal(got, want)


class Jax:
    name = "jax"

    def __init__(self, torch, jax):
        self.torch, self.jax = torch, jax
        # float64 and complex128 would silently become float32 and complex64 without x64.
        jax.config.update("jax_enable_x64", True)

    def run(self, bufs, case, shape, axes, dtype, reps, batch, want):
        jax = self.jax
        jnp = jax.numpy
        raw = jax.dlpack.from_dlpack(bufs.raw_in(case))
        x = from_bytes(jax, raw, getattr(jnp, dtype), shape)
        if x.dtype != jnp.dtype(getattr(jnp, dtype)):
            raise RuntimeError(f"JAX made {x.dtype} of {dtype} (64-bit types off?)")
        x.block_until_ready()
        copy = jax.jit(jnp.copy)
        if copy(x).unsafe_buffer_pointer() == x.unsafe_buffer_pointer():
            raise RuntimeError("jit(jnp.copy) returned its input: no copy to time")
        copy_ms, batch = host_ms(lambda: copy(x), reps, batch)
        transpose = jax.jit(lambda a: jnp.transpose(a, axes))
        ms, _ = host_ms(lambda: transpose(x), reps, batch)
        # Compared in JAX: DLPack from PyTorch into JAX is the direction this script already
        # relies on for the input.
        same = jnp.array_equal(to_bytes(jax, transpose(x)), jax.dlpack.from_dlpack(want))
        return dtype, ms, copy_ms, batch, bool(same)


def from_bytes(jax, raw, dtype, shape):
    """The array of `dtype` and `shape` whose bytes are the uint8 array `raw` (little-endian)."""
    jnp, lax = jax.numpy, jax.lax
    size = jnp.dtype(dtype).itemsize
    if jnp.issubdtype(dtype, jnp.complexfloating):
        half = jnp.float64 if size == 16 else jnp.float32  # XLA bitcasts no complex type
        parts = lax.bitcast_convert_type(raw.reshape(-1, 2, size // 2), half)
        return lax.complex(parts[:, 0], parts[:, 1]).reshape(shape)
    if size == 1:
        return lax.bitcast_convert_type(raw, dtype).reshape(shape)
    return lax.bitcast_convert_type(raw.reshape(-1, size), dtype).reshape(shape)


def to_bytes(jax, y):
    """The bytes of `y` in memory order, as a flat uint8 array."""
    jnp, lax = jax.numpy, jax.lax
    if jnp.issubdtype(y.dtype, jnp.complexfloating):
        y = jnp.stack([jnp.real(y), jnp.imag(y)], axis=-1)
    return lax.bitcast_convert_type(y, jnp.uint8).reshape(-1)


class Buffers:
    """Random input bytes and an output, allocated once at the largest case in bytes."""

    def __init__(self, torch, max_bytes):
        self.torch = torch
        self.inp = torch.empty(max_bytes, dtype=torch.uint8, device="cuda")
        self.inp.random_(0, 256)
        self.out = torch.empty(max_bytes, dtype=torch.uint8, device="cuda")

    def raw_in(self, case):
        return self.inp[:volume(case.extents) * case.elem]

    def typed_in(self, case, dtype):
        return self.raw_in(case).view(getattr(self.torch, dtype))

    def raw_out(self, case):
        return self.out[:volume(case.extents) * case.elem]

    def typed_out(self, case, dtype):
        return self.raw_out(case).view(getattr(self.torch, dtype))

    def want(self, case, shape, axes):
        """The transposed bytes, moved as whole elements of case.elem bytes by PyTorch."""
        x = self.raw_in(case).view(shape + [case.elem])
        return x.permute(axes + [len(shape)]).contiguous().reshape(-1)


def load_frameworks(names):
    import torch
    out = []
    for name in names:
        try:
            if name == "torch":
                out.append(Torch(torch))
            elif name == "xpose-py":
                import xpose
                out.append(XposePy(torch, xpose))
            elif name == "cupy":
                import cupy
                out.append(Cupy(torch, cupy))
            elif name == "jax":
                import jax
                import jax.dlpack  # noqa: F401  (not imported by `import jax` in every version)
                out.append(Jax(torch, jax))
            else:
                raise SystemExit(f"bench_frameworks: --frameworks: unknown '{name}' "
                                 "(xpose-py, torch, cupy, jax)")
        except ImportError as e:
            print(f"bench_frameworks: {name} unavailable ({e}); skipping it", file=sys.stderr)
    return torch, out


def run_case(bufs, frameworks, case, dtype, reps, batch=None):
    """One row per framework: its times (`batch` calls per timed batch, None: by the copy's
    time) and whether its result has the bytes of `want`, or the error that stopped it."""
    shape, axes = numpy_order(case.extents, case.perm)
    want = bufs.want(case, shape, axes)
    rows = []
    for fw in frameworks:
        row = dict(framework=fw.name, suite=case.suite, case=case.name, elem=case.elem,
                   dtype=dtype, ms=0.0, copy_ms=0.0, ratio=0.0, batch=0, ok=0, error="")
        try:
            ran, ms, copy_ms, ran_batch, same = fw.run(bufs, case, shape, axes, dtype, reps,
                                                        batch, want)
            row.update(dtype=ran, ms=ms, copy_ms=copy_ms, ratio=copy_ms / ms, batch=ran_batch,
                       ok=int(same))
        except Exception as e:  # a dtype or shape a framework cannot do: reported, not fatal
            row["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:200]
        rows.append(row)
        print(f"{fw.name:5s} {case.suite} {case.name:18s} {row['dtype']:13s} {row['ms']:9.4f} ms "
              f" copy {row['copy_ms']:9.4f} ms  ratio {row['ratio']:.3f}"
              f"{'' if row['ok'] else '  ' + (row['error'] or 'WRONG')}", file=sys.stderr)
    return rows


def ratio_stats(ratios):
    """(median, 10th percentile (nearest rank, as xpose bench), worst) of copy ratios."""
    r = sorted(ratios)
    if not r:
        return 0.0, 0.0, 0.0
    return statistics.median(r), r[max(0, math.ceil(len(r) / 10) - 1)], r[0]


def read_xpose_csv(path):
    """xpose's rows (`xpose bench --csv`) as this script's rows, failed cases with ok = 0."""
    with open(path, newline="") as f:
        return [dict(framework="xpose", suite=r["suite"], case=r["case"], elem=int(r["elem"]),
                     ms=float(r["ms"]), ratio=float(r["ratio"]),
                     ok=int(not r["plan"].startswith("FAILED")), error="")
                for r in csv.DictReader(f)]


def print_summary(rows):
    """Median / p10 / worst ratio per framework and suite, and per element size under a suite
    that mixes them; failed and wrong cases are counted, not ranked."""
    print("| framework | suite        | elem | cases | median |    p10 |  worst | wrong | failed |")
    print("|-----------|--------------|-----:|------:|-------:|-------:|-------:|------:|-------:|")
    groups = {}
    for r in rows:
        groups.setdefault((r["framework"], r["suite"]), {}).setdefault(int(r["elem"]), []).append(r)
    for (framework, suite), by_elem in groups.items():
        lines = [(str(e), rs) for e, rs in sorted(by_elem.items())]
        if len(lines) > 1:
            lines.insert(0, ("all", [r for _, rs in lines for r in rs]))
        for elem, rs in lines:
            med, p10, worst = ratio_stats(r["ratio"] for r in rs if r["ok"])
            wrong = sum(1 for r in rs if not r["ok"] and not r["error"])
            failed = sum(1 for r in rs if r["error"])
            print(f"| {framework:9s} | {suite:12s} | {elem:>4s} | {len(rs):5d} | {med:6.3f} |"
                  f" {p10:6.3f} | {worst:6.3f} | {wrong:5d} | {failed:6d} |")


def read_cases(path, elem):
    """{suite: cases} of a file of `xpose bench SUITE --list` lines, in the file's order."""
    suites = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                case = parse_case(line, elem)
                suites.setdefault(case.suite, []).append(case)
    return suites


def plot(rows, path):
    """Median (bar) and 10th percentile (tick) copy ratio per framework, for each suite and
    element size: PNG at `path`."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = sorted({(r["suite"], int(r["elem"])) for r in rows})
    names = list(dict.fromkeys(r["framework"] for r in rows))
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(groups) * len(names) / 2), 4))
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        meds, p10s = [], []
        for suite, elem in groups:
            med, p10, _ = ratio_stats(r["ratio"] for r in rows if r["framework"] == name and
                                      r["ok"] and r["suite"] == suite and int(r["elem"]) == elem)
            meds.append(med)
            p10s.append(p10)
        xs = [g + k * width for g in range(len(groups))]
        ax.bar(xs, meds, width, label=name)
        ax.plot(xs, p10s, "k_", markersize=8)
    ax.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))])
    ax.set_xticklabels([f"{s}\n{e} B" for s, e in groups])
    ax.axhline(1.0, color="gray", linewidth=0.5)
    ax.set_ylabel("copy time / transposition time")
    ax.set_title("median (bar), 10th percentile (tick)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def print_xpose_shares(rows, xpose_rows):
    """Per framework: of the cases both ran correctly, how many xpose does at least as fast,
    by copy ratio (each against its own same-run copy) and by time."""
    mine = {(r["suite"], r["case"]): r for r in xpose_rows if r["ok"]}
    for name in dict.fromkeys(r["framework"] for r in rows):
        pairs = [(mine[(r["suite"], r["case"])], r) for r in rows
                 if r["framework"] == name and r["ok"] and (r["suite"], r["case"]) in mine]
        if not pairs:
            print(f"xpose against {name}: no case in both")
            continue
        by_ratio = sum(1 for x, r in pairs if x["ratio"] >= r["ratio"])
        by_time = sum(1 for x, r in pairs if x["ms"] <= r["ms"])
        print(f"xpose at least as fast as {name}: {by_ratio} of {len(pairs)} cases by copy ratio "
              f"({by_ratio / len(pairs):.0%}), {by_time} by time ({by_time / len(pairs):.0%})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--xpose", default="build/tools/xpose", help="the xpose command")
    ap.add_argument("--suite", action="append", help="suite name (repeatable); default quick")
    ap.add_argument("--limit", type=int, default=0, help="cases spread evenly over each suite")
    ap.add_argument("--seed", type=int, help="the fresh suite's seed (xpose bench --seed)")
    ap.add_argument("--elem", type=int, default=8, help="element size of cases without their own")
    ap.add_argument("--dtype", action="append",
                    help=f"dtype for the cases of its size (repeatable): {', '.join(DTYPE_SIZES)}")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--single", action="store_true",
                    help="time one call per event pair (JAX: per wait), never batches: the "
                    "single-call columns of xpose bench --latency")
    ap.add_argument("--frameworks", default="torch,cupy,jax",
                    help="of xpose-py (the Python package), torch, cupy, jax")
    ap.add_argument("--cases", help="a file of `xpose bench SUITE --list` lines to run instead "
                    "of the --suite options")
    ap.add_argument("--png", help="draw the summary's medians and 10th percentiles here")
    ap.add_argument("--csv", help="write " + ",".join(FIELDS) + " (a row as each case ends)")
    ap.add_argument("--xpose-csv", help="`xpose bench --csv` of the same cases, to compare")
    args = ap.parse_args()

    dtypes = case_dtypes(args.dtype)
    torch, frameworks = load_frameworks(args.frameworks.split(","))
    out = open(args.csv, "w", newline="") if args.csv else None
    writer = csv.DictWriter(out, fieldnames=FIELDS) if out else None
    if writer:
        writer.writeheader()
    rows = []
    suites = read_cases(args.cases, args.elem) if args.cases else {
        suite: list_cases(args.xpose, suite, args.elem, args.limit, args.seed)
        for suite in args.suite or ["quick"]}
    for cases in suites.values():
        if not cases:
            continue
        bufs = Buffers(torch, max(volume(c.extents) * c.elem for c in cases))
        for case in cases:
            for row in run_case(bufs, frameworks, case, dtypes[case.elem], args.reps,
                                1 if args.single else None):
                rows.append(row)
                if writer:
                    writer.writerow(row)
                    out.flush()
        del bufs
    if out:
        out.close()
    xpose_rows = read_xpose_csv(args.xpose_csv) if args.xpose_csv else []
    listed = {(r["suite"], r["case"]) for r in rows}
    print_summary([r for r in xpose_rows if (r["suite"], r["case"]) in listed] + rows)
    if xpose_rows:
        print_xpose_shares(rows, xpose_rows)
    if args.png:
        plot(rows, args.png)
    return 1 if any(not r["ok"] and not r["error"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
