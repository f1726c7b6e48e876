#!/usr/bin/env python3
"""Summarize scripts/diag/sandbox_cost.sh's folder: per sandbox mode, against the unconfined run
of the same round, the median over timed shapes of (call time ratio), (device time ratio) and
(host time per call, us, difference), the check phase's summed seconds, the run's wall time and
the candidate processes' summed CPU time (wait4) and the contenders whose checks went through the
host because CUDA IPC failed (per round).

   python3 scripts/diag/sandbox_cost.py OUT [--json FILE]     (Markdown on stdout; --json: the same numbers)

A shape counts where both runs timed it correctly. Call time is the harness's median event time of
one call (launch and synchronization included); device time the CUPTI kernel time of the same
call; host time per call = call - device. Per round too (call time median and geometric mean, wall):
the rounds show how far the same comparison moves from one repetition to the next."""
import json
import math
import os
import re
import statistics
import sys

MODES = ["on", "files", "calls", "spec", "off"]


def load(path):
    with open(path) as f:
        d = json.load(f)
    shapes = {}
    for r in d.get("results", []):
        t = r.get("time_us") or {}
        if r.get("disposition") not in ("passed", "noisy") or "median" not in t:
            continue
        key = (r["task"], r["precision"], r["contender"], r.get("sweep"), json.dumps(r["shape"], sort_keys=True))
        shapes[key] = (t["median"], r.get("device_us"))
    check = sum((c.get("phase_seconds") or {}).get("check", 0.0) for c in d.get("contenders", []))
    levels = sorted({c.get("sandbox", "?") for c in d.get("contenders", [])})
    ipc = sum(1 for c in d.get("contenders", []) if "ipc" in (c.get("notes") or {}))
    cpu = 0.0  # the candidates' user + system CPU seconds (notes.candidate_usage, from wait4)
    for c in d.get("contenders", []):
        m = re.search(r"user ([0-9.]+) s, system ([0-9.]+) s", (c.get("notes") or {}).get("candidate_usage", ""))
        if m:
            cpu += float(m.group(1)) + float(m.group(2))
    return shapes, check, levels, (ipc, cpu)


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    args = sys.argv[1:]
    json_path = None
    if "--json" in args:
        i = args.index("--json")
        if i + 1 >= len(args):
            sys.exit("usage: sandbox_cost.py OUT [--json FILE]")
        json_path = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit("usage: sandbox_cost.py OUT [--json FILE]")
    out = args[0]
    walls = {}
    if os.path.exists(os.path.join(out, "walls.tsv")):
        for line in open(os.path.join(out, "walls.tsv")):
            r, m, s, rc = line.rstrip("\n").split("\t")
            walls[(int(r), m)] = (float(s), int(rc))
    rounds = sorted({r for r, _ in walls}) or [1]
    rows = {m: {"call": [], "dev": [], "host": [], "check": [], "wall": [], "ipc": [], "cpu": [], "n": 0, "levels": set()} for m in MODES}
    per_round = []  # (round, mode, shapes, call median, call geomean, host us median, wall ratio)
    for r in rounds:
        base_path = os.path.join(out, f"r{r}_off.json")
        if not os.path.exists(base_path):
            continue
        base, base_check, _, (base_ipc, base_cpu) = load(base_path)
        rows["off"]["ipc"].append(base_ipc)
        for m in MODES:
            p = os.path.join(out, f"r{r}_{m}.json")
            if not os.path.exists(p):
                continue
            cur, check, levels, (ipc, cpu) = load(p)
            row = rows[m]
            if m != "off":
                row["ipc"].append(ipc)
            if base_cpu > 0:
                row["cpu"].append(cpu / base_cpu)
            row["levels"].update(levels)
            row["check"].append(check / base_check if base_check else float("nan"))
            if (r, m) in walls and (r, "off") in walls and walls[(r, "off")][0] > 0:
                row["wall"].append(walls[(r, m)][0] / walls[(r, "off")][0])
            rc, rh = [], []
            for k, (call, dev) in cur.items():
                if k not in base:
                    continue
                bcall, bdev = base[k]
                row["n"] += 1
                row["call"].append(call / bcall)
                rc.append(call / bcall)
                if dev and bdev:
                    row["dev"].append(dev / bdev)
                    row["host"].append((call - dev) - (bcall - bdev))
                    rh.append((call - dev) - (bcall - bdev))
            if m != "off" and rc:
                wall = walls[(r, m)][0] / walls[(r, "off")][0] if (r, m) in walls and (r, "off") in walls and walls[(r, "off")][0] > 0 else None
                per_round.append({"round": r, "mode": m, "shapes": len(rc), "call_ratio_median": statistics.median(rc),
                                  "call_ratio_geomean": geomean(rc), "host_us_median": statistics.median(rh) if rh else None,
                                  "wall_ratio": wall})

    def med(v, fmt):
        return fmt.format(statistics.median(v)) if v else "n/a"

    print(f"# Sandbox cost, {len(rounds)} round(s), against MSKB_SANDBOX=off of the same round\n")
    host = os.path.join(out, "host.txt")
    if os.path.exists(host):
        print("```\n" + open(host).read().rstrip() + "\n```\n")
    print("| mode | level | shapes | call time ratio (median) | device time ratio | host us per call, difference | check phase ratio | candidates' CPU ratio | wall ratio | contenders without CUDA IPC |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m in MODES:
        row = rows[m]
        if not row["n"] and m != "off":
            continue
        print(f"| {m} | {'; '.join(sorted(row['levels']))} | {row['n']} | {med(row['call'], '{:.3f}')} | "
              f"{med(row['dev'], '{:.3f}')} | {med(row['host'], '{:+.2f}')} | {med(row['check'], '{:.3f}')} | "
              f"{med(row['cpu'], '{:.3f}')} | {med(row['wall'], '{:.3f}')} | {'/'.join(str(x) for x in row['ipc']) or 'n/a'} |")
    if per_round:
        print("\nPer round (against the same round's unconfined run):\n")
        print("| round | mode | shapes | call time ratio (median) | call time ratio (geometric mean) | host us per call | wall ratio |")
        print("|---:|---|---:|---:|---:|---:|---:|")
        for x in per_round:
            hs = "n/a" if x["host_us_median"] is None else f"{x['host_us_median']:+.2f}"
            wall = "n/a" if x["wall_ratio"] is None else f"{x['wall_ratio']:.3f}"
            print(f"| {x['round']} | {x['mode']} | {x['shapes']} | {x['call_ratio_median']:.3f} | {x['call_ratio_geomean']:.3f} | {hs} | {wall} |")
    if json_path:
        modes = {}
        for m in MODES:
            row = rows[m]
            if not row["n"] and m != "off":
                continue
            pick = lambda v: statistics.median(v) if v else None  # noqa: E731
            modes[m] = {"levels": sorted(row["levels"]), "shapes": row["n"], "call_ratio_median": pick(row["call"]),
                        "call_ratio_geomean": geomean(row["call"]) if row["call"] else None,
                        "device_ratio_median": pick(row["dev"]), "host_us_median": pick(row["host"]),
                        "check_phase_ratio": pick(row["check"]), "candidates_cpu_ratio": pick(row["cpu"]),
                        "wall_ratio": pick(row["wall"]), "contenders_without_ipc": row["ipc"]}
        host_lines = open(host).read().splitlines() if os.path.exists(host) else []
        with open(json_path, "w") as f:
            json.dump({"rounds": rounds, "host": host_lines, "modes": modes, "per_round": per_round,
                       "walls_s": [{"round": r, "mode": m, "seconds": s_, "rc": rc_} for (r, m), (s_, rc_) in sorted(walls.items())]},
                      f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
