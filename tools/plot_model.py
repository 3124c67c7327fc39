#!/usr/bin/env python3
"""Plots of `xpose calibrate`'s CSV (docs/model.md).

(a) TTLG's Fig. 5 style: predicted (regression and analytic) against measured time over the
    candidates (slice-size variants) of one tensor, a held-out one by default;
(b) predicted against measured time over every candidate of the held-out problems, coloured by
    kernel class, log-log, with the y = x line and +-10 % bands.

usage: plot_model.py CSV [--problem NAME] [--out PREFIX]
writes PREFIX-variants.png and PREFIX-scatter.png (PREFIX defaults to the CSV's name).
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CLASSES = ["rows", "fvi-small", "tiled", "packed", "packed-split"]


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("analytic_s", "regression_s", "measured_s"):
            r[k] = float(r[k])
        r["fold"] = int(r["fold"])
    return rows


def pick_problem(by_problem):
    """Among the held-out problems with the most candidates, the one of median spread of times
    (slowest / fastest candidate): a typical tensor, not the best- or worst-predicted."""
    held = {n: rows for n, rows in by_problem.items() if rows[0]["fold"] == 0} or by_problem
    most = max(len(rows) for rows in held.values())
    spread = sorted((max(r["measured_s"] for r in rows) / min(r["measured_s"] for r in rows), n)
                    for n, rows in held.items() if len(rows) == most)
    return spread[len(spread) // 2][1]


def plot_variants(rows, name, out):
    rows = sorted(rows, key=lambda r: r["measured_s"])
    x = range(len(rows))
    us = 1e6
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(rows)), 4.5))
    ax.plot(x, [r["measured_s"] * us for r in rows], "o-", color="black", label="measured")
    ax.plot(x, [r["regression_s"] * us for r in rows], "s--", color="tab:blue",
            label="regression")
    ax.plot(x, [r["analytic_s"] * us for r in rows], "^:", color="tab:orange", label="analytic")
    ax.set_xticks(list(x))
    ax.set_xticklabels([r["summary"].split(" grid=")[0] for r in rows], rotation=35,
                       ha="right", fontsize=7)
    ax.set_ylabel("time per transposition (us, log scale)")
    ax.set_yscale("log")
    first = rows[0]
    ax.set_title(f"{name} (fold {first['fold']})\nextents ({first['extents']}) perm "
                 f"({first['perm']}), {first['elem']}-byte elements", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)


def plot_scatter(rows, out):
    test = [r for r in rows if r["fold"] == 0]
    if not test:
        sys.exit("plot_model.py: no held-out (fold 0) rows in the CSV")
    us = 1e6
    fig, ax = plt.subplots(figsize=(6.5, 6))
    lo = min(min(r["measured_s"], r["regression_s"]) for r in test) * us * 0.8
    hi = max(max(r["measured_s"], r["regression_s"]) for r in test) * us * 1.25
    ax.plot([lo, hi], [lo, hi], color="black", lw=0.8)
    for f, style in ((1.1, ":"), (1 / 1.1, ":")):
        ax.plot([lo, hi], [lo * f, hi * f], color="gray", lw=0.8, ls=style)
    by_class = defaultdict(list)
    for r in test:
        by_class[r["class"]].append(r)
    for cls in CLASSES + sorted(set(by_class) - set(CLASSES)):
        pts = by_class.get(cls)
        if not pts:
            continue
        mape = 100 * sum(abs(r["regression_s"] - r["measured_s"]) / r["measured_s"]
                         for r in pts) / len(pts)
        ax.scatter([r["measured_s"] * us for r in pts], [r["regression_s"] * us for r in pts],
                   s=8, alpha=0.6, label=f"{cls} ({len(pts)}, MAPE {mape:.1f}%)")
    mape = 100 * sum(abs(r["regression_s"] - r["measured_s"]) / r["measured_s"]
                     for r in test) / len(test)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured (us)")
    ax.set_ylabel("predicted by the regression (us)")
    ax.set_title(f"held-out fifth: {len(test)} candidates, MAPE {mape:.1f}% (dotted: +-10%)",
                 fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--problem", help="problem name for the variants plot (default: a held-out "
                                      "one with the most candidates)")
    ap.add_argument("--out", help="output prefix (default: the CSV's path without .csv)")
    args = ap.parse_args()
    rows = load(args.csv)
    if not rows:
        sys.exit("plot_model.py: the CSV has no rows")
    by_problem = defaultdict(list)
    for r in rows:
        by_problem[r["problem"]].append(r)
    name = args.problem or pick_problem(by_problem)
    if name not in by_problem:
        sys.exit(f"plot_model.py: no problem '{name}' in the CSV")
    prefix = args.out or os.path.splitext(args.csv)[0]
    plot_variants(by_problem[name], name, prefix + "-variants.png")
    plot_scatter(rows, prefix + "-scatter.png")
    print(f"wrote {prefix}-variants.png ({name}) and {prefix}-scatter.png")


if __name__ == "__main__":
    main()
