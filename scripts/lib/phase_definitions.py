# The lag of the induction phase change under other definitions of the crossing and the drop (scripts/
# induction_phase_definitions), from the induction lines mha-train prints at every measurement of one run per log:
#   python3 scripts/lib/phase_definitions.py LOG...
# A point is (step, best last-layer score, loss on the first copy, loss on the repeat). "first": the first measurement
# that passes; "stays": the first from which every later one passes (core/lab/phase_change.hpp). The 95% t-interval uses
# t_{0.975, n-1} from a table (the core's student_t gives the same to three decimals).
import re, statistics, sys
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 11: 2.201,
        12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080,
        22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 31: 2.040,
        32: 2.037, 33: 2.035, 34: 2.032, 35: 2.030, 36: 2.028, 37: 2.026, 38: 2.024, 39: 2.023, 40: 2.021}
def series(path):
    pts, cur = [], None
    for line in open(path):
        m = re.search(r'induction: best layer-\d head \d score ([\d.]+),.*loss first copy ([\d.]+), repeated copy ([\d.]+)', line)
        if m: cur = tuple(map(float, m.groups()))
        m = re.match(r'step\s+(\d+)', line)
        if m and cur: pts.append((int(m.group(1)),) + cur); cur = None
    return pts
def first(pts, ok):
    return next((p[0] for p in pts if ok(p)), None)
def stays(pts, ok):
    s = None
    for p in reversed(pts):
        if not ok(p): break
        s = p[0]
    return s
defs = {
  'shipped: score>=0.4 first, repeat<=1/4 first copy stays': lambda P: (first(P, lambda p: p[1] >= .4), stays(P, lambda p: p[3] <= p[2] / 4)),
  'both first: score>=0.4 first, repeat<=1/4 first': lambda P: (first(P, lambda p: p[1] >= .4), first(P, lambda p: p[3] <= p[2] / 4)),
  'both stay: score>=0.4 stays, repeat<=1/4 stays': lambda P: (stays(P, lambda p: p[1] >= .4), stays(P, lambda p: p[3] <= p[2] / 4)),
  'earlier marks: score>=0.3 first, repeat<=1/3 stays': lambda P: (first(P, lambda p: p[1] >= .3), stays(P, lambda p: p[3] <= p[2] / 3)),
  'later marks: score>=0.5 first, repeat<=1/5 stays': lambda P: (first(P, lambda p: p[1] >= .5), stays(P, lambda p: p[3] <= p[2] / 5)),
  'midpoint drop: score>=0.4 first, repeat<=(step 50 + end)/2 first': lambda P: (first(P, lambda p: p[1] >= .4), first(P, lambda p: p[3] <= (P[0][3] + P[-1][3]) / 2)),
}
logs = sys.argv[1:]
runs = {f: series(f) for f in logs}
print('| definition | seeds with both | lag mean | 95% t-interval | min – max | per seed |')
print('|---|---|---|---|---|---|')
for name, d in defs.items():
    lags = []
    per = []
    for f, P in runs.items():
        c, dr = d(P)
        if c is None or dr is None: per.append('–'); continue
        lags.append(dr - c); per.append(str(dr - c))
    n = len(lags); m = statistics.mean(lags)
    hw = T975[min(n - 1, 40)] * statistics.stdev(lags) / n ** 0.5 if n > 1 else float('inf')
    print(f'| {name} | {n} of {len(runs)} | {m:+.0f} | {m - hw:+.0f} to {m + hw:+.0f} | {min(lags)} – {max(lags)} | {" ".join(per)} |')
