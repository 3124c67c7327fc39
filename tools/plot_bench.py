#!/usr/bin/env python3
"""Charts from `xpose bench --csv` files (and tools/bench_frameworks.py's CSV), as PNG.

    plot_bench.py ratio bench.csv [-o ratio.png]
        copy ratio of every case, grouped by the rank left after index fusion (TTLG Fig. 6
        style), one panel per suite
    plot_bench.py planning heuristic.csv measured.csv [-o planning.png]
        heuristic vs measure planning, case by case
    plot_bench.py frameworks bench.csv frameworks.csv [-o frameworks.png]
        xpose vs PyTorch / CuPy / JAX: median and 10th-percentile ratio per suite
    plot_bench.py dtypes bench.csv frameworks.csv [-o dtypes.png]
        xpose vs JAX / PyTorch / CuPy per element size: a box per framework over the cases of
        each size (whiskers 5th-95th percentile), every case a dot (`xpose bench dtypes`); every
        framework against the cudaMemcpy time of xpose's run (cases in both CSVs)
    plot_bench.py sizes LABEL=sizes.csv ... [-o sizes.png]
        `xpose bench sizes --latency` CSVs (or any CSV with case, bytes or a size in the case
        name, and batched/single/graph times with their copies): per timing mode, the ratio to
        the same run's copy against the tensor size, every case a dot, the median per size a line

The ratio is copy time / transposition time: 1 is copy speed, higher is faster.
"""
import argparse
import csv
import random
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fused_rank(row):
    """Rank after fusion, from the 'normalized' column: 'normalized extents (a,b) perm (1,0) ...'."""
    m = re.search(r"perm \(([^)]*)\)", row.get("normalized") or row.get("plan") or "")
    if not m:
        return None
    return len([p for p in m.group(1).split(",") if p.strip()])


def ok_rows(rows):
    return [r for r in rows if not r.get("plan", "").startswith("FAILED") and float(r["ms"]) > 0]


def by_suite(rows):
    suites = {}
    for r in rows:
        suites.setdefault(r["suite"], []).append(r)
    return suites


def plot_ratio(args):
    suites = by_suite(ok_rows(read_rows(args.csv)))
    if not suites:
        sys.exit("plot_bench: no successful cases in " + args.csv)
    fig, axes = plt.subplots(len(suites), 1, figsize=(12, 3.2 * len(suites)), squeeze=False)
    for ax, (suite, rows) in zip(axes[:, 0], suites.items()):
        groups = {}
        for r in rows:
            groups.setdefault(fused_rank(r), []).append(float(r["ratio"]))
        x = 0
        for rank in sorted(groups, key=lambda k: -1 if k is None else k):
            ratios = sorted(groups[rank])
            xs = range(x, x + len(ratios))
            ax.bar(xs, ratios, width=1.0, label=f"rank {rank}")
            ax.text(x + (len(ratios) - 1) / 2, 0.02,
                    f"rank {rank}\n{len(ratios)}", ha="center", va="bottom", fontsize=7,
                    transform=ax.get_xaxis_transform())
            x += len(ratios) + max(1, len(rows) // 60)
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_title(f"{suite}: {len(rows)} cases, median ratio "
                     f"{statistics.median(float(r['ratio']) for r in rows):.3f}")
        ax.set_ylabel("copy time / time")
        ax.set_xticks([])
    fig.tight_layout()
    fig.savefig(args.output or "ratio.png", dpi=120)


def plot_planning(args):
    heur = {(r["suite"], r["case"]): float(r["ratio"]) for r in ok_rows(read_rows(args.heuristic))}
    meas = {(r["suite"], r["case"]): float(r["ratio"]) for r in ok_rows(read_rows(args.measured))}
    keys = sorted(set(heur) & set(meas))
    if not keys:
        sys.exit("plot_bench: the two CSVs share no successful case")
    print("| suite | cases | heuristic median | measured median | heuristic within 5% of measured "
          "| measured within 5% of heuristic or better |")
    print("|---|---:|---:|---:|---:|---:|")
    for suite in sorted({k[0] for k in keys}):
        ks = [k for k in keys if k[0] == suite]
        near = sum(heur[k] >= 0.95 * meas[k] for k in ks) / len(ks)
        ok = sum(meas[k] >= 0.95 * heur[k] for k in ks) / len(ks)
        print(f"| {suite} | {len(ks)} | {statistics.median(heur[k] for k in ks):.3f} "
              f"| {statistics.median(meas[k] for k in ks):.3f} | {near:.0%} | {ok:.0%} |")
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5))
    for suite in sorted({k[0] for k in keys}):
        ks = [k for k in keys if k[0] == suite]
        left.scatter([heur[k] for k in ks], [meas[k] for k in ks], s=10, label=suite)
    top = max(max(heur[k], meas[k]) for k in keys) * 1.05
    left.plot([0, top], [0, top], color="black", linewidth=0.8)
    left.set_xlabel("heuristic planning: copy ratio")
    left.set_ylabel("measure planning: copy ratio")
    left.legend(fontsize=7)
    gain = sorted(meas[k] / heur[k] for k in keys)
    right.plot(range(len(gain)), gain)
    right.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    right.set_xlabel("cases, sorted")
    right.set_ylabel("measured / heuristic ratio (> 1: measuring helped)")
    right.set_title(f"{len(keys)} cases, median gain {statistics.median(gain):.3f}")
    fig.tight_layout()
    fig.savefig(args.output or "planning.png", dpi=120)


