#!/usr/bin/env python3
"""Where one GPU's time went in a run, from the hold log of its lane lock.

With MSKB_GPU_LOCK_LOG=FILE, every hold of a GPU lane's lock (mskb/util/gpu_lock.hpp: shared
around GPU work that is not a timing, exclusive around a timing) appends a line when it ends:

    MODE T_ASKED T_HELD T_RELEASED PID [LABEL]   (MODE s or x; CLOCK_REALTIME seconds)

LABEL says what the hold was for (mskb's runner: load, check, free, timing, exit, then the shape,
the seed and NAME_ms=N fields: where the hold's time went).

Over the log's span (or from --t0, the run's start in the same clock) this splits the wall time
into: exclusive (a timing held the GPU), shared (checks' GPU work, no timing), and idle (nobody
held the lock), and says how much of the shared time a timing was waiting for, how long the
timings waited in all and behind which kinds of shared hold, the holds' counts and lengths, and
the seconds held by each kind of hold (the label's first word) with its NAME_ms fields summed. --split S (seconds after the start, e.g.
the end of the last checks part from scripts/suite_timeline.py) prints the same for before and
after it.

    scripts/gpu_lock_timeline.py holds.log [--t0 EPOCH] [--split S] [--json out.json]
"""
import argparse
import json
import re
import sys

FIELD = re.compile(r"^(\w+_ms)=(\d+)$")


def read(path):
    holds = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            try:
                if len(parts) < 5 or parts[0] not in ("s", "x"):
                    raise ValueError
                asked, held, released = map(float, parts[1:4])
                pid = int(parts[4])
            except ValueError:
                sys.exit(f"gpu_lock_timeline.py: {path}:{n}: not a hold line: {line.strip()!r}")
            label = parts[5:]
            fields = {m[1]: int(m[2]) for m in map(FIELD.match, label) if m}
            holds.append({"mode": parts[0], "asked": asked, "held": held, "released": released, "pid": pid,
                          "kind": label[0] if label else "-", "rest": label[1:], "fields": fields})
    return holds


def split_time(holds, start, end):
    """Seconds of [start, end) with a timing holding the GPU, only checks holding it, or nobody;
    of the shared seconds, those during which a timing waited (asked, not yet held), and for each
    kind of shared hold the seconds it was among the holders while a timing waited (kinds overlap)."""
    events = []
    for h in holds:
        if h["mode"] == "x":
            events += [(h["held"], "x", 1, ""), (h["released"], "x", -1, ""), (h["asked"], "w", 1, ""), (h["held"], "w", -1, "")]
        else:
            events += [(h["held"], "s", 1, h["kind"]), (h["released"], "s", -1, h["kind"])]
    events.sort(key=lambda e: (e[0], e[2]))  # ends before starts at one instant
    count = {"x": 0, "s": 0, "w": 0}
    shared_kinds = {}  # kind -> shared holds of it now
    out = {"exclusive_s": 0.0, "shared_s": 0.0, "idle_s": 0.0, "shared_while_timing_waited_s": 0.0}
    blocking = {}
    t = start
    for when, kind, step, hold_kind in events + [(end, "end", 0, "")]:
        a, b = max(t, start), min(when, end)
        if b > a:
            if count["x"] > 0:
                out["exclusive_s"] += b - a
            elif count["s"] > 0:
                out["shared_s"] += b - a
                if count["w"] > 0:
                    out["shared_while_timing_waited_s"] += b - a
                    for k, n in shared_kinds.items():
                        if n > 0:
                            blocking[k] = blocking.get(k, 0.0) + (b - a)
            else:
                out["idle_s"] += b - a
        t = max(t, when)
        if kind != "end":
            count[kind] += step
        if kind == "s":
            shared_kinds[hold_kind] = shared_kinds.get(hold_kind, 0) + step
    res = {k: round(v, 1) for k, v in out.items()}
    res["timing_waited_behind_s"] = {k: round(v, 1) for k, v in sorted(blocking.items(), key=lambda kv: -kv[1])}
    return res


