#!/usr/bin/env python3
"""Summarize scripts/diag/sandbox_cost.sh's folder: per sandbox mode, against the unconfined run
of the same round, the median over timed shapes of (call time ratio), (device time ratio) and
(host time per call, us, difference), the check phase's summed seconds, the run's wall time and
the candidate processes' summed CPU time (wait4) and the contenders whose checks went through the
host because CUDA IPC failed (per round).

   python3 scripts/diag/sandbox_cost.py OUT      (Markdown on stdout)

A shape counts where both runs timed it correctly. Call time is the harness's median event time of
one call (launch and synchronization included); device time the CUPTI kernel time of the same
call; host time per call = call - device."""
import json
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


def main():
    out = sys.argv[1]
    walls = {}
    if os.path.exists(os.path.join(out, "walls.tsv")):
        for line in open(os.path.join(out, "walls.tsv")):
            r, m, s, rc = line.rstrip("\n").split("\t")
            walls[(int(r), m)] = (float(s), int(rc))
    rounds = sorted({r for r, _ in walls}) or [1]
    rows = {m: {"call": [], "dev": [], "host": [], "check": [], "wall": [], "ipc": [], "cpu": [], "n": 0, "levels": set()} for m in MODES}
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
            for k, (call, dev) in cur.items():
                if k not in base:
                    continue
                bcall, bdev = base[k]
                row["n"] += 1
                row["call"].append(call / bcall)
                if dev and bdev:
                    row["dev"].append(dev / bdev)
                    row["host"].append((call - dev) - (bcall - bdev))

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


if __name__ == "__main__":
    main()
