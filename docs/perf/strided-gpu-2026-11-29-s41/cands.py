# Every candidate timed against the heuristic pick (docs/perf/typed-h100.md, session 41).
# `python3 cands.py DIR NAME...`: DIR/x-NAME.txt holds `xpose explain --measure-all` per case
# ("== id" before each), DIR/h-NAME.csv the `xpose bench` run of the same cases (its copy time
# is the yardstick). Prints per case the heuristic ratio (bench), the explain's chosen and best
# candidates as ratios, and per NAME the medians, how often the pick is within 5 % of the best and
# what the best would gain over the pick.
import csv, math, re, statistics as st, sys


def parse(fn):
    out, cur = {}, None
    for line in open(fn):
        if line.startswith('== '):
            cur = line[3:].strip()
            out[cur] = []
            continue
        m = re.match(r'\s+(\*?)\s*([\d.]+) us\s+([\d.]+) us\s+\S+\s+(.*)', line)
        if m and cur:
            out[cur].append((m.group(1) == '*', float(m.group(2)), float(m.group(3)),
                             m.group(4).strip()))
    return out


def main(d, names):
    for name in names:
        x = parse(f'{d}/x-{name}.txt')
        h = {r['case']: r for r in csv.DictReader(open(f'{d}/h-{name}.csv'))}
        heur, chosen, best, near, gain = [], [], [], 0, []
        print('##', name)
        for c, cands in x.items():
            if not cands or c not in h:
                continue
            cp = float(h[c]['copy_ms']) * 1e3
            ch = [k for k in cands if k[0]][0]
            b = min(cands, key=lambda k: k[2])
            heur.append(float(h[c]['ratio'])); chosen.append(cp / ch[2]); best.append(cp / b[2])
            near += ch[2] <= 1.05 * b[2]
            gain.append(math.log(ch[2] / b[2]))
            print(f"{c:14s} heur {heur[-1]:.3f} chosen {chosen[-1]:.3f} best {best[-1]:.3f} "
                  f"| {ch[3][:48]} || {b[3][:48]}")
        print(f'median heuristic {st.median(heur):.3f}, chosen {st.median(chosen):.3f}, best '
              f'{st.median(best):.3f}; chosen within 5 % of best on {near} of {len(best)}, best / '
              f'chosen {math.exp(sum(gain) / len(gain)):.3f} (geometric mean)')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:])
