#!/usr/bin/env python3
"""Cost growth of the continuous-box families: DP-GIBO with its baselines and Fed-PNE with its
baselines, so users can size their runs ([perf] 4; the finite-domain policies are in
policy_costs.py). One `gpbandit run` process per cell (one run, CPU, one thread: OMP_NUM_THREADS=1
and "threads": 1 where the config has it); ms per round =
each method's own time in summary.json (`methods[i].seconds`) / T; peak MiB = the process's peak
resident set (os.wait4), shared by the methods of the cell.

  DP-GIBO family: task normal_location (n users, dimension d), T rounds, methods DP-GIBO (μ = 1),
    GIBO, DP-GD, GD, random search and UCB-BO (both matched to DP-GIBO's evaluations). The default
    stops at d = 16: at d = 32 (n = 100, T = 50) UCB-BO already took 3.2 s and DP-GIBO 0.2 s per
    round here, and T = 200 would run for many minutes.
  Fed-PNE family: Himmelblau (2-d), M clients, horizon T, methods Fed-PNE, DP-Fed-PNE, HCT,
    Fed1-UCB, random, and GP-UCB on the 100×100 mesh (only up to --max-T-gp: its exact posterior
    over 10⁴ arms costs O(10⁴·t) per round).

Usage: python3 bench/continuous_costs.py --build build [--d 2 8 16] [--n 100 10000]
           [--T-gibo 50 200] [--M 1 10 100] [--T-fed 1000 10000] [--max-T-gp 1000]
           [--out bench/results]
Writes a Markdown table per family on stdout, continuous_costs.json and continuous_costs.png.
"""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from policy_costs import run_config, save_figure, two_panel_figure  # noqa: E402

GIBO_STEP = {"B": 1, "step": "adagrad", "eta": 0.3}


def gibo_config(d, n, horizon):
    gp = dict(GIBO_STEP, sigma2=0.0025, T=horizon)
    return {"experiment": "dp-gibo", "name": "cost", "privacy_noise": "seeded", "seed": 1,
            "runs": 1, "threads": 1, "backend": "cpu",
            "task": {"type": "normal_location", "d": d, "n": n, "centre": 1, "spread": 1,
                     "lower": -3, "upper": 3},
            "methods": [dict(gp, type="dp_gibo", label="DP-GIBO", mu=1),
                        dict(gp, type="gibo", label="GIBO"),
                        dict(GIBO_STEP, type="dp_gd", label="DP-GD", mu=1, T=horizon),
                        {"type": "gd", "label": "GD", "T": horizon, "step": "adagrad", "eta": 0.3},
                        {"type": "random_search", "label": "random search", "match": "DP-GIBO"},
                        {"type": "ucb_bo", "label": "UCB-BO", "match": "DP-GIBO",
                         "n_cand": 256}]}


def fed_config(M, horizon, with_gp):
    methods = [{"type": "fed-pne", "label": "Fed-PNE"},
               {"type": "dp-fed-pne", "label": "DP-Fed-PNE"},
               {"type": "hct", "label": "HCT"},
               {"type": "fed1-ucb", "label": "Fed1-UCB"},
               {"type": "random", "label": "random"}]
    if with_gp:
        methods.append({"type": "gp-ucb", "label": "GP-UCB (mesh)"})
    return {"experiment": "fed-pne", "name": "cost", "seed": 1, "runs": 1, "horizon": horizon,
            "clients": M, "noise": 0.1, "objective": {"type": "himmelblau"}, "methods": methods}


