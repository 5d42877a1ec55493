#!/usr/bin/env python3
"""bench/ab_aa.py: why does tare ab call identical commands different? Reads A/A runs of
`tare ab --format=json` (the same command on both sides) and looks at the sequence of
position effects, pos_i = log(time of the second run / time of the first run) of pair i.

With A and B identical, which side ran first is only a label, so from pos_i the log ratio
B/A that any ordering rule would have seen can be rebuilt exactly:
  alternate   A B, B A, ... (what tare ab does): d_i = +pos_i, -pos_i, ...
  random      a fair coin per pair (a fixed seed): d_i = s_i pos_i
  blocks      alternate, the AB and BA pair of each block averaged into one unit:
              u_k = (pos_2k - pos_2k+1) / 2, 10 units from 20 pairs
  rblocks     blocks, each block's order (AB BA or BA AB) by a fair coin: u_k = s_k (...)
and each is judged as tare ab judges: the exact signed-rank (Hodges-Lehmann) 95% interval,
faster or slower only when it excludes 1 and the estimate moved by the 1% threshold.
Windows of PAIRS consecutive pairs from long runs are trials; a shift of log(1 + c) added
to every d (the shift model) gives the detection rate of a change c on the same noise.

usage: ab_aa.py [--pairs 20] [--step PAIRS] [--changes 0.03] FILE.json ...
"""
import json
import math
import random
import statistics as st
import sys


def sr_lower(n, t):
    """P(T+ <= k) for k = 0..t, the exact null distribution of the signed-rank statistic."""
    total = n * (n + 1) // 2
    f = [0.0] * (total + 1)
    f[0] = 1.0
    for r in range(1, n + 1):
        for s in range(total, r - 1, -1):
            f[s] += f[s - r]
    c, out = 0.0, []
    for k in range(t + 1):
        c += f[k] / 2.0 ** n
        out.append(c)
    return out


_crit = {}


