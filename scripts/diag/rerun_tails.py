#!/usr/bin/env python3
"""How far outside their intervals the checks of `mskb rerun` fell, against normal tails.

    scripts/diag/rerun_tails.py RERUN.json [RERUN2.json ...]

RERUN.json: a report `mskb rerun REPORT --json RERUN.json` (or `--against ... --json`) wrote, with
the comparison under rerun_of.comparison. Each check's deviation in units of its own interval
(`time_dev`, `P_dev` per entry and sweep, `shift.call_dev` for the whole run); per threshold t, the
number of checks beyond t intervals and what normal tails give (checks * P(|Z| > t z_q)); then the
checks beyond 1.5 intervals, largest first, with their entry and verdict. Standard library only.
"""
import json
import sys
from statistics import NormalDist

THRESHOLDS = (1.0, 1.25, 1.5, 2.0, 2.5)


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    for path in paths:
        try:
            with open(path) as f:
                c = json.load(f)["rerun_of"]["comparison"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"rerun_tails.py: {path}: not an mskb rerun --json report ({e})", file=sys.stderr)
            return 2
        model = c.get("judge", {}).get("model")
        if not model:
            print(f"rerun_tails.py: {path}: judged by a flat tolerance, no intervals", file=sys.stderr)
            return 2
        z = NormalDist().inv_cdf(0.5 + model["quantile"] / 2)
        checks = []
        for e in c["entries"]:
            name = f'{e["task"]} {e["precision"]} {e["contender"]}'
            for s in e["sweeps"]:
                for k in ("time_dev", "P_dev"):
                    if k in s:
                        checks.append((s[k], f'{name} {s["sweep"]} {k[:-4]}', e.get("verdict", "")))
        if "call_dev" in c.get("shift", {}):
            checks.append((c["shift"]["call_dev"], "the whole run's call time", ""))
        n = len(checks)
        print(f"## {path}: {n} checks, q = {model['quantile']:g}, simultaneous bound "
              f"{c['summary'].get('simultaneous_factor', float('nan')):.2f} intervals\n")
        print("| beyond (intervals) | checks | normal tails give |")
        print("|---|---|---|")
        for t in THRESHOLDS:
            beyond = sum(1 for d, _, _ in checks if d > t)
            expect = n * 2 * (1 - NormalDist().cdf(t * z))
            print(f"| {t:g} | {beyond} | {expect:.2f} |")
        far = sorted((x for x in checks if x[0] > 1.5), reverse=True)
        if far:
            print("\nBeyond 1.5 intervals: " + "; ".join(f"{what} {d:.2f}{' (' + v + ')' if v else ''}" for d, what, v in far))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