def measure(exe, cfg, horizon, key):
    with tempfile.TemporaryDirectory() as tmp:
        res = run_config(exe, cfg, tmp)
    if res is None:
        return [dict(key, failed=True)]
    summary, peak = res
    return [dict(key, method=m["label"], ms_per_round=1e3 * m["seconds"] / horizon,
                 peak_mib=peak) for m in summary.get("policies", summary.get("methods", []))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--d", type=int, nargs="+", default=[2, 8, 16])
    ap.add_argument("--n", type=int, nargs="+", default=[100, 10000])
    ap.add_argument("--T-gibo", type=int, nargs="+", default=[50, 200])
    ap.add_argument("--M", type=int, nargs="+", default=[1, 10, 100])
    ap.add_argument("--T-fed", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--max-T-gp", type=int, default=1000)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "results"))
    args = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = "1"  # the fed-pne driver has no "threads" key
    exe = os.path.join(args.build, "gpbandit")
    os.makedirs(args.out, exist_ok=True)
    rows = []
    print("| method | d | n users | T | ms/round | peak MiB |")
    print("|---|---|---|---|---|---|", flush=True)
    for d in args.d:
        for n in args.n:
            for horizon in args.T_gibo:
                key = {"family": "dp-gibo", "d": d, "n": n, "T": horizon}
                for r in measure(exe, gibo_config(d, n, horizon), horizon, key):
                    rows.append(r)
                    print(f"| {r.get('method', 'failed')} | {d} | {n} | {horizon} | "
                          f"{r.get('ms_per_round', float('nan')):.3f} | "
                          f"{r.get('peak_mib', float('nan')):.0f} |", flush=True)
    print()
    print("| method | M clients | T | ms/round | peak MiB |")
    print("|---|---|---|---|---|", flush=True)
    for M in args.M:
        for horizon in args.T_fed:
            key = {"family": "fed-pne", "M": M, "T": horizon}
            cfg = fed_config(M, horizon, horizon <= args.max_T_gp)
            for r in measure(exe, cfg, horizon, key):
                rows.append(r)
                print(f"| {r.get('method', 'failed')} | {M} | {horizon} | "
                      f"{r.get('ms_per_round', float('nan')):.4f} | "
                      f"{r.get('peak_mib', float('nan')):.0f} |", flush=True)
    with open(os.path.join(args.out, "continuous_costs.json"), "w") as fh:
        json.dump(rows, fh, indent=1)
    plot(rows, args, os.path.join(args.out, "continuous_costs.png"))


def plot(rows, args, path):
    figure = two_panel_figure("continuous_costs.py")
    if figure is None:
        return
    fig, axes = figure
    n_fix, t_gibo, t_fed = max(args.n), max(args.T_gibo), max(args.T_fed)
    gibo = [r for r in rows if r["family"] == "dp-gibo" and "ms_per_round" in r]
    for m in dict.fromkeys(r["method"] for r in gibo):
        pts = [(r["d"], r["ms_per_round"]) for r in gibo
               if r["method"] == m and r["n"] == n_fix and r["T"] == t_gibo]
        if pts:
            axes[0].loglog(*zip(*pts), "o-", label=m)
    fed = [r for r in rows if r["family"] == "fed-pne" and "ms_per_round" in r]
    for m in dict.fromkeys(r["method"] for r in fed):
        pts = [(r["M"], r["ms_per_round"]) for r in fed if r["method"] == m and r["T"] == t_fed]
        if not pts:  # GP-UCB runs only at the shorter horizons
            pts = [(r["M"], r["ms_per_round"]) for r in fed
                   if r["method"] == m and r["T"] == min(args.T_fed)]
            m = f"{m} (T = {min(args.T_fed)})"
        if pts:
            axes[1].loglog(*zip(*pts), "o-", label=m)
    axes[0].set(xlabel="d (dimension)", ylabel="ms per round (mean over T)",
                title=f"DP-GIBO family, n = {n_fix} users, T = {t_gibo}")
    axes[1].set(xlabel="M (clients)", ylabel="ms per round (mean over T)",
                title=f"Fed-PNE family, Himmelblau, T = {t_fed}")
    for ax in axes:
        ax.legend(fontsize=7)
    save_figure(fig, axes, path, "continuous_costs.py")


if __name__ == "__main__":
    main()
