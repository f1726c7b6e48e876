#!/usr/bin/env python3
"""Per-shape median-time ratio of the same contenders in two reports, by time band.

    scripts/diag/baseline_drift.py A.json B.json [--contender baseline|all] [--sweep paper] [--time call|device] [--by-task]

For every (task, precision, contender, sweep, shape) timed in both reports: r = t_B / t_A of the
median call times (--time device: of the CUPTI device times, where both reports carry device_us). Prints, per band of t_A, the number of shapes, the median and 90th percentile
of |r - 1|, the count over 10%, and the geometric mean of r per category when the report names
categories (task -> category from `mskb list --json` is not needed: bands only).
--by-task: one row per (task, precision, contender, sweep) instead: shapes, geometric means of r for call
and device time, and the median call time saved per call (t_A - t_B, us).
"""
import argparse
import json
import math


def key(r):
    shape = r.get("shape") or {}
    return (r["task"], r["precision"], r["contender"], r.get("sweep"),
            tuple(sorted((k, v) for k, v in shape.items() if not k.startswith("_"))))


def times(path, contender, sweep, kind="call"):
    with open(path) as f:
        rep = json.load(f)
    out = {}
    for r in rep.get("results", []):
        t = r.get("time_us")
        if not isinstance(t, dict) or t.get("median") is None:
            continue
        if contender and contender != "all" and r["contender"] != contender:
            continue
        if sweep and r.get("sweep") != sweep:
            continue
        if kind == "device":
            if r.get("device_us"):
                out[key(r)] = r["device_us"]
        else:
            out[key(r)] = t["median"]
    return out


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    i = min(len(xs) - 1, max(0, int(math.ceil(q * len(xs))) - 1))
    return xs[i]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--contender", default="baseline")
    ap.add_argument("--sweep", default=None)
    ap.add_argument("--time", choices=("call", "device"), default="call")
    ap.add_argument("--by-task", action="store_true")
    o = ap.parse_args()
    if o.by_task:
        by_task(o)
        return
    A, B = times(o.a, o.contender, o.sweep, o.time), times(o.b, o.contender, o.sweep, o.time)
    common = [k for k in A if k in B]
    bands = [(0, 15, "< 15 us"), (15, 30, "15-30 us"), (30, 100, "30-100 us"), (100, 1000, "100-1000 us"),
             (1000, float("inf"), "> 1 ms")]
    print(f"{len(common)} shapes in both ({o.contender}, sweep {o.sweep or 'all'}, {o.time} time)")
    print(f"| median {o.time} time (A) | shapes | median |r-1| | 90th pct | > 10% | geomean r |")
    print("|---|---|---|---|---|---|")
    for lo, hi, name in bands:
        rs = [B[k] / A[k] for k in common if lo <= A[k] < hi and A[k] > 0]
        if not rs:
            continue
        dev = [abs(r - 1) for r in rs]
        g = math.exp(sum(math.log(r) for r in rs) / len(rs))
        print(f"| {name} | {len(rs)} | {100 * pct(dev, 0.5):.1f}% | {100 * pct(dev, 0.9):.1f}% | "
              f"{sum(1 for d in dev if d > 0.10)} | {g:.3f} |")


def by_task(o):
    call_a, call_b = times(o.a, o.contender, o.sweep), times(o.b, o.contender, o.sweep)
    dev_a, dev_b = times(o.a, o.contender, o.sweep, "device"), times(o.b, o.contender, o.sweep, "device")
    groups = {}
    for k in call_a:
        if k in call_b and call_a[k] > 0:
            groups.setdefault(k[:4], []).append(k)
    gm = lambda rs: math.exp(sum(math.log(r) for r in rs) / len(rs)) if rs else float("nan")
    print(f"{sum(len(v) for v in groups.values())} shapes in both ({o.contender}, sweep {o.sweep or 'all'})")
    print("| task | prec | contender | sweep | shapes | call B/A (geomean) | device B/A (geomean) | call time saved (median us) |")
    print("|---|---|---|---|---|---|---|---|")
    for g in sorted(groups, key=lambda g: tuple(str(x) for x in g)):
        ks = groups[g]
        dev = [dev_b[k] / dev_a[k] for k in ks if k in dev_a and k in dev_b and dev_a[k] > 0]
        saved = sorted(call_a[k] - call_b[k] for k in ks)
        print(f"| {g[0]} | {g[1]} | {g[2]} | {g[3]} | {len(ks)} | {gm([call_b[k] / call_a[k] for k in ks]):.3f} | "
              f"{gm(dev):.3f} | {saved[len(saved) // 2]:.1f} |")


if __name__ == "__main__":
    main()