def summary(ratios):
    ratios = sorted(ratios)
    return statistics.median(ratios), ratios[max(0, -(-len(ratios) // 10) - 1)]


def plot_frameworks(args):
    series = {}
    for suite, rows in by_suite(ok_rows(read_rows(args.xpose_csv))).items():
        series.setdefault("xpose", {})[suite] = summary(float(r["ratio"]) for r in rows)
    fw_rows = [r for r in read_rows(args.frameworks_csv) if r.get("ok", "1") == "1"]
    for r in fw_rows:
        series.setdefault(r["framework"], {}).setdefault(r["suite"], []).append(float(r["ratio"]))
    for name, suites in series.items():
        if name != "xpose":
            for suite in suites:
                suites[suite] = summary(suites[suite])
    suites = sorted({s for per in series.values() for s in per})
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(suites)), 4.5))
    for i, (name, per) in enumerate(series.items()):
        xs = [j + i * width for j, s in enumerate(suites) if s in per]
        med = [per[s][0] for s in suites if s in per]
        p10 = [per[s][1] for s in suites if s in per]
        ax.bar(xs, med, width=width, label=f"{name} (median)")
        ax.scatter(xs, p10, marker="_", color="black", s=200, zorder=3,
                   label="10th percentile" if i == 0 else None)
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(suites))])
    ax.set_xticklabels(suites, rotation=20)
    ax.set_ylabel("copy time / time")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output or "frameworks.png", dpi=120)


def ratios_by_elem(rows, name_of):
    """{name: {element size: [copy ratios]}}."""
    out = {}
    for r in rows:
        out.setdefault(name_of(r), {}).setdefault(int(r["elem"]), []).append(float(r["ratio"]))
    return out


def plot_dtypes(args):
    x_rows = ok_rows(read_rows(args.xpose_csv))
    series = ratios_by_elem(x_rows, lambda r: "xpose")
    # One yardstick for all: xpose's cudaMemcpy of the case. A framework's own copy is timed its
    # own way (JAX: host-timed batches of an XLA copy, 15-40 % slower than cudaMemcpy), so its
    # ratio to that copy flatters it.
    copy_ms = {r["case"]: float(r["copy_ms"]) for r in x_rows}
    fw_rows = [dict(r, ratio=copy_ms[r["case"]] / float(r["ms"]))
               for r in read_rows(args.frameworks_csv)
               if r.get("ok", "1") == "1" and r["case"] in copy_ms and float(r["ms"]) > 0]
    series.update(ratios_by_elem(fw_rows, lambda r: r["framework"]))
    elems = sorted({e for per in series.values() for e in per})
    if not elems:
        sys.exit("plot_bench: no successful cases in either CSV")
    width = 0.8 / len(series)
    jitter = random.Random(0)
    fig, ax = plt.subplots(figsize=(max(7, 1.8 * len(elems)), 4.5))
    for i, (name, per) in enumerate(series.items()):
        color = f"C{i}"
        shift = (i - (len(series) - 1) / 2) * width
        pos = [j + shift for j, e in enumerate(elems) if e in per]
        data = [per[e] for e in elems if e in per]
        box = ax.boxplot(data, positions=pos, widths=0.85 * width, whis=(5, 95),
                         showfliers=False, patch_artist=True, medianprops={"color": "black"})
        for patch in box["boxes"]:
            patch.set(facecolor=color, alpha=0.35)
        for p, ratios in zip(pos, data):
            xs = [p + jitter.uniform(-0.3, 0.3) * width for _ in ratios]
            ax.scatter(xs, ratios, s=5, color=color, zorder=3)
        ax.plot([], [], color=color, linewidth=6, alpha=0.6,
                label=f"{name} (median {statistics.median(sum(data, [])):.2f})")
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(elems)))
    ax.set_xticklabels([f"{e}-byte" for e in elems])
    ax.set_xlim(-0.6, len(elems) - 0.4)
    ax.set_ylabel("cudaMemcpy time / time")
    ax.set_title("against xpose's same-run cudaMemcpy of the case, per element size")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output or "dtypes.png", dpi=120)


