#!/usr/bin/env python3
"""Where a suite run's wall time went, from its time-stamped progress stream.

`scripts/gpu_validate.sh suite` writes `suite_paper.progress`: each line of `mskb run`'s progress
stream prefixed with the seconds since the run started, e.g.

    12.4 [  2/186] dot_product fp32 baseline checks: passed (3.7 s)

A line is printed when a part ends; its "(S s" is the part's evaluation (its build, if any, is
named after it and ran before, in the build pool), so the part ran from about END - S to END. For each kind of part (checks, timing, or a whole evaluation in a
one-phase run) this prints how many ended, the first and last end, the summed seconds, how many
ran at once on average and at most over its span, the longest ones, and the parts that ended in
the run's last 15% (the tail).

    scripts/suite_timeline.py suite_paper.progress [--json timeline.json]
"""
import argparse
import json
import re
import sys

LINE = re.compile(r"^\s*(\d+(?:\.\d+)?) \[\s*\d+/\d+\] (\S+) (\S+) (\S+)(?: \(gpu [^)]*\))?(?: (checks|timing))?: (\S+).*\(([\d.]+) s[,)]")


def parse(lines):
    parts = []
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        end, task, prec, contender, kind, disposition, seconds = m.groups()
        parts.append({"end": float(end), "seconds": float(seconds), "kind": kind or "all", "task": task,
                      "precision": prec, "contender": contender, "disposition": disposition})
    return parts


def summarize(parts):
    run_s = max(p["end"] for p in parts)
    kinds = {}
    for kind in sorted({p["kind"] for p in parts}):
        ps = [p for p in parts if p["kind"] == kind]
        first = min(p["end"] for p in ps)
        last = max(p["end"] for p in ps)
        # A part's start, end - seconds, rounded to the millisecond: 2.4 - 1.1 is 1.2999999999999998,
        # which made a part that starts as another ends (1.3) overlap it.
        began = lambda p: max(0.0, round(p["end"] - p["seconds"], 3))
        start = min(began(p) for p in ps)
        span = max(1e-9, last - start)
        # The most running at one instant: a sweep over starts and ends (an end before a start at the same time).
        events = sorted([(began(p), 1) for p in ps] + [(p["end"], -1) for p in ps],
                        key=lambda e: (e[0], e[1]))
        running = most = 0
        for _, step in events:
            running += step
            most = max(most, running)
        kinds[kind] = {
            "parts": len(ps), "first_end_s": first, "last_end_s": last, "summed_s": round(sum(p["seconds"] for p in ps), 1),
            "mean_at_once": round(sum(p["seconds"] for p in ps) / span, 2), "most_at_once": most,
            "longest": [f'{p["task"]} {p["precision"]} {p["contender"]} {p["seconds"]:.1f} s'
                        for p in sorted(ps, key=lambda p: -p["seconds"])[:5]],
        }
    tail_from = 0.85 * run_s
    tail = [f'{p["task"]} {p["precision"]} {p["contender"]} {p["kind"]} ended {p["end"]:.1f} s ({p["seconds"]:.1f} s)'
            for p in sorted(parts, key=lambda p: p["end"]) if p["end"] >= tail_from]
    out = {"run_s": run_s, "kinds": kinds, "tail_from_s": round(tail_from), "tail": tail}
    if "checks" in kinds and "timing" in kinds:
        out["timing_after_last_check_s"] = round(kinds["timing"]["last_end_s"] - kinds["checks"]["last_end_s"], 1)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("progress")
    ap.add_argument("--json")
    a = ap.parse_args()
    with open(a.progress) as f:
        parts = parse(f)
    if not parts:
        sys.exit(f"suite_timeline.py: no time-stamped part lines in {a.progress} (made by scripts/gpu_validate.sh suite?)")
    s = summarize(parts)
    print(f'run: {s["run_s"]} s to the last part')
    for kind, k in s["kinds"].items():
        print(f'{kind}: {k["parts"]} parts, ended {k["first_end_s"]}-{k["last_end_s"]} s, summed {k["summed_s"]} s, '
              f'{k["mean_at_once"]} at once on average, at most {k["most_at_once"]}')
        for x in k["longest"]:
            print(f"  longest: {x}")
    if "timing_after_last_check_s" in s:
        print(f'timing after the last check: {s["timing_after_last_check_s"]} s')
    print(f'tail (ended after {s["tail_from_s"]} s): {len(s["tail"])} parts')
    for x in s["tail"][-10:]:
        print(f"  {x}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(s, f, indent=1)


if __name__ == "__main__":
    main()
