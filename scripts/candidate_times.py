#!/usr/bin/env python3
"""What one candidate's evaluation costs in a `cudamaster optimize` run: from its store (SQLite),
per candidate the nvcc build, the evaluation (checks on paper and held-out shapes, then the
paper-sweep timing; baseline and vendor are timed once per job, not per candidate), and the
acceptance gate's evaluations (memcheck, racecheck, the re-measurement beside the baseline), with
the medians and nvcc's share. Standard library only.

  scripts/candidate_times.py RUN.db [MORE.db ...] [--json FILE]
"""
import argparse
import json
import sqlite3
import statistics
import sys


def candidates_of(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    builds = {}
    for cid, seconds, hit, ok in db.execute("SELECT candidate_id, seconds, cache_hit, ok FROM builds"):
        b = builds.setdefault(cid, {"build_s": 0.0, "builds": 0, "cache_hits": 0, "built": False})
        b["build_s"] += seconds
        b["builds"] += 1
        b["cache_hits"] += int(hit)
        b["built"] = b["built"] or bool(ok)
    task_of = {}
    for cid, job in db.execute("SELECT id, job_id FROM candidates"):
        task_of[cid] = job
    jobs = {jid: f"{task} {prec}" for jid, task, prec in db.execute("SELECT id, task, precision FROM jobs")}
    out = []
    for cid, b in sorted(builds.items()):
        row = {"db": path, "job": jobs.get(task_of.get(cid), "?"), "candidate": cid, **b, "eval_s": None,
               "disposition": None, "gate_s": 0.0, "gate": []}
        for contender, disp, seconds, payload in db.execute(
                "SELECT contender, disposition, seconds, payload FROM evaluations WHERE candidate_id = ? ORDER BY id", (cid,)):
            mode = json.loads(payload).get("mode")
            if mode is None and contender == "candidate" and row["eval_s"] is None:
                row["eval_s"], row["disposition"] = seconds, disp
            elif mode is not None and contender.startswith("candidate"):
                row["gate_s"] += seconds
                row["gate"].append(mode)
            elif contender == "baseline" and mode is None:
                row["baseline"] = True
        if not row.get("baseline"):  # the job's baseline is stored as its first candidate
            out.append(row)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dbs", nargs="+")
    ap.add_argument("--json", help="write the rows and the summary as JSON to FILE")
    a = ap.parse_args()
    try:
        rows = [r for p in a.dbs for r in candidates_of(p)]
    except sqlite3.Error as e:
        print(f"candidate_times: {e} (is each file a cudamaster store?)", file=sys.stderr)
        return 1
    if not rows:
        print("candidate_times: no candidates in " + ", ".join(a.dbs), file=sys.stderr)
        return 1
    print(f"{'job':24} {'cand':>4} {'build s':>8} {'cached':>6} {'eval s':>7} {'gate s':>7}  disposition")
    for r in rows:
        ev = "-" if r["eval_s"] is None else f"{r['eval_s']:.1f}"
        print(f"{r['job']:24} {r['candidate']:>4} {r['build_s']:8.1f} {r['cache_hits']:>6} {ev:>7} {r['gate_s']:7.1f}  {r['disposition'] or ('not evaluated' if r['built'] else 'build failed')}")
    evaluated = [r for r in rows if r["eval_s"] is not None]
    summary = {"candidates": len(rows), "evaluated": len(evaluated)}
    if evaluated:
        total = [r["build_s"] + r["eval_s"] for r in evaluated]
        build = sum(r["build_s"] for r in evaluated)
        summary.update({
            "median_build_plus_eval_s": statistics.median(total),
            "median_build_s": statistics.median(r["build_s"] for r in evaluated),
            "median_eval_s": statistics.median(r["eval_s"] for r in evaluated),
            "nvcc_share": build / sum(total) if sum(total) > 0 else None,
            "gated": len([r for r in evaluated if r["gate"]]),
            "median_gate_s": statistics.median([r["gate_s"] for r in evaluated if r["gate"]] or [0.0]),
        })
        print(f"\n{len(evaluated)} candidates evaluated: median build + evaluation {summary['median_build_plus_eval_s']:.1f} s "
              f"(build {summary['median_build_s']:.1f} s, evaluation {summary['median_eval_s']:.1f} s; nvcc "
              f"{100 * summary['nvcc_share']:.0f}% of the total); the acceptance gate ran for {summary['gated']} of them "
              f"and added a median {summary['median_gate_s']:.1f} s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "summary": summary}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
