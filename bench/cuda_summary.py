#!/usr/bin/env python3
"""Compact tables from `xpose bench --csv` files (bench/cuda_device_run.sh).

  cuda_summary.py worst N FILE...          the N lowest-ratio cases of each file, with plans
  cuda_summary.py pair LABEL BASE.csv OTHER.csv
      cases in both (by suite and case): median ratio of each, median OTHER/BASE, and the share
      of cases where OTHER is within 5 % of BASE or better (and BASE within 5 % of OTHER)
"""
import csv
import statistics
import sys


def load(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if not r["plan"].startswith("FAILED")]


def worst(n, paths):
    for path in paths:
        rows = sorted(load(path), key=lambda r: float(r["ratio"]))
        print(f"-- {path.rsplit('/', 1)[-1]}: {len(rows)} cases, worst {n}")
        for r in rows[:n]:
            print(f"   {float(r['ratio']):.3f} {r['case']:<14} {r['normalized']:<40} {r['plan']}")


def pair(label, base_path, other_path):
    base = {(r["suite"], r["case"]): float(r["ratio"]) for r in load(base_path)}
    other = {(r["suite"], r["case"]): float(r["ratio"]) for r in load(other_path)}
    keys = sorted(base.keys() & other.keys())
    if not keys:
        print(f"{label}: no common cases")
        return
    b = [base[k] for k in keys]
    o = [other[k] for k in keys]
    rel = [y / x for x, y in zip(b, o)]
    ok = sum(y >= 0.95 * x for x, y in zip(b, o)) / len(keys)
    back = sum(x >= 0.95 * y for x, y in zip(b, o)) / len(keys)
    print(f"{label:<28} n={len(keys):4d}  base median {statistics.median(b):.3f}  "
          f"other median {statistics.median(o):.3f}  other/base median {statistics.median(rel):.3f} "
          f"min {min(rel):.3f}  other>=0.95*base {ok:.0%}  base>=0.95*other {back:.0%}")


if __name__ == "__main__":
    if sys.argv[1] == "worst":
        worst(int(sys.argv[2]), sys.argv[3:])
    elif sys.argv[1] == "pair":
        pair(sys.argv[2], sys.argv[3], sys.argv[4])
