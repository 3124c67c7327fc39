#!/usr/bin/env python3
"""Time PyTorch, JAX and xpose's Python package on typed cases of an `xpose bench` suite (GPU):
a change of element type on the way (--in-dtype, --out-dtype), accumulation into the output
(--beta), padded sub-tensors (--pad), as `xpose bench SUITE --type T --out-type U --beta B
--pad N` times xpose itself.

Per case and framework (tools/bench_frameworks.py gives the case recipes, orders and timing):
- PyTorch: `out.copy_(x.permute(axes).to(out_dtype))`; with beta, `out.add_(x.permute(axes).to(
  out_dtype))` for beta = 1, else `out.mul_(beta).add_(...)` (two passes: PyTorch has no fused
  form).
- JAX: `jnp.transpose(x, axes).astype(out_dtype) (+ beta * y)` under `jax.jit` (a new array: JAX
  arrays are immutable, so a padded output is written dense; a padded input is sliced inside the
  jitted function).
- xpose-py: `xpose.transpose(x, axes, out=out, dtype=out_dtype, beta=beta)` on the same views.
Padding: every extent of both tensors gets 1..N elements before and after (drawn from the case's
name), and the frameworks work on views of the padded buffers (JAX: input only).
The yardstick, as xpose bench's: a same-run copy (uint8, in the framework) of as many bytes as
the transposition reads and writes, halved. Results are checked against PyTorch's (one call into
a zeroed output): bit for bit without beta, to 1e-2 relative with it (JAX may fuse the multiply
and add).

    python3 tools/bench_typed.py --xpose build/tools/xpose --suite cutt-random --limit 16 \\
        --in-dtype float32 --out-dtype bfloat16 --xpose-csv xpose.csv
"""
import argparse
import random
import sys

import bench_frameworks as bf


def pads(case, n, seed):
    """(before, after) per dim of both tensors (column-major dims), 1..n each, 0 when n = 0; n
    falls (to 1 at least) where a tensor would grow more than 4-fold, as in xpose bench."""
    out_ext = [case.extents[p] for p in case.perm]
    for bound in range(n, 0, -1):
        rng = random.Random(f"{case.suite}/{case.name}/{seed}/{bound}")
        pin, pout = ([(rng.randint(1, bound), rng.randint(1, bound)) for _ in case.extents]
                     for _ in range(2))
        grown = max(bf.volume([e + b + a for e, (b, a) in zip(ext, p)])
                    for ext, p in ((case.extents, pin), (out_ext, pout)))
        if grown <= 4 * bf.volume(case.extents):
            break
    return (pin, pout) if n else ([(0, 0)] * len(case.extents),) * 2


def padded_view(torch, flat, shape, pad):
    """A view of `shape` (row-major) inside `flat` holding the padded tensor."""
    full = [s + b + a for s, (b, a) in zip(shape, pad)]
    big = flat[:bf.volume(full)].view(full)
    return big[tuple(slice(b, b + s) for s, (b, _) in zip(shape, pad))]


class Case:
    """One case's tensors as views of shared flat buffers, and the bytes it moves."""

    def __init__(self, torch, bufs, case, args):
        self.shape, self.axes = bf.numpy_order(case.extents, case.perm)
        self.out_shape = [self.shape[a] for a in self.axes]
        pin, pout = pads(case, args.pad, args.seed)
        pin, pout = list(reversed(pin)), list(reversed(pout))  # row-major dims
        self.pin = pin
        self.idt, self.odt = getattr(torch, args.in_dtype), getattr(torch, args.out_dtype)
        flat_in = bufs["in"].view(self.idt)
        flat_out = bufs["out"].view(self.odt)
        self.x = padded_view(torch, flat_in, self.shape, pin)
        self.out = padded_view(torch, flat_out, self.out_shape, pout)
        n = bf.volume(self.shape)
        isz, osz = self.x.element_size(), self.out.element_size()
        self.copy_bytes = (n * isz + n * osz * (2 if args.beta else 1)) // 2
        self.big_in = flat_in[:bf.volume([s + b + a for s, (b, a) in zip(self.shape, pin)])]


class Torch:
    name = "torch"

    def __init__(self, torch, args):
        self.torch, self.beta = torch, args.beta

    def call(self, c):
        x, out, odt, axes, beta = c.x, c.out, c.odt, c.axes, self.beta
        if not beta:
            return lambda: out.copy_(x.permute(axes).to(odt))
        if beta == 1:
            return lambda: out.add_(x.permute(axes).to(odt))
        return lambda: out.mul_(beta).add_(x.permute(axes).to(odt))

    def run(self, c, reps):
        return bf.timed_events(self.torch, self.call(c), reps)[0]


class XposePy:
    name = "xpose-py"

    def __init__(self, torch, xpose, args):
        self.torch, self.xpose, self.beta = torch, xpose, args.beta

    def call(self, c):
        return lambda: self.xpose.transpose(c.x, c.axes, out=c.out, dtype=c.odt, beta=self.beta)

    def run(self, c, reps):
        return bf.timed_events(self.torch, self.call(c), reps)[0]


