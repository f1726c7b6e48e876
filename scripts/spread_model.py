#!/usr/bin/env python3
"""Fit the spread model (data/spread_model.json, docs/harness.md section 5) from two or more
`mskb run --json` reports of the same kernels: per pair of reports, per shape both timed
correctly, the log ratio of the two median times; grouped by time scale (the geometric mean of
the two medians) and by scope (between processes: both reports on the same GPU, by its UUID;
between leases: different GPUs or a UUID missing); the bound of a band is the --quantile
(default 0.95) of |ln(t_b / t_a)|. Call time always (time_us.median); device time too where both
reports carry a shape's device_us. The common term of a scope is the largest |ln| of a pair's
geometric-mean time ratio over all its shapes (a run-wide shift: clocks, the machine).
A model is one GPU model's: the reports must all name the same device (device.name), which the
model records as "measured_on"; the tools say so where a report's GPU is another.

  scripts/spread_model.py A.json B.json [C.json ...] [--quantile 0.95] [--write data/spread_model.json]

Prints the table as docs/harness.md shows it (Markdown). --write updates the model file: the
scopes these reports measured are replaced (with their provenance), the others are kept as they
were; the version goes up by one. Standard library only.
"""
import argparse
import datetime
import itertools
import json
import math
import os
import sys

BANDS_US = [15.0, 30.0, 100.0, 1000.0]  # upper edges; the last band is open
CORRECT = {"passed", "noisy"}
SCOPES = ("between_process", "between_lease")
MIN_SHAPES = 20  # fewer shapes in a band: the quantile is flagged as thin


