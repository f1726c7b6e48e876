#!/usr/bin/env python3
"""Why a vendor route sits below a roofline fraction: Nsight Compute on each such route at its shape.

    scripts/diag/vendor_sol_profile.py SUITE_LARGE.json --cudamaster build/gpu/apps/cudamaster \
        --out DIR [--below 0.8] [--deadline SECONDS] [--only task:precision,...]

For every vendor row of the report (an `mskb run --json` report of the large sweep) whose roofline
fraction at the sweep's largest shape is below --below, runs
`cudamaster profile --task T --kernel vendor --precision P --shape <that shape>` (one call under ncu,
clocks untouched) and prints a Markdown table: the suite's time and SOL, then per kernel the call
launched its duration, share of the call's kernel time, DRAM and compute (SM) throughput as % of peak,
and the Otsu class. A route whose main kernel shows DRAM well below peak and SM
throughput near peak is instruction-bound, not bandwidth-bound; one with both low is latency-bound.
Writes each profile's JSON to DIR/<task>_<precision>.json. Needs a GPU and ncu.
"""
import argparse
import json
import os
import subprocess
import sys
import time


def rows_below(report, below, only):
    largest = {}
    for r in report.get("results", []):
        if r.get("contender") != "vendor" or r.get("sweep") != "large" or r.get("disposition") != "passed":
            continue
        k = (r["task"], r["precision"])
        if k not in largest or r["complexity"] > largest[k]["complexity"]:
            largest[k] = r
    out = [r for k, r in largest.items() if (r.get("sol_fraction") or 0) < below and (not only or f"{k[0]}:{k[1]}" in only)]
    return sorted(out, key=lambda r: r.get("sol_fraction") or 0)


def metric(m, name):
    v = m.get(name)
    return v.get("value") if isinstance(v, dict) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("report")
    ap.add_argument("--cudamaster", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--below", type=float, default=0.8)
    ap.add_argument("--deadline", type=float, default=1e9, help="stop starting profiles after this many seconds")
    ap.add_argument("--only", default="", help="task:precision,... to profile (default: every row below --below)")
    a = ap.parse_args()
    with open(a.report) as f:
        report = json.load(f)
    only = set(x for x in a.only.split(",") if x)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    print("| task | prec | shape | suite us | SOL | kernel | us | share | DRAM % | SM % | class |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows_below(report, a.below, only):
        if time.time() - t0 > a.deadline:
            print(f"(deadline: {r['task']} {r['precision']} and later rows not profiled)")
            break
        shape = ",".join(f"{k}={v}" for k, v in r["shape"].items())
        path = os.path.join(a.out, f"{r['task']}_{r['precision']}.json")
        cmd = [a.cudamaster, "profile", "--task", r["task"], "--kernel", "vendor", "--precision", r["precision"], "--shape", shape,
               "--json", path, "--timeout", "120", "--no-fallback"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        head = f"| {r['task']} | {r['precision']} | {shape} | {r['time_us']['median']:.1f} | {r.get('sol_fraction', 0):.2f} |"
        if p.returncode != 0 or not os.path.exists(path):
            last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else f"exit {p.returncode}"
            print(f"{head} (profile failed: {last[:120]}) ||||||")
            continue
        with open(path) as f:
            prof = json.load(f)
        kernels = prof.get("kernels") or []
        total = sum(k.get("duration_ns") or 0 for k in kernels) or 1.0
        for i, k in enumerate(sorted(kernels, key=lambda k: -(k.get("duration_ns") or 0))[:3]):
            m = k.get("metrics", {})
            name = (k.get("name") or k.get("kernel") or "?").split("(")[0][-40:]
            dram = metric(m, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")
            sm = metric(m, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
            cells = [name, f"{(k.get('duration_ns') or 0) / 1000:.1f}", f"{(k.get('duration_ns') or 0) / total:.2f}",
                     "-" if dram is None else f"{dram:.0f}", "-" if sm is None else f"{sm:.0f}", k.get("class", "?")]
            print((head if i == 0 else "| | | | | |") + " " + " | ".join(cells) + " |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