class Jax:
    name = "jax"

    def __init__(self, torch, jax, args):
        self.torch, self.jax, self.beta = torch, jax, args.beta
        self.args = args
        jax.config.update("jax_enable_x64", True)

    def run(self, c, reps):
        jax, jnp = self.jax, self.jax.numpy
        big = jax.dlpack.from_dlpack(c.big_in)
        full = [s + b + a for s, (b, a) in zip(c.shape, c.pin)]
        sl = tuple(slice(b, b + s) for s, (b, _) in zip(c.shape, c.pin))
        odt, axes, beta = getattr(jnp, self.args.out_dtype), c.axes, self.beta
        y = jnp.zeros(c.out_shape, odt)
        if beta:
            f = jax.jit(lambda a, o: jnp.transpose(a.reshape(full)[sl], axes).astype(odt) +
                        jnp.asarray(beta, odt) * o)
            run = lambda: f(big, y)
        else:
            f = jax.jit(lambda a: jnp.transpose(a.reshape(full)[sl], axes).astype(odt))
            run = lambda: f(big)
        self.last = run
        return bf.host_ms(run, reps)[0]

    def result(self, torch):
        return torch.from_dlpack(self.last())


def copy_ms(torch, bufs, nbytes, reps, host=None):
    """A same-run copy of nbytes (uint8), timed as the framework times itself."""
    src, dst = bufs["in"][:nbytes], bufs["out"][:nbytes]
    if host is None:
        return bf.timed_events(torch, lambda: dst.copy_(src), reps)[0]
    jax = host
    a = jax.dlpack.from_dlpack(src)
    copy = jax.jit(jax.numpy.copy)
    return bf.host_ms(lambda: copy(a), reps)[0]


def check(torch, got, want, beta):
    if not beta:
        return torch.equal(got.view(torch.uint8), want.view(torch.uint8))
    return torch.allclose(got.double(), want.double(), rtol=1e-2, atol=1e-30, equal_nan=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--xpose", default="build/tools/xpose", help="the xpose command (case lists)")
    ap.add_argument("--suite", action="append", help="suite name (repeatable); default cutt-random")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0, help="the padding's seed")
    ap.add_argument("--in-dtype", default="float32")
    ap.add_argument("--out-dtype", help="default: --in-dtype")
    ap.add_argument("--beta", type=float, default=0.0)
    ap.add_argument("--pad", type=int, default=0)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--frameworks", default="torch,jax,xpose-py")
    ap.add_argument("--xpose-csv", help="`xpose bench --csv` of the same cases, to compare")
    args = ap.parse_args()
    args.out_dtype = args.out_dtype or args.in_dtype

    import torch
    fws = []
    for name in args.frameworks.split(","):
        try:
            if name == "torch":
                fws.append(Torch(torch, args))
            elif name == "xpose-py":
                import xpose
                fws.append(XposePy(torch, xpose, args))
            elif name == "jax":
                import jax
                import jax.dlpack  # noqa: F401
                fws.append(Jax(torch, jax, args))
            else:
                raise SystemExit(f"bench_typed: unknown framework '{name}'")
        except ImportError as e:
            print(f"bench_typed: {name} unavailable ({e}); skipping it", file=sys.stderr)
    isz = torch.empty(0, dtype=getattr(torch, args.in_dtype)).element_size()
    rows = []
    for suite in args.suite or ["cutt-random"]:
        cases = bf.list_cases(args.xpose, suite, isz, args.limit, None)
        if not cases:
            continue
        grow = lambda c: max(bf.volume([e + b + a for e, (b, a) in zip(ext, p)])
                             for ext, p in zip((c.extents, [c.extents[q] for q in c.perm]),
                                               pads(c, args.pad, args.seed)))
        nbytes = max(grow(c) for c in cases) * 16
        bufs = {"in": torch.empty(nbytes, dtype=torch.uint8, device="cuda").random_(0, 256),
                "out": torch.empty(nbytes, dtype=torch.uint8, device="cuda")}
        if args.in_dtype.startswith("float") or args.in_dtype.startswith("bfloat"):
            v = bufs["in"].view(getattr(torch, args.in_dtype))  # finite values, both signs
            v.copy_(torch.randn(v.numel(), device="cuda").to(v.dtype))
        for case in cases:
            c = Case(torch, bufs, case, args)
            c.out.zero_()
            Torch(torch, args).call(c)()  # the reference: one call into a zeroed output
            want = c.out.contiguous().clone()
            for fw in fws:
                row = dict(framework=fw.name, suite=case.suite, case=case.name, elem=isz,
                           ms=0.0, ratio=0.0, ok=0, error="")
                try:
                    c.out.zero_()
                    ms = fw.run(c, args.reps)
                    base = copy_ms(torch, bufs, c.copy_bytes, args.reps,
                                   fw.jax if fw.name == "jax" else None)
                    if fw.name == "jax":
                        got = fw.result(torch)
                    else:  # timing ran many calls (with beta, they accumulated): one more
                        c.out.zero_()
                        fw.call(c)()
                        got = c.out.contiguous()
                    ok = check(torch, got, want, args.beta)
                    row.update(ms=ms, ratio=base / ms, ok=int(ok))
                except Exception as e:  # noqa: BLE001  (a case a framework cannot do)
                    row["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:200]
                rows.append(row)
                print(f"{fw.name:8s} {case.name:18s} {row['ms']:9.4f} ms ratio {row['ratio']:.3f}"
                      f"{'' if row['ok'] else '  ' + (row['error'] or 'WRONG')}", file=sys.stderr)
        del bufs
    xpose_rows = bf.read_xpose_csv(args.xpose_csv) if args.xpose_csv else []
    listed = {(r["suite"], r["case"]) for r in rows}
    print(f"{args.in_dtype} -> {args.out_dtype}, beta {args.beta}, pad {args.pad}")
    bf.print_summary([r for r in xpose_rows if (r["suite"], r["case"]) in listed] + rows)
    if xpose_rows:
        bf.print_xpose_shares(rows, xpose_rows)
    return 1 if any(not r["ok"] and not r["error"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
