#!/usr/bin/env python3
"""Per-shape median-time ratio of the same contenders in two reports, by time band.

    scripts/diag/baseline_drift.py A.json B.json [--contender baseline|all] [--sweep paper] [--time call|device|both] [--by-task]

For every (task, precision, contender, sweep, shape) timed in both reports: r = t_B / t_A of the
median call times (--time device: of the CUPTI device times, where both reports carry device_us). Prints, per band of t_A, the number of shapes, the median and 90th percentile
of the deviation |r - 1|, the count over 10%, and the geometric mean of r per category when the report names
categories (task -> category from `mskb list --json` is not needed: bands only).
--time both: call and device time side by side, each shape banded by A's time of that kind, and the
geometric mean of r over all shapes of each kind (issue 43's rerun table).
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


def load(path):
    with open(path) as f:
        return json.load(f)


def times(rep, contender, sweep, kind="call"):
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


BANDS = [(0, 15, "< 15 us"), (15, 30, "15-30 us"), (30, 100, "30-100 us"), (100, 1000, "100-1000 us"),
         (1000, float("inf"), "> 1 ms")]
HEAD = ["shapes", "median dev.", "90th pct dev.", "> 10%", "geomean r"]


def gmean(rs):
    return math.exp(sum(math.log(r) for r in rs) / len(rs)) if rs else float("nan")


def band_rows(A, B):
    """(shapes in both, geomean r over all, {band: [shapes, median dev. |r - 1|, its 90th pct, count > 10%, geomean r]})."""
    common = [k for k in A if k in B and A[k] > 0 and B[k] > 0]
    table = {}
    for lo, hi, name in BANDS:
        rs = [B[k] / A[k] for k in common if lo <= A[k] < hi]
        if not rs:
            continue
        dev = [abs(r - 1) for r in rs]
        table[name] = [str(len(rs)), f"{100 * pct(dev, 0.5):.1f}%", f"{100 * pct(dev, 0.9):.1f}%",
                       str(sum(1 for d in dev if d > 0.10)), f"{gmean(rs):.3f}"]
    return len(common), gmean([B[k] / A[k] for k in common]), table


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--contender", default="baseline")
    ap.add_argument("--sweep", default=None)
    ap.add_argument("--time", choices=("call", "device", "both"), default="call")
    ap.add_argument("--by-task", action="store_true")
    o = ap.parse_args()
    a, b = load(o.a), load(o.b)
    if o.by_task:
        by_task(a, b, o)
        return
    kinds = ("call", "device") if o.time == "both" else (o.time,)
    rows = {kind: band_rows(times(a, o.contender, o.sweep, kind), times(b, o.contender, o.sweep, kind)) for kind in kinds}
    what = f"{o.contender}, sweep {o.sweep or 'all'}"
    if len(kinds) == 1:
        print(f"{rows[o.time][0]} shapes in both ({what}, {o.time} time)")
        print(f"| median {o.time} time (A) | " + " | ".join(HEAD) + " |")
    else:
        print(f"{rows['call'][0]} shapes in both with a call time, {rows['device'][0]} with a device time ({what}); "
              f"geomean r over all: call {rows['call'][1]:.3f}, device {rows['device'][1]:.3f}")
        print("| band (A's time) | " + " | ".join(f"{k}: {h}" for k in kinds for h in HEAD) + " |")
    print("|---|" + "---|" * (len(HEAD) * len(kinds)))
    for _, _, name in BANDS:
        cells = [rows[k][2].get(name, ["0", "-", "-", "-", "-"]) for k in kinds]
        if any(c[0] != "0" for c in cells):
            print(f"| {name} | " + " | ".join(x for c in cells for x in c) + " |")


def by_task(a, b, o):
    call_a, call_b = times(a, o.contender, o.sweep), times(b, o.contender, o.sweep)
    dev_a, dev_b = times(a, o.contender, o.sweep, "device"), times(b, o.contender, o.sweep, "device")
    groups = {}
    for k in call_a:
        if k in call_b and call_a[k] > 0:
            groups.setdefault(k[:4], []).append(k)
    print(f"{sum(len(v) for v in groups.values())} shapes in both ({o.contender}, sweep {o.sweep or 'all'})")
    print("| task | prec | contender | sweep | shapes | call B/A (geomean) | device B/A (geomean) | call time saved (median us) |")
    print("|---|---|---|---|---|---|---|---|")
    for g in sorted(groups, key=lambda g: tuple(str(x) for x in g)):
        ks = groups[g]
        dev = [dev_b[k] / dev_a[k] for k in ks if k in dev_a and k in dev_b and dev_a[k] > 0]
        saved = sorted(call_a[k] - call_b[k] for k in ks)
        print(f"| {g[0]} | {g[1]} | {g[2]} | {g[3]} | {len(ks)} | {gmean([call_b[k] / call_a[k] for k in ks]):.3f} | "
              f"{gmean(dev):.3f} | {saved[len(saved) // 2]:.1f} |")


if __name__ == "__main__":
    main()
