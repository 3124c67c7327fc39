#!/usr/bin/env python3
"""What the Python package adds to a call: host time per call of a cached plan from Python
(xpose.Plan's p(x, out) and xpose.transpose(x, axes, out=out), allocation-free) against the C
call (xpose_execute in a C++ loop, the extension's Plan.time_execute), on small arrays where the
work itself is short. On CUDA the calls are enqueued in batches of --batch, waited for outside
the timed region (the launch queue never fills), and each time is the median over --reps batches.

    PYTHONPATH=build/python python3 tools/py_overhead.py            # numpy (CPU), torch (GPU)
"""
import argparse
import statistics
import time

import numpy as np

import xpose


def per_call(fn, batch, reps, sync):
    samples = []
    for _ in range(reps + 2):
        sync()
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter() - t0) / batch)
        sync()
    return statistics.median(samples[2:]) * 1e6


def measure(label, x, out, axes, stream, batch, reps, sync, extra=()):
    p = xpose.Plan(x.shape, axes, x.dtype, device="cuda" if stream is not None else "cpu")
    core = p._plan
    s = stream or 0
    c_us = statistics.median(core.time_execute(x, out, s, batch) / batch * 1e6
                             for _ in range(reps))
    rows = [("C xpose_execute", c_us),
            ("Plan.__call__(x, out)", per_call(lambda: p(x, out), batch, reps, sync)),
            ("transpose(x, axes, out=out)",
             per_call(lambda: xpose.transpose(x, axes, out=out), batch, reps, sync)),
            ("transpose(x, axes)", per_call(lambda: xpose.transpose(x, axes), batch, reps, sync))]
    rows += [(name, per_call(fn, batch, reps, sync)) for name, fn in extra]
    print(f"\n{label}: shape {tuple(x.shape)} axes {axes}")
    print("| call | us per call | over the C call |")
    print("|------|------------:|----------------:|")
    for name, us in rows:
        print(f"| {name} | {us:.2f} | {us - c_us:+.2f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--reps", type=int, default=50)
    args = ap.parse_args()
    x = np.random.default_rng(1).standard_normal((16, 8, 4)).astype(np.float32)
    out = np.empty((4, 16, 8), np.float32)
    measure("numpy, CPU backend", x, out, (2, 0, 1), None, args.batch, args.reps, lambda: None,
            [("numpy.ascontiguousarray(x.transpose)",
              lambda: np.ascontiguousarray(x.transpose(2, 0, 1)))])
    try:
        import torch
    except ImportError:
        return
    if not torch.cuda.is_available():
        return
    tx = torch.randn(64, 32, 16, device="cuda")
    tout = torch.empty(16, 64, 32, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    measure("torch, CUDA backend", tx, tout, (2, 0, 1), stream, args.batch, args.reps,
            torch.cuda.synchronize,
            [("torch out.copy_(x.permute)", lambda: tout.copy_(tx.permute(2, 0, 1))),
             ("torch x.permute().contiguous()", lambda: tx.permute(2, 0, 1).contiguous())])


if __name__ == "__main__":
    main()