def fail(msg):
    print(f"spread_model.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if not isinstance(d, dict) or not isinstance(d.get("results"), list) or "device" not in d:
        fail(f"{path} is not an mskb run JSON report (no \"device\" and \"results\")")
    return d


def uuid_of(report):
    dev = report.get("device")
    return dev.get("uuid") if isinstance(dev, dict) and dev.get("uuid") else None


def gpu_of(report):
    """The GPU model a report ran on: {"gpu": device name, "compute_capability": ...}, or None."""
    dev = report.get("device")
    if not isinstance(dev, dict) or not isinstance(dev.get("name"), str) or not dev["name"]:
        return None
    on = {"gpu": dev["name"]}
    if isinstance(dev.get("compute_capability"), str):
        on["compute_capability"] = dev["compute_capability"]
    return on


def measured_on(paths, reports):
    """The one GPU model of all the reports; refuses a mix (a model is one GPU model's)."""
    seen = {}
    for p, r in zip(paths, reports):
        on = gpu_of(r)
        if on is None:
            fail(f"{p} does not name its GPU (device.name): the model records the GPU model it was measured on")
        seen.setdefault(on["gpu"], (p, on))
    if len(seen) > 1:
        fail("the reports ran on different GPU models (" + ", ".join(f"{g}: {p}" for g, (p, _) in seen.items()) +
             "): fit one model per GPU model")
    return next(iter(seen.values()))[1]


def commit_of(report):
    r = report.get("reproduce")
    tool = r.get("tool") if isinstance(r, dict) else None
    return tool.get("commit") if isinstance(tool, dict) else None


def timings(report):
    """(task, precision, contender, sweep, shape) -> (call median us, device median us or None, noise)."""
    out = {}
    for r in report["results"]:
        if not isinstance(r, dict) or r.get("disposition") not in CORRECT:
            continue
        t = r.get("time_us")
        m = t.get("median") if isinstance(t, dict) else None
        if not isinstance(m, (int, float)) or m <= 0:
            continue
        dev = r.get("device_us")
        dev = dev if isinstance(dev, (int, float)) and dev > 0 else None
        key = (r.get("task"), r.get("precision"), r.get("contender"), r.get("sweep"), json.dumps(r.get("shape"), sort_keys=True))
        noise = t.get("noise")
        out[key] = (float(m), dev, float(noise) if isinstance(noise, (int, float)) and noise > 0 else 0.0)
    return out


def band_of(us, edges):
    for i, e in enumerate(edges):
        if us < e:
            return i
    return len(edges)


def quantile(values, q):
    """Linear interpolation between order statistics (numpy's default)."""
    v = sorted(values)
    if not v:
        return None
    pos = q * (len(v) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def band_names(edges):
    names, lo = [], None
    for e in edges:
        names.append(f"< {e:g} us" if lo is None else f"{lo:g}-{e:g} us")
        lo = e
    names.append(f">= {lo:g} us")
    return names


def fit(paths, reports, q, edges):
    nb = len(edges) + 1
    logs = {s: {"call": [[] for _ in range(nb)], "device": [[] for _ in range(nb)]} for s in SCOPES}
    common = {s: [] for s in SCOPES}
    pairs = {s: [] for s in SCOPES}
    entries = {s: {} for s in SCOPES}
    for (i, a), (j, b) in itertools.combinations(enumerate(reports), 2):
        ua, ub = uuid_of(a), uuid_of(b)
        scope = "between_process" if ua and ua == ub else "between_lease"
        ta, tb = timings(a), timings(b)
        shared = sorted(set(ta) & set(tb))
        if not shared:
            print(f"spread_model.py: warning: {paths[i]} and {paths[j]} have no shape timed correctly in both", file=sys.stderr)
            continue
        pairs[scope].append({"a": os.path.basename(paths[i]), "b": os.path.basename(paths[j]), "commit_a": commit_of(a),
                             "commit_b": commit_of(b), "gpu_a": ua, "gpu_b": ub, "shapes": len(shared)})
        total = 0.0
        for k in shared:
            (ca, da, na), (cb, db, nb_) = ta[k], tb[k]
            r = math.log(cb / ca)
            total += r
            logs[scope]["call"][band_of(math.sqrt(ca * cb), edges)].append(abs(r))
            # Per entry (task, precision, contender, sweep): the shapes' log ratios, for rho.
            entries[scope].setdefault((i, j) + k[:4], []).append((r, band_of(ca, edges), max(na, nb_)))
            if da is not None and db is not None:
                logs[scope]["device"][band_of(math.sqrt(da * db), edges)].append(abs(math.log(db / da)))
        common[scope].append(abs(total / len(shared)))
    model = {}
    for s in SCOPES:
        if not pairs[s]:
            continue
        entry = {"pairs": pairs[s], "common": round(max(common[s]), 4)}
        for kind in ("call", "device"):
            vals = logs[s][kind]
            if not any(vals):
                entry[kind] = None
                continue
            bounds = [quantile(v, q) for v in vals]
            # An empty band takes its nearest measured neighbour's bound, the faster one first
            # (spreads shrink as times grow), and says so.
            filled = []
            for bi in range(nb):
                if bounds[bi] is None:
                    src = next((x for x in list(range(bi - 1, -1, -1)) + list(range(bi + 1, nb)) if vals[x]), None)
                    bounds[bi] = quantile(vals[src], q)
                    filled.append({"band": bi, "from": src})
            entry[kind] = [round(x, 4) for x in bounds]
            entry[kind + "_shapes"] = [len(v) for v in vals]
            entry[kind + "_median"] = [round(quantile(v, 0.5), 4) if v else None for v in vals]
            if filled:
                entry[kind + "_filled"] = filled
        entry["rho"], entry["rho_coverage"] = fit_rho(entries[s], entry["call"], entry["common"], q)
        model[s] = entry
    return model


def z_of(q):
    """The normal quantile z with P(|Z| <= z) = q (bisection on erf)."""
    lo, hi = 0.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erf(mid / math.sqrt(2)) < q else (lo, mid)
    return (lo + hi) / 2


def combine(weights, bounds, rho):
    """The bound of sum w_i x_i when each |x_i| has bound e_i and any two share a correlation rho
    (docs/harness.md, section 5; mskb/core/spread.hpp's combine)."""
    lin = sum(w * e for w, e in zip(weights, bounds))
    quad = sum((w * e) ** 2 for w, e in zip(weights, bounds))
    return math.sqrt(rho * lin * lin + (1 - rho) * quad)


def fit_rho(entries, call, common, q):
    """The smallest correlation rho (0, 0.05, ..., 1) between the shapes of one entry at which q of
    the entries' geometric-mean time ratios fall within their bound; and that share."""
    z = z_of(q)
    groups = [g for g in entries.values() if g]
    if not groups:
        return 1.0, None
    share = 0.0
    for step in range(21):
        rho = step / 20
        inside = 0
        for g in groups:
            e = [math.sqrt(call[b] ** 2 + 2 * (z * n) ** 2) for _, b, n in g]
            h = math.sqrt(combine([1 / len(g)] * len(g), e, rho) ** 2 + common ** 2)
            inside += abs(sum(r for r, _, _ in g) / len(g)) <= h
        share = inside / len(groups)
        if share >= q:
            return rho, round(share, 4)
    return 1.0, round(share, 4)


def table(model, q, edges):
    names = band_names(edges)
    lines = [f"| scope | time | {' | '.join(names)} | common | rho |", "|---|---|" + "---|" * len(names) + "---|---|"]
    for s in SCOPES:
        e = model.get(s)
        if not e:
            continue
        for kind in ("call", "device"):
            if not e.get(kind):
                continue
            shapes = e.get(kind + "_shapes")
            cells = []
            for i, b in enumerate(e[kind]):
                n = f" (n={shapes[i]})" if shapes else ""
                thin = "*" if shapes and shapes[i] < MIN_SHAPES else ""
                cells.append(f"{100 * b:.1f}%{n}{thin}")
            common = f"{100 * e['common']:.1f}%" if kind == "call" and e.get("common") is not None else "-"
            rho = f"{e['rho']:.2f}" if kind == "call" and e.get("rho") is not None else "-"
            lines.append(f"| {s.replace('_', ' ')} | {kind} | {' | '.join(cells)} | {common} | {rho} |")
    lines.append("")
    lines.append(f"Bounds: the {100 * q:g}th percentile of |ln(t_b / t_a)| per band (* fewer than {MIN_SHAPES} shapes); common: the "
                 f"largest run-wide shift; rho: the correlation of one entry's shapes at which {100 * q:g}% of the entries' "
                 f"geometric-mean times fall within their bound.")
    return "\n".join(lines)


def write(path, fitted, q, edges, argv, on):
    old = {}
    if os.path.exists(path):
        try:
            with open(path) as f:
                old = json.load(f)
        except ValueError as e:
            fail(f"{path}: {e}")
    if old and (old.get("quantile") != q or old.get("bands_us") != edges):
        kept = [s for s in SCOPES if s in old.get("scopes", {}) and s not in fitted]
        if kept:
            fail(f"{path} has quantile {old.get('quantile')} and bands {old.get('bands_us')}: refit {', '.join(kept)} too "
                 f"(pass reports of both scopes) or use the same --quantile")
    old_on = old.get("measured_on") if old else None
    if old_on and old_on.get("gpu") != on["gpu"]:
        kept = [s for s in SCOPES if s in old.get("scopes", {}) and s not in fitted]
        if kept:
            fail(f"{path} was measured on {old_on.get('gpu')}, these reports on {on['gpu']}: refit {', '.join(kept)} too "
                 f"(pass reports of both scopes) or write another file")
    scopes = dict(old.get("scopes", {})) if old else {}
    today = datetime.date.today().isoformat()
    for s, e in fitted.items():
        e = dict(e)
        e["fitted"] = today
        e["command"] = " ".join(["scripts/spread_model.py"] + argv)
        e.pop("provisional", None)
        scopes[s] = e
    provisional = any(scopes.get(s, {}).get("provisional", False) for s in SCOPES)
    doc = {"format": 1, "version": int(old.get("version", 0)) + 1, "quantile": q, "bands_us": edges,
           "statistic": "per band, the quantile of |ln(t_b / t_a)| over the shapes two reports of the same kernels both timed "
                        "correctly (t: median time, us; band: the geometric mean of the two medians); common: the largest |ln| of "
                        "a pair's geometric-mean time ratio over its shapes",
           "provisional": provisional, "measured_on": on, "scopes": scopes}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reports", nargs="+", help="mskb run --json reports of the same kernels (two or more)")
    ap.add_argument("--quantile", type=float, default=0.95, help="the quantile of |ln ratio| a band's bound is (default 0.95)")
    ap.add_argument("--write", metavar="FILE", help="update this model file (data/spread_model.json)")
    ap.add_argument("--json", action="store_true", help="print the fitted scopes as JSON instead of the table")
    a = ap.parse_args()
    if len(a.reports) < 2:
        fail("give two or more reports of the same kernels")
    if not 0.5 <= a.quantile < 1:
        fail(f"--quantile {a.quantile}: must be in [0.5, 1)")
    reports = [load(p) for p in a.reports]
    on = measured_on(a.reports, reports)
    fitted = fit(a.reports, reports, a.quantile, BANDS_US)
    if not fitted:
        fail("no pair of reports has a shape timed correctly in both")
    print(json.dumps(fitted, indent=1) if a.json else table(fitted, a.quantile, BANDS_US))
    if a.write:
        doc = write(a.write, fitted, a.quantile, BANDS_US, sys.argv[1:], on)
        print(f"wrote {a.write} (version {doc['version']})", file=sys.stderr)


if __name__ == "__main__":
    main()
