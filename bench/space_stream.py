#!/usr/bin/env python3
"""Seconds per ask of gpbandit.Optimizer over a streamed parameter space of ~10⁸ feasible
combinations (one-hot d = 29), at t = 10, 20 and 50 observations ([spaces] issue #32).

The space: base (6 labels), ligand (12), solvent (8), all one-hot; temperature (25 values,
20..140 °C), concentration (40 values) and time (integer minutes 1..240): 138 240 000 raw
combinations. Constraints: temperature + time/4 ≤ 170 (LinearInequality) and two forbidden
pairs (Exclude). Materialised, an Optimizer would hold (16·d + 33) bytes per combination;
streamed (docs/spaces.md, "Streaming") it holds 33 bytes per combination, the space's index and
a few chunks of encodings: the posterior recomputes μ and σ² chunk by chunk at each ask.

Each measurement: tell seeded random feasible combinations (a synthetic yield of their labels
and values) until t observations, then time one ask(1) (its sync, the posterior's chunked
recompute over every feasible combination and the argmax); the asked combination is told next.
Peak memory: run the script under /usr/bin/time -v (maximum resident set size).

BayBE (computed, not run): SearchSpace.from_product materialises the unconstrained product
before filtering constraints: its computational representation alone is raw × d float64.

Usage: /usr/bin/time -v python3 bench/space_stream.py --build build-cpu [--ts 10 20 50]
           [--out bench/space_stream.json] [--results bench/RESULTS.md] [--time-max 240]
           [--section space-stream] [--note "..."]
--time-max shrinks the space (19: ~10⁷ combinations; --memory-budget-mb 1024 then makes the
Optimizer stream it, as it streams 10⁸ by default); --section names the generated section, so
runs of several sizes or builds keep one section each.
Writes the JSON to --out and, with --results, the section between the space-stream markers of
that file (generated; rerun to refresh). The peak is the process's maximum resident set size
(getrusage, the number /usr/bin/time -v reports).
"""
import argparse
import json
import os
import platform
import resource
import shlex
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_section  # noqa: E402


def build_space(gp, time_max=240):
    bases = [f"B{i}" for i in range(6)]
    ligands = [f"L{i}" for i in range(12)]
    solvents = [f"S{i}" for i in range(8)]
    params = [gp.Categorical("base", bases), gp.Categorical("ligand", ligands),
              gp.Categorical("solvent", solvents),
              gp.NumericalDiscrete("temp", [20.0 + 5 * i for i in range(25)]),
              gp.NumericalDiscrete("conc", [0.02 * (i + 1) for i in range(40)]),
              gp.Integer("time", 1, time_max)]
    cons = [gp.LinearInequality(["temp", "time"], [1.0, 0.25], 170.0),
            gp.Exclude({"base": ["B5"], "solvent": ["S7"]}),
            gp.Exclude({"ligand": ["L0", "L1"], "temp": [140.0]})]
    return gp.ParameterSpace(params, cons)


def synthetic_yield(p):
    """A deterministic yield of one combination (labels and values)."""
    lig = int(p["ligand"][1:])
    return (np.sin(0.7 * lig) + 0.5 * (p["base"] == "B2") + 0.3 * (p["solvent"] in ("S1", "S4"))
            - ((p["temp"] - 95.0) / 40.0) ** 2 + 2.0 * p["conc"] - abs(p["time"] - 60) / 200.0)


def rss_mb():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="build folder (its python/ is imported)")
    ap.add_argument("--ts", type=int, nargs="+", default=[10, 20, 50])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "space_stream.json"))
    ap.add_argument("--results", help="markdown file whose space-stream section is rewritten")
    ap.add_argument("--time-max", type=int, default=240,
                    help="upper end of the integer 'time' parameter (240: ~1.25·10⁸ feasible "
                         "combinations; 19: ~10⁷)")
    ap.add_argument("--section", default="space-stream",
                    help="name of the generated section's markers (one section per name)")
    ap.add_argument("--note", default="", help="a sentence the section states (e.g. which build)")
    ap.add_argument("--memory-budget-mb", type=float,
                    help="the Optimizer's memory budget (default: 75 %% of the memory available); "
                         "below the materialised size it forces streaming")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import gpbandit as g
    from gpbandit import params as gp

    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    space = build_space(gp, args.time_max)
    t_index = time.perf_counter() - t0
    n, d, raw = len(space), space.n_features, space.raw_size
    t0 = time.perf_counter()
    budget = {} if args.memory_budget_mb is None else {
        "memory_budget_bytes": int(args.memory_budget_mb * 2**20)}
    opt = g.Optimizer(space, seed=1, backend="cpu", threads=args.threads, **budget)
    t_build = time.perf_counter() - t0
    rng = np.random.default_rng(3)
    rows = []
    told = 0
    for t in args.ts:
        picks = rng.choice(n, size=t - told, replace=False)
        pts = [space[int(k)] for k in picks]
        if rows:  # the previous ask's combination is told first
            pts = [rows[-1]["asked"]] + pts[1:]
        opt.tell(pts, [synthetic_yield(p) for p in pts])
        told = t
        assert len(opt.X) == t
        s = time.perf_counter()
        c = time.process_time()
        sug = opt.ask(1)
        rows.append({"t": t, "ask_seconds": round(time.perf_counter() - s, 2),
                     "ask_cpu_seconds": round(time.process_time() - c, 2),
                     "rss_mb_after": round(rss_mb(), 1), "asked": sug.points[0]})
        print(json.dumps(rows[-1]), flush=True)
        report(args, load, raw, n, d, t_index, t_build, space, opt, rows)  # after every ask


