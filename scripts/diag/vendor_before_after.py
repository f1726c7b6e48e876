#!/usr/bin/env python3
"""Vendor P (paper, large) and the roofline fraction at the largest large shape, before and after.

    scripts/diag/vendor_before_after.py BEFORE_PAPER.json BEFORE_LARGE.json AFTER_PAPER.json AFTER_LARGE.json

Each argument is an `mskb run --json` report (a paper+large report may be given for both of its
sweeps). Prints a Markdown table per task and precision, then the counts of vendor P < 1.
P is the report's own score (`scores[].P`, the vendor over the naive baseline measured in the
same run); SOL is `sol_fraction` of the vendor's row at the sweep's largest shape.
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def vendor_p(report, sweep):
    out = {}
    for s in report.get("scores", []):
        if s.get("contender") == "vendor" and s.get("sweep", sweep) == sweep:
            out[(s["task"], s["precision"])] = s.get("P")
    return out


def vendor_sol(report, sweep):
    best = {}
    for r in report.get("results", []):
        if r.get("contender") != "vendor" or r.get("sweep") != sweep or r.get("sol_fraction") is None:
            continue
        k = (r["task"], r["precision"])
        if k not in best or r["complexity"] > best[k]["complexity"]:
            best[k] = r
    return {k: r["sol_fraction"] for k, r in best.items()}


def none_tasks(report):
    return {v["task"] for v in report.get("vendors", []) if isinstance(v, dict) and not v.get("vendor")} if isinstance(
        report.get("vendors"), list) else set()


def fmt(x):
    return "-" if x is None else f"{x:.2f}"


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    bp, bl, ap, al = (load(p) for p in argv[1:])
    cols = [vendor_p(bp, "paper"), vendor_p(bl, "large"), vendor_p(ap, "paper"), vendor_p(al, "large"),
            vendor_sol(bl, "large"), vendor_sol(al, "large")]
    keys = sorted(set().union(*[set(c) for c in cols]))
    print("| task | precision | P paper before | P paper after | P large before | P large after | SOL large before | SOL large after |")
    print("|---|---|---|---|---|---|---|---|")
    for k in keys:
        b_p, b_l, a_p, a_l, s_b, s_a = (c.get(k) for c in cols)
        row = [k[0], k[1], fmt(b_p), fmt(a_p), fmt(b_l), fmt(a_l), fmt(s_b), fmt(s_a)]
        print("| " + " | ".join(row) + " |")
    def below(c):
        return sum(1 for v in c.values() if v is not None and v < 1.0), sum(1 for v in c.values() if v is not None)
    print()
    for name, c in (("paper before", cols[0]), ("paper after", cols[2]), ("large before", cols[1]), ("large after", cols[3])):
        n, t = below(c)
        print(f"- vendor P < 1, {name}: {n} of {t} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