def window(holds, start, end, t0):
    inside = [h for h in holds if h["released"] > start and h["held"] < end]
    x = [h for h in inside if h["mode"] == "x"]
    s = [h for h in inside if h["mode"] == "s"]
    res = {"from_s": round(start - t0, 1), "to_s": round(end - t0, 1), "wall_s": round(end - start, 1)}
    res.update(split_time(holds, start, end))
    res["timings"] = len(x)
    length = lambda h: min(h["released"], end) - max(h["held"], start)  # within the window
    res["timing_hold_mean_ms"] = round(1e3 * sum(length(h) for h in x) / len(x), 1) if x else 0
    res["timing_waited_s"] = round(sum(h["held"] - h["asked"] for h in x), 1)
    res["shared_holds"] = len(s)
    res["shared_hold_summed_s"] = round(sum(length(h) for h in s), 1)
    res["shared_hold_mean_ms"] = round(1e3 * res["shared_hold_summed_s"] / len(s), 1) if s else 0
    kinds = {}
    for h in inside:
        k = kinds.setdefault(f'{h["kind"]} ({h["mode"]})', {"holds": 0, "held_s": 0.0, "fields_s": {}})
        k["holds"] += 1
        k["held_s"] += length(h)
        for name, v in h["fields"].items():
            k["fields_s"][name] = k["fields_s"].get(name, 0) + v / 1e3
    for k in kinds.values():
        k["held_s"] = round(k["held_s"], 1)
        k["fields_s"] = {n: round(v, 3) for n, v in sorted(k["fields_s"].items())}
    res["by_kind"] = dict(sorted(kinds.items(), key=lambda kv: -kv[1]["held_s"]))
    res["longest"] = [f'{h["mode"]} {1e3 * length(h):.0f} ms pid {h["pid"]}: ' + " ".join([h["kind"]] + h.get("rest", []))
                      for h in sorted(inside, key=lambda h: -length(h))[:8]]
    return res


def show(name, w):
    wall = max(w["wall_s"], 1e-9)
    pct = lambda k: f'{w[k]} s ({100 * w[k] / wall:.0f}%)'
    print(f'{name}: {w["from_s"]}-{w["to_s"]} s ({w["wall_s"]} s): exclusive {pct("exclusive_s")}, shared {pct("shared_s")}, '
          f'idle {pct("idle_s")}')
    print(f'  shared while a timing waited {w["shared_while_timing_waited_s"]} s; {w["timings"]} timings, '
          f'{w["timing_hold_mean_ms"]} ms held each, {w["timing_waited_s"]} s waited in all; '
          f'{w["shared_holds"]} shared holds, {w["shared_hold_summed_s"]} s summed, {w["shared_hold_mean_ms"]} ms each')
    if w["timing_waited_behind_s"]:
        print("  a timing waited behind: " + ", ".join(f"{k} {v} s" for k, v in w["timing_waited_behind_s"].items()))
    for kind, k in w["by_kind"].items():
        fields = ", ".join(f"{n[:-3]} {v} s" for n, v in k["fields_s"].items())
        print(f'  {kind}: {k["holds"]} holds, {k["held_s"]} s held' + (f" ({fields})" if fields else ""))
    for line in w["longest"]:
        print(f"  longest: {line}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("--t0", type=float, help="the run's start (CLOCK_REALTIME seconds); default: the first hold asked")
    ap.add_argument("--split", type=float, help="seconds after the start at which to split the run in two")
    ap.add_argument("--json")
    a = ap.parse_args()
    holds = read(a.log)
    if not holds:
        sys.exit(f"gpu_lock_timeline.py: no holds in {a.log} (MSKB_GPU_LOCK_LOG not set, or a one-pass run: "
                 "--checks-per-gpu 1 takes no GPU lock)")
    t0 = a.t0 if a.t0 is not None else min(h["asked"] for h in holds)
    end = max(h["released"] for h in holds)
    out = {"whole": window(holds, t0, end, t0)}
    show("whole", out["whole"])
    if a.split is not None and t0 + a.split < end:
        out["before"] = window(holds, t0, t0 + a.split, t0)
        out["after"] = window(holds, t0 + a.split, end, t0)
        show("before the split", out["before"])
        show("after the split", out["after"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