SIZE_UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def size_of(row):
    if row.get("bytes"):
        return int(row["bytes"])
    m = re.search(r"(\d+)(KiB|MiB|GiB)$", row["case"])
    return int(m.group(1)) * SIZE_UNITS[m.group(2)] if m else None


def sizes_ratios(row):
    """{mode: copy time / time} of one row, from xpose's or another tool's column names."""
    def ratio(copy, time):
        c, t = row.get(copy, ""), row.get(time, "")
        return float(c) / float(t) if c and t and float(t) > 0 else None
    return {"batched (>= 20 calls)": ratio("copy_ms", "ms") or ratio("copy_batched_us", "batched_us"),
            "one call between events": ratio("copy_single_us", "single_us"),
            "CUDA graph replay": ratio("copy_graph_us", "graph_us")}


def plot_sizes(args):
    modes = list(sizes_ratios({"case": ""}).keys())
    fig, axes = plt.subplots(1, len(modes), figsize=(5 * len(modes), 4.2), sharey=True)
    for i, spec in enumerate(args.series):
        label, _, path = spec.partition("=")
        rows = [r for r in read_rows(path) if r.get("ok", "1") in ("1", "") and size_of(r)]
        for ax, mode in zip(axes, modes):
            pts = [(size_of(r), sizes_ratios(r)[mode]) for r in rows]
            pts = [(s, v) for s, v in pts if v]
            if not pts:
                continue
            ax.scatter([s for s, _ in pts], [v for _, v in pts], s=6, color=f"C{i}", alpha=0.5)
            xs = sorted({s for s, _ in pts})
            med = [statistics.median(v for s, v in pts if s == x) for x in xs]
            ax.plot(xs, med, color=f"C{i}", label=label)
    for ax, mode in zip(axes, modes):
        ax.set_xscale("log", base=2)
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_title(mode)
        ax.set_xlabel("tensor bytes")
    axes[0].set_ylabel("copy time / time (same run)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output or "sizes.png", dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="chart", required=True)
    p = sub.add_parser("ratio", help="copy ratio per case, grouped by fused rank")
    p.add_argument("csv")
    p.set_defaults(run=plot_ratio)
    p = sub.add_parser("planning", help="heuristic vs measure planning")
    p.add_argument("heuristic")
    p.add_argument("measured")
    p.set_defaults(run=plot_planning)
    p = sub.add_parser("frameworks", help="xpose vs PyTorch, CuPy and JAX")
    p.add_argument("xpose_csv")
    p.add_argument("frameworks_csv")
    p.set_defaults(run=plot_frameworks)
    p = sub.add_parser("dtypes", help="xpose vs the frameworks per element size")
    p.add_argument("xpose_csv")
    p.add_argument("frameworks_csv")
    p.set_defaults(run=plot_dtypes)
    p = sub.add_parser("sizes", help="ratio to the same run's copy against size, per timing")
    p.add_argument("series", nargs="+", help="LABEL=CSV")
    p.set_defaults(run=plot_sizes)
    for p in sub.choices.values():
        p.add_argument("-o", "--output", help="PNG file")
    args = ap.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
