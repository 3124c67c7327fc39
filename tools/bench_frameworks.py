#!/usr/bin/env python3
"""Time PyTorch and CuPy on the cases of an `xpose bench` suite, on the GPU.

The cases come from `xpose bench SUITE --list` (lines "SUITE CASE EXTENTS PERM", column-major:
extents[0] is stride-1, output dimension i is input dimension perm[i]). numpy/PyTorch order is
the reverse, so a case becomes shape = reversed(extents) and axes[i] = r-1-perm[r-1-i].

Each case: PyTorch `out.copy_(x.permute(axes))` into a preallocated output, CuPy
`cupy.ascontiguousarray(x.transpose(axes))` (which allocates from CuPy's pool, as users call it),
and a same-run copy baseline (`out.copy_(x)` of the same bytes, a device-to-device memcpy). Times
are medians of --reps runs after a warm-up, each run between two CUDA events. The ratio is
copy time / transposition time, as in `xpose bench` (> 1: faster than a copy).

    python3 tools/bench_frameworks.py --xpose build/tools/xpose --suite quick --suite cutt-random \
        --csv frameworks.csv
"""
import argparse
import csv
import statistics
import subprocess
import sys


def list_cases(xpose, suite, elem, limit):
    cmd = [xpose, "bench", suite, "--list", "--elem", str(elem)]
    if limit:
        cmd += ["--limit", str(limit)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    cases = []
    for line in out.splitlines():
        words = line.split()
        if len(words) != 4:
            continue
        suite_name, name, extents, perm = words
        cases.append((suite_name, name, [int(e) for e in extents.split(",")],
                      [int(p) for p in perm.split(",")]))
    return cases


def numpy_order(extents, perm):
    """Column-major (extents, perm) as a row-major shape and numpy.transpose axes."""
    r = len(extents)
    shape = list(reversed(extents))
    axes = [r - 1 - perm[r - 1 - i] for i in range(r)]
    return shape, axes


def volume(shape):
    v = 1
    for e in shape:
        v *= e
    return v


def time_events(torch, fn, reps):
    """Median milliseconds of fn() between CUDA events, after two warm-up calls."""
    fn()
    fn()
    pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
             for _ in range(reps)]
    for start, end in pairs:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) for start, end in pairs)


class Frameworks:
    def __init__(self, names, elem):
        import torch
        self.torch = torch
        self.cupy = None
        if "cupy" in names:
            try:
                import cupy
                self.cupy = cupy
            except ImportError as e:
                print(f"bench_frameworks: cupy unavailable ({e}); skipping it", file=sys.stderr)
        self.names = [n for n in names if n == "torch" or (n == "cupy" and self.cupy)]
        dtypes = {1: torch.uint8, 2: torch.float16, 4: torch.float32, 8: torch.float64,
                  16: torch.complex128}
        if elem not in dtypes:
            raise SystemExit(f"bench_frameworks: --elem {elem} is not one of 1, 2, 4, 8, 16")
        self.dtype = dtypes[elem]
        self.elem = elem

    def buffers(self, max_elems):
        """Random input and an output, allocated once at the suite's largest size."""
        torch = self.torch
        raw = torch.empty(max_elems * self.elem, dtype=torch.uint8, device="cuda")
        raw.random_(0, 256)
        self.inp = raw.view(self.dtype)
        self.out = torch.empty(max_elems, dtype=self.dtype, device="cuda")

    def run_case(self, shape, axes, reps):
        torch = self.torch
        n = volume(shape)
        x = self.inp[:n].view(shape)
        out_shape = [shape[a] for a in axes]
        out = self.out[:n].view(out_shape)
        results = {}
        copy_ms = time_events(torch, lambda: self.out[:n].copy_(self.inp[:n]), reps)
        # Checked once as bytes (random bytes make NaNs, which == would reject).
        want = x.permute(axes).contiguous().view(torch.uint8)
        if "torch" in self.names:
            ms = time_events(torch, lambda: out.copy_(x.permute(axes)), reps)
            ok = torch.equal(out.view(torch.uint8), want)
            results["torch"] = (ms, ok)
        if "cupy" in self.names:
            cp = self.cupy
            xc = cp.asarray(x)
            holder = {}

            def run():
                holder["y"] = cp.ascontiguousarray(xc.transpose(axes))

            ms = time_events(torch, run, reps)
            got = torch.as_tensor(holder["y"], device="cuda").view(torch.uint8)
            results["cupy"] = (ms, torch.equal(got, want))
        return copy_ms, results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--xpose", default="build/tools/xpose", help="the xpose command")
    ap.add_argument("--suite", action="append", help="suite name (repeatable); default quick")
    ap.add_argument("--limit", type=int, default=0, help="cases spread evenly over each suite")
    ap.add_argument("--elem", type=int, default=8)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--frameworks", default="torch,cupy")
    ap.add_argument("--csv", help="write framework,suite,case,elem,ms,copy_ms,ratio,ok")
    args = ap.parse_args()

    fw = Frameworks(args.frameworks.split(","), args.elem)
    # CuPy and PyTorch both run on the legacy default stream, so the events time the work.
    rows = []
    for suite in args.suite or ["quick"]:
        cases = list_cases(args.xpose, suite, args.elem, args.limit)
        if not cases:
            continue
        fw.buffers(max(volume(c[2]) for c in cases))
        for suite_name, name, extents, perm in cases:
            shape, axes = numpy_order(extents, perm)
            copy_ms, results = fw.run_case(shape, axes, args.reps)
            for framework, (ms, ok) in results.items():
                rows.append(dict(framework=framework, suite=suite_name, case=name, elem=args.elem,
                                 ms=ms, copy_ms=copy_ms, ratio=copy_ms / ms, ok=int(ok)))
                print(f"{framework:6s} {suite_name} {name:14s} {ms:9.4f} ms  copy {copy_ms:9.4f} ms"
                      f"  ratio {copy_ms / ms:.3f}{'' if ok else '  WRONG'}", file=sys.stderr)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["framework"])
            w.writeheader()
            w.writerows(rows)
    print_summary(rows)
    return 1 if any(not r["ok"] for r in rows) else 0


def print_summary(rows):
    print("| framework | suite        | cases | median |    p10 |  worst | wrong |")
    print("|-----------|--------------|------:|-------:|-------:|-------:|------:|")
    groups = {}
    for r in rows:
        groups.setdefault((r["framework"], r["suite"]), []).append(r)
    for (framework, suite), rs in groups.items():
        ratios = sorted(r["ratio"] for r in rs)
        p10 = ratios[max(0, -(-len(ratios) // 10) - 1)]
        wrong = sum(1 for r in rs if not r["ok"])
        print(f"| {framework:9s} | {suite:12s} | {len(rs):5d} | {statistics.median(ratios):6.3f} |"
              f" {p10:6.3f} | {ratios[0]:6.3f} | {wrong:5d} |")


if __name__ == "__main__":
    sys.exit(main())
