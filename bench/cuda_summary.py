#!/usr/bin/env python3
"""Compact tables from `xpose bench --csv` files (bench/cuda_device_run.sh).

  cuda_summary.py worst N FILE...          the N lowest-ratio cases of each file, with plans
  cuda_summary.py pair LABEL BASE.csv OTHER.csv
      cases in both (by suite and case): median ratio of each, median OTHER/BASE, and the share
      of cases where OTHER is within 5 % of BASE or better (and BASE within 5 % of OTHER)
  cuda_summary.py planning HEURISTIC.csv MEASURED.csv [N]
      heuristic against measure planning on the same cases (bench/plan_generalization.sh): the
      share where the heuristic's copy ratio is within 5 % and within 15 % of measure
      planning's, overall and per element size, and the N (default 8) worst cases with both plans
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


def planning(heur_path, meas_path, n):
    heur = {(r["suite"], r["case"]): r for r in load(heur_path)}
    meas = {(r["suite"], r["case"]): r for r in load(meas_path)}
    keys = sorted(heur.keys() & meas.keys())
    if not keys:
        sys.exit(f"planning: {heur_path} and {meas_path} share no successful case")
    # heuristic / measured, by copy ratio: each run's ratio is against its own same-run copy.
    rel = {k: float(heur[k]["ratio"]) / float(meas[k]["ratio"]) for k in keys}
    sizes = sorted({int(heur[k]["elem"]) for k in keys})
    groups = [("all", keys)] + [(f"{e}-byte", [k for k in keys if int(heur[k]["elem"]) == e])
                                for e in sizes]
    print(f"heuristic against measure planning: {len(keys)} cases in both "
          f"({len(heur)} and {len(meas)} successful)")
    print("| elements | cases | within 5 % | within 15 % | heuristic median | measured median |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, ks in groups:
        near = sum(rel[k] >= 0.95 for k in ks) / len(ks)
        far = sum(rel[k] >= 0.85 for k in ks) / len(ks)
        print(f"| {label} | {len(ks)} | {near:.1%} | {far:.1%} "
              f"| {statistics.median(float(heur[k]['ratio']) for k in ks):.3f} "
              f"| {statistics.median(float(meas[k]['ratio']) for k in ks):.3f} |")
    print(f"worst {min(n, len(keys))} (heuristic/measured, case, normalized, heuristic plan | "
          "measured plan):")
    for k in sorted(keys, key=rel.get)[:n]:
        print(f"  {rel[k]:.3f} {k[1]:<12} {heur[k]['normalized']:<48} {heur[k]['plan']} | "
              f"{meas[k]['plan']}")


if __name__ == "__main__":
    if sys.argv[1] == "worst":
        worst(int(sys.argv[2]), sys.argv[3:])
    elif sys.argv[1] == "pair":
        pair(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "planning":
        planning(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 8)
