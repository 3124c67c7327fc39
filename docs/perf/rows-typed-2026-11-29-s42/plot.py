# Speed-up of this session's build over main per typed FVI problem, against the input row's
# bytes (rank-1 conversions at the right edge): python3 plot.py DIR OUT.png, DIR holding a
# call's {long,short}-{head,new}-KIND.csv.
import csv, re, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

d, out = sys.argv[1], sys.argv[2]
kinds = ["f32-bf16", "f32-f16", "f16-f32", "bf16-f32", "f8e4m3-f32", "bf16-f8e4m3", "f32-beta1",
         "f32-bf16-pad7"]
fig, ax = plt.subplots(figsize=(7, 4))
for kind in kinds:
    xs, ys = [], []
    for f in ["long", "short"]:
        try:
            a = {r["case"]: r for r in csv.DictReader(open(f"{d}/{f}-head-{kind}.csv"))}
            b = {r["case"]: r for r in csv.DictReader(open(f"{d}/{f}-new-{kind}.csv"))}
        except FileNotFoundError:
            continue
        for k, ra in a.items():
            m = re.search(r"extents \(([^)]*)\)", ra["normalized"])
            ext = [int(x) for x in m.group(1).split(",")]
            es = int(ra["elem"])
            row = ext[0] * es if len(ext) > 1 else 4e8
            xs.append(row)
            ys.append(float(b[k]["ratio"]) / float(ra["ratio"]))
    ax.scatter(xs, ys, s=10, label=kind)
ax.set_xscale("log")
ax.axhline(1, color="gray", lw=0.8)
ax.axvline(1536, color="gray", lw=0.8, ls="--")
ax.set_xlabel("input row bytes (right edge: normalized rank 1)")
ax.set_ylabel("speed-up over main (same case, same call)")
ax.set_title("typed rows (rows_typed.cu), H200, heuristic plans")
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out, dpi=110)
