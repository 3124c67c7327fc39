#!/usr/bin/env python3
"""Plots `xpose bench-inplace --csv` results (docs/perf/inplace-h100.md).

Writes, per element size, a heat map of V1B bandwidth over (n, band width w) like Gorawski &
Lorek's Figs. 12-13, and a line plot of every scheme's ratio to cudaMemcpy against n; prints
the best w per n and the issue's targets (>= 0.85 of copy for n >= 8192, < 5% decline from
8 GB to the largest size) for the chosen w.

usage: plot_inplace.py results.csv [--out-prefix inplace-h100] [--w W]
"""
import argparse
import collections
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("elem", "n", "bytes", "w", "region"):
            r[k] = int(r[k])
        for k in ("ms", "gbs", "copy_ms", "copy_gbs", "ratio"):
            r[k] = float(r[k])
    return rows


def label(r):
    return {"v1b": f"v1b w={r['w']}", "sg": f"sg region={r['region']}"}.get(r["scheme"], r["scheme"])


def heat_map(rows, elem, prefix):
    band = [r for r in rows if r["elem"] == elem and r["scheme"] == "v1b"]
    ns = sorted({r["n"] for r in band})
    ws = sorted({r["w"] for r in band})
    grid = [[float("nan")] * len(ns) for _ in ws]
    for r in band:
        grid[ws.index(r["w"])][ns.index(r["n"])] = r["gbs"]
    fig, ax = plt.subplots(figsize=(1.0 + 0.7 * len(ns), 1.0 + 0.5 * len(ws)))
    im = ax.imshow(grid, aspect="auto", origin="lower", cmap="inferno")
    ax.set_xticks(range(len(ns)), [str(n) for n in ns], rotation=60)
    ax.set_yticks(range(len(ws)), [str(w) for w in ws])
    ax.set_xlabel("n (matrix order)")
    ax.set_ylabel("V1B band width w (tiles)")
    ax.set_title(f"in-place V1B, {elem}-byte elements: GB/s (read + write)")
    for i in range(len(ws)):
        for j in range(len(ns)):
            ax.text(j, i, f"{grid[i][j]:.0f}", ha="center", va="center", fontsize=6, color="cyan")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    path = f"{prefix}-heat-{elem}B.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def lines(rows, elem, prefix):
    series = collections.defaultdict(list)
    for r in rows:
        if r["elem"] == elem:
            series[label(r)].append((r["n"], r["ratio"]))
    fig, ax = plt.subplots(figsize=(9, 5))
    for name, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=name, linewidth=1)
    ax.axhline(0.85, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (matrix order)")
    ax.set_ylabel("copy time / in-place time")
    ax.set_title(f"in-place square transposition, {elem}-byte elements, vs cudaMemcpy")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    path = f"{prefix}-schemes-{elem}B.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def targets(rows, elem, w):
    chosen = sorted((r for r in rows if r["elem"] == elem and r["scheme"] == "v1b" and r["w"] == w),
                    key=lambda r: r["n"])
    if not chosen:
        print(f"{elem} B: no V1B rows with w = {w}")
        return
    big = [r for r in chosen if r["n"] >= 8192]
    worst = min(big, key=lambda r: r["ratio"]) if big else None
    ref = next((r for r in chosen if r["bytes"] >= 8e9), None)
    last = chosen[-1]
    print(f"{elem} B, V1B w = {w}:")
    if worst:
        print(f"  min ratio for n >= 8192: {worst['ratio']:.3f} at n = {worst['n']} "
              f"({'meets' if worst['ratio'] >= 0.85 else 'misses'} >= 0.85)")
    if ref:
        decline = 1 - last["gbs"] / ref["gbs"]
        print(f"  {ref['gbs']:.0f} GB/s at n = {ref['n']} ({ref['bytes'] / 1e9:.1f} GB) -> "
              f"{last['gbs']:.0f} GB/s at n = {last['n']} ({last['bytes'] / 1e9:.1f} GB): "
              f"decline {100 * decline:.1f}% ({'meets' if decline < 0.05 else 'misses'} < 5%)")


def best_w(rows, elem):
    by_n = collections.defaultdict(list)
    for r in rows:
        if r["elem"] == elem and r["scheme"] == "v1b":
            by_n[r["n"]].append(r)
    print(f"{elem} B: best V1B w per n (GB/s, ratio)")
    for n in sorted(by_n):
        b = max(by_n[n], key=lambda r: r["gbs"])
        print(f"  n {n:6d}: w {b['w']:4d}  {b['gbs']:7.1f} GB/s  ratio {b['ratio']:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--out-prefix", default="inplace-h100")
    ap.add_argument("--w", type=int, default=8, help="the band width whose targets are checked")
    args = ap.parse_args()
    rows = load(args.csv)
    for elem in sorted({r["elem"] for r in rows}):
        print("wrote", heat_map(rows, elem, args.out_prefix), lines(rows, elem, args.out_prefix))
        best_w(rows, elem)
        targets(rows, elem, args.w)


if __name__ == "__main__":
    main()
