#!/usr/bin/env bash
# Per-case A/B of two library builds through bench/cpu_case_times.cpp binaries (one linked
# against each build): the two alternate over the whole case list ROUNDS times, each case's
# minimum over the rounds is kept, and the summary is the time of A over the time of B per case
# (median, geomean, slowest and fastest, and the cases whose plan differs). For loaded machines
# where `xpose bench` ratios move with the memcpy baseline (docs/perf/cpu-2core.md, session 11).
# Usage: bash bench/cpu_lib_ab.sh A_BIN B_BIN ELEM THREADS REPS ROUNDS [FLUSH_MIB] < CASES
set -euo pipefail
a=$1 b=$2 elem=$3 threads=$4 reps=$5 rounds=$6 flush=${7:-}
tmp=$(mktemp -d)
cat > "$tmp/cases"
for ((i = 0; i < rounds; ++i)); do
  "$a" "$elem" "$threads" "$reps" $flush < "$tmp/cases" > "$tmp/a$i"
  "$b" "$elem" "$threads" "$reps" $flush < "$tmp/cases" > "$tmp/b$i"
done
python3 - "$tmp" "$rounds" <<'EOF'
import statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
def load(side):
    best, plan = {}, {}
    for i in range(rounds):
        for line in open(f"{tmp}/{side}{i}"):
            w = line.split(maxsplit=2)
            if len(w) < 3 or w[1] == "failed:":
                continue
            best[w[0]] = min(best.get(w[0], float("inf")), float(w[1]))
            plan[w[0]] = w[2].strip()
    return best, plan
(ta, pa), (tb, pb) = load("a"), load("b")
rows = sorted((ta[k] / tb[k], k) for k in ta if k in tb)
for r, k in rows:
    note = "" if pa[k] == pb[k] else f"  [{pa[k]}] -> [{pb[k]}]"
    print(f"{k:28s} A {ta[k]:9.3f} ms  B {tb[k]:9.3f} ms  A/B {r:5.2f}{note}")
v = [r for r, _ in rows]
print(f"cases {len(v)}: A/B median {statistics.median(v):.3f} geomean "
      f"{statistics.geometric_mean(v):.3f} slowest {v[0]:.2f} ({rows[0][1]}) fastest "
      f"{v[-1]:.2f} ({rows[-1][1]}); plans differ in {sum(pa[k] != pb[k] for _, k in rows)}")
EOF
rm -rf "$tmp"