def report(args, load, raw, n, d, t_index, t_build, space, opt, rows):
    """Writes the results so far (--out, and --results when given)."""
    out = {
        "command": "/usr/bin/time -v python3 bench/space_stream.py " + shlex.join(sys.argv[1:]),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "load_average_before": load,
        "raw_combinations": raw, "feasible": n, "features": d, "streams": bool(opt.streams),
        "index_seconds": round(t_index, 2), "index_bytes": int(space.core.index_bytes),
        "optimizer_build_seconds": round(t_build, 2),
        "materialised_optimizer_bytes": n * (16 * d + 33),
        "streamed_optimizer_bytes": n * 33 + int(space.core.index_bytes),
        "baybe_comp_rep_bytes_computed": raw * d * 8,
        "ts_requested": args.ts,
        "note": args.note,
        "asks": rows,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1),
    }
    text = json.dumps(out, indent=2)
    print(text)
    with open(args.out, "w") as fh:
        fh.write(text + "\n")
    if args.results:
        write_section(args.results, out, args.section)


def markers(section):
    return f"<!-- {section}:begin", f"<!-- {section}:end -->"


def markdown(r, section):
    gb = 1e9
    begin, end = markers(section)
    note = [r["note"], ""] if r.get("note") else []
    lines = [
        f"{begin} (generated by bench/space_stream.py) -->", "",
        f"Command: `{r['command']}` ({r['machine']}, load average {r['load_average_before']:.1f} "
        "before the run; a shared machine: times are upper bounds).", ""] + note + [
        f"Space: {r['raw_combinations']:,} raw combinations, {r['feasible']:,} feasible after 1 "
        f"linear and 2 exclusion constraints, d = {r['features']} one-hot/numeric features; index "
        f"{r['index_bytes'] / 1024:.1f} KiB built in {r['index_seconds']} s. "
        f"`gpbandit.Optimizer` (defaults: EI, fit after every tell) streams it "
        f"(`streams = {r['streams']}`); built in {r['optimizer_build_seconds']} s (the bounding "
        "box pass and the kernel diagonal).", "",
        "| t (observations) | seconds per ask | CPU s | resident MB after the ask |",
        "|---:|---:|---:|---:|"]
    for a in r["asks"]:
        lines.append(f"| {a['t']} | {a['ask_seconds']} | {a['ask_cpu_seconds']} | "
                     f"{a['rss_mb_after']:,.0f} |")
    missing = [t for t in r["ts_requested"] if t not in [a["t"] for a in r["asks"]]]
    if missing:
        lines += ["", f"Not measured: t = {', '.join(map(str, missing))} (the run had not reached "
                  "it when these results were written; the table is rewritten after every ask)."]
    lines += [
        "",
        f"Peak resident memory of the whole process so far: {r['peak_rss_mb'] / 1024:.2f} GiB. "
        f"Streamed model: 33 B per combination + the index = "
        f"{r['streamed_optimizer_bytes'] / gb:.2f} GB; materialised, the same Optimizer would "
        f"hold {r['materialised_optimizer_bytes'] / gb:.1f} GB ((16·d + 33)·N).", "",
        "BayBE on this space family: measured at the sizes it builds, not computed, in the "
        "section \"Constrained product spaces beside BayBE at the sizes it builds\" "
        "(bench/space_baybe.py).", "",
        end]
    return "\n".join(lines)


def write_section(path, r, section):
    begin, end = markers(section)
    title = ("Streamed parameter spaces: seconds per ask over ~10⁸ combinations ([spaces] issue "
             "#32)") if section == "space-stream" else (
        f"Streamed parameter spaces, {r['feasible']:,} combinations ({section}; [spaces] #32)")
    results_section.write_section(path, markdown(r, section), begin, end, title)


if __name__ == "__main__":
    main()