def critical(n, alpha=0.05):
    """The largest d with P(T+ <= d) <= alpha/2 (tare's stats_signed_rank_critical)."""
    if (n, alpha) not in _crit:
        p = sr_lower(n, n * (n + 1) // 4)
        d = -1
        while d + 1 < len(p) and p[d + 1] <= alpha / 2:
            d += 1
        _crit[(n, alpha)] = d
    return _crit[(n, alpha)]


def hl(x, alpha=0.05):
    """Hodges-Lehmann estimate and the signed-rank interval, as tare computes them."""
    n = len(x)
    w = sorted((x[i] + x[j]) / 2 for i in range(n) for j in range(i, n))
    est = st.median(w)
    d = critical(n, alpha)
    if d < 0:
        return est, -math.inf, math.inf
    return est, w[d], w[len(w) - 1 - d]


def verdict(x, threshold=0.01, alpha=0.05):
    """(verdict, resolution, estimate of B/A)"""
    est, lo, hi = hl(x, alpha)
    r, l, h = math.exp(est), math.exp(lo), math.exp(hi)
    res = max(r / l, h / r) - 1
    if l > 1 and r >= 1 + threshold:
        return "slower", res, r
    if h < 1 and r <= 1 - threshold:
        return "faster", res, r
    return "same", res, r


def t_plus(x):
    """The signed-rank statistic: the sum of the ranks of |x| over the positive x."""
    order = sorted(range(len(x)), key=lambda i: abs(x[i]))
    return sum(r + 1 for r, i in enumerate(order) if x[i] > 0)


def units(pos, rule, rng):
    n = len(pos)
    if rule == "alternate":
        return [p if i % 2 == 0 else -p for i, p in enumerate(pos)]
    if rule == "random":
        return [p if rng.random() < 0.5 else -p for p in pos]
    if rule == "blocks":
        return [(pos[i] - pos[i + 1]) / 2 for i in range(0, n - 1, 2)]
    if rule == "rblocks":
        return [(pos[i] - pos[i + 1]) / 2 * (1 if rng.random() < 0.5 else -1)
                for i in range(0, n - 1, 2)]
    raise ValueError(rule)


def positions(d):
    """pos_i from a tare ab JSON: A runs first in the even pairs (A B, B A, ...)."""
    a, b = d["a"]["times"], d["b"]["times"]
    return [math.log(b[i] / a[i]) if i % 2 == 0 else math.log(a[i] / b[i])
            for i in range(len(a))]


def lag1(x):
    m = st.mean(x)
    v = sum((y - m) ** 2 for y in x)
    return sum((x[i] - m) * (x[i + 1] - m) for i in range(len(x) - 1)) / v if v else 0.0


def main(argv):
    pairs, step, changes, files = 20, None, [0.03], []
    i = 0
    while i < len(argv):
        if argv[i] == "--pairs":
            pairs = int(argv[i + 1]); i += 2
        elif argv[i] == "--step":
            step = int(argv[i + 1]); i += 2
        elif argv[i] == "--changes":
            changes = [float(c) for c in argv[i + 1].split(",")]; i += 2
        else:
            files.append(argv[i]); i += 1
    step = step or pairs
    seqs = []
    for f in files:
        with open(f) as fh:
            seqs.append((f, positions(json.load(fh))))

    print("position effect per file: pos = log(second run / first run) of each pair")
    print("%-24s %6s %9s %9s %8s %8s %7s %7s" %
          ("file", "pairs", "median", "mean", "sd", "skew", "lag1", "lag1 d"))
    allpos, lags = [], []
    for f, pos in seqs:
        allpos += pos
        m, s = st.mean(pos), st.pstdev(pos)
        sk = sum(((p - m) / s) ** 3 for p in pos) / len(pos) if s else 0
        d = units(pos, "alternate", None)
        lags.append(lag1(d))
        if len(seqs) <= 8:
            print("%-24s %6d %+9.4f %+9.4f %8.4f %+8.2f %+7.3f %+7.3f" %
                  (f.split("/")[-1][-24:], len(pos), st.median(pos), m, s, sk, lag1(pos), lag1(d)))
    if len(seqs) > 8:
        print("(%d files; lag-1 correlation of d per file: mean %+.3f, median %+.3f, %d of %d positive)"
              % (len(seqs), st.mean(lags), st.median(lags), sum(x > 0 for x in lags), len(lags)))
    n = len(allpos)
    neg = sum(1 for p in allpos if p < 0)
    print("all %d pairs: median pos %+.5f, second run faster in %d (%.1f%%)"
          % (n, st.median(allpos), neg, 100 * neg / n))

    # (rule, alpha): the four orders at tare's 95%, and alternation with a wider interval
    rules = [("alternate", 0.05), ("random", 0.05), ("blocks", 0.05), ("rblocks", 0.05),
             ("alternate", 0.025)]
    print("\n%d-pair windows, every %d pairs (%s), judged as tare ab judges (95%%, 1%% threshold)"
          % (pairs, step, "overlapping" if step < pairs else "disjoint"))
    print("%-10s %-9s %7s %9s %9s %12s %11s %11s %9s"
          % ("change", "rule", "trials", "same", "called", "median res", "med B/A", "mean B/A",
             "var T+"))
    for c in [0.0] + changes:
        for rule, alpha in rules:
            rng = random.Random(20261130)
            tot = same = right = 0
            res, est, tp = [], [], []
            for f, pos in seqs:
                for s0 in range(0, len(pos) - pairs + 1, step):
                    if s0 % 2:
                        continue
                    u = [x + math.log1p(c) for x in units(pos[s0:s0 + pairs], rule, rng)]
                    v, r, e = verdict(u, alpha=alpha)
                    est.append(e)
                    m = len(u)
                    # T+ standardised by its null mean and sd: variance 1 if the
                    # signed-rank null (independent, symmetric) fits these data.
                    tp.append((t_plus(u) - m * (m + 1) / 4) /
                              math.sqrt(m * (m + 1) * (2 * m + 1) / 24))
                    tot += 1
                    same += v == "same"
                    right += v == ("slower" if c > 0 else "same")
                    res.append(r)
            if not tot:
                continue
            label = "A/A" if c == 0 else "+%g%%" % (100 * c)
            name = rule if alpha == 0.05 else "%s@%g%%" % (rule[:3], 100 * (1 - alpha))
            # var T+ only means something under A/A (about 0).
            vt = "%9.3f" % (sum(t * t for t in tp) / len(tp)) if c == 0 else "%9s" % "-"
            print("%-10s %-9s %7d %8.1f%% %8.1f%% %11.1f%% %11.4f %11.4f %s" %
                  (label, name, tot, 100 * same / tot, 100 * (tot - same) / tot,
                   100 * st.median(res), st.median(est), st.mean(est), vt))


if __name__ == "__main__":
    main(sys.argv[1:])
