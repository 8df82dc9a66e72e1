#!/usr/bin/env python3
"""Markdown tables of the PO-GP-UCB examples from the committed summary.json files.

Usage: results_table.py [RESULTS_DIR]         tables from RESULTS_DIR/<config>[-f<k>]/summary.json
                                              (default: results/ next to this script)
       results_table.py --basins RUNS_CSV     prints basins.json of one Branin run (run_all.sh)

Every number but the paper's comes from the summary files: S_T from "policies", omega / sigma_min
/ branch / epsilon used from "policy_info", sigma_y and the instance statistics from
"objective_info" (sigma_y = 1 for the synthetic GP). S_T is divided by sigma_y. The synthetic
configs are run once per draw of f (<config>-f0 .. -f4): their rows give the mean over the draws
of the 50-run mean, the sd across draws and the range.
"""
import collections
import csv
import glob
import json
import math
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Paper Tables 1-12 (spec s9): table -> {r: S_T}; r_max as the paper reports it.
PAPER_TABLES = {
    1: ({3: .073, 6: .038, 8: .018, 10: .014, 15: .118, 20: .137}, 10),
    2: ({3: .091, 9: .009, 12: .019, 15: .008, 20: .127, 30: .134}, 15),
    3: ({5: .05, 10: .021, 15: .003, 20: .002, 30: .094, 50: .142}, 20),
    4: ({3: .083, 6: .088, 8: .078, 10: .069, 15: .081, 20: .076}, 10),
    5: ({3: .091, 9: .076, 12: .078, 15: .077, 20: .1, 30: .096}, 15),
    6: ({5: .097, 10: .091, 15: .069, 20: .084, 30: .104, 50: .127}, 20),
    7: ({3: .682, 6: .516, 8: .495, 10: .485, 15: .485, 20: .493}, 10),
    8: ({3: .567, 9: .553, 12: .479, 15: .453, 20: .493, 30: .52}, 15),
    9: ({5: .591, 10: .523, 15: .486, 20: .482, 30: .489, 50: .488}, 20),
    10: ({3: .53, 6: .184, 8: .038, 10: 0.0, 15: .005, 20: .024}, 10),
    11: ({3: .259, 9: .001, 12: 0.0, 15: 0.0, 20: .014, 30: .026}, 15),
    12: ({5: .152, 10: 0.0, 15: 0.0, 20: 0.0, 30: .005, 50: .073}, 20),
}
TABLE_DATA = {1: "synthetic", 2: "synthetic", 3: "synthetic", 4: "loans", 5: "loans", 6: "loans",
              7: "property", 8: "property", 9: "property", 10: "branin", 11: "branin",
              12: "branin"}
# Paper Figs 2-3 (spec s9): excess final regret over non-private GP-UCB, sigma_y units.
PAPER_FIGS = {
    "fig2a-synthetic": {1.1: .011, 0.9: .069, 0.0: .099},
    "fig2b-loans": {2.9: .003, 2.0: .019, 1.0: .05},
    "fig2c-property": {2.8: .051, 1.0: .017, 0.5: .082},
    "fig3-branin": {2.3: .004, 2.0: .023, 1.8: .051},
}
# The three Branin minima (raw coordinates) and the grid's global optimum (spec s7).
BRANIN_MINIMA = [(9.5, 2.5), (-3.0, 12.0), (3.0, 2.5)]


def load(results):
    """config stem -> [summary, ...] (one per draw of f for the synthetic configs)."""
    out = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(results, "*", "summary.json"))):
        name = os.path.basename(os.path.dirname(path))
        stem = re.sub(r"-f\d+$", "", name)
        with open(path) as f:
            out[stem].append(json.load(f))
    return out


def sigma_y(s):
    return s.get("objective_info", {}).get("sigma_y", 1.0)


def split(s):
    """(baseline policy, [(ln eps, r, policy, info)]) of one summary."""
    base, po = None, []
    for p in s["policies"]:
        info = s.get("policy_info", {}).get(p["label"], {})
        if not info.get("curator", True):
            base = p
            continue
        q = p["params"]
        po.append((round(math.log(q["epsilon"]), 2), q["r"], p, info))
    return base, po


def stat(summaries, label):
    """S_T/sigma_y of policy `label`: (mean, spread text) over the summaries (draws or one)."""
    vals, ses = [], []
    for s in summaries:
        p = next(p for p in s["policies"] if p["label"] == label)
        vals.append(p["simple_regret"]["mean"] / sigma_y(s))
        ses.append(p["simple_regret"]["sd"] / math.sqrt(s["runs"]) / sigma_y(s))
    if len(vals) == 1:
        return vals[0], f"± {ses[0]:.4f} (se)"
    return statistics.mean(vals), (f"± {statistics.stdev(vals):.4f} (sd over {len(vals)} draws; "
                                   f"{min(vals):.3f}–{max(vals):.3f})")


def tables(data):
    print("| table | data | ε (paper) | ε used | r | branch | ω | σ_min | S_T/σ_y (gpbandit) "
          "| spread | paper S_T |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for tid in range(1, 13):
        ss = data.get(f"table{tid}-{TABLE_DATA[tid]}")
        if not ss:
            continue
        base, po = split(ss[0])
        paper, _ = PAPER_TABLES[tid]
        means = {p["label"]: stat(ss, p["label"]) for _, _, p, _ in po}
        best = min(m for m, _ in means.values())
        for ln_eps, r, p, info in po:
            m, spread = means[p["label"]]
            star = "**" if m == best else ""
            print(f"| {tid} | {TABLE_DATA[tid]} | e^{ln_eps} | {info.get('epsilon_used', 0):.4g} "
                  f"| {r} | {info.get('branch', '?')} | {info.get('omega', 0):.1f} "
                  f"| {info.get('sigma_min', 0):.1f} | {star}{m:.4f}{star} | {spread} "
                  f"| {paper.get(r, float('nan')):.3f} |")
        if base is not None:
            m, spread = stat(ss, base["label"])
            print(f"| {tid} | {TABLE_DATA[tid]} | non-private | | | | | | {m:.4f} | {spread} | |")


def figures(data):
    print("| figure | data | r | ε (paper) | ε used | branch | excess S_T/σ_y (gpbandit) "
          "| PO S_T/σ_y, spread | paper excess | non-private S_T/σ_y |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for fig in PAPER_FIGS:
        ss = data.get(fig)
        if not ss:
            continue
        base, po = split(ss[0])
        b, _ = stat(ss, base["label"])
        for ln_eps, r, p, info in po:
            m, spread = stat(ss, p["label"])
            paper = PAPER_FIGS[fig].get(ln_eps, float("nan"))
            print(f"| {fig.split('-')[0]} | {fig.split('-')[1]} | {r} | e^{ln_eps} "
                  f"| {info.get('epsilon_used', 0):.4g} | {info.get('branch', '?')} "
                  f"| {m - b:+.4f} | {m:.4f} {spread} | {paper:+.3f} | {b:.4f} |")


def omega(r, eps, delta, form="sqrt_r_log"):
    l2, l16 = math.log(2 / delta), math.log(16 * r / delta)
    if form == "literal":
        return 16 * math.sqrt(r) * l2 * l16 / eps
    return 16 * math.sqrt(r * l2) * l16 / eps


def passes(data):
    print("| data | table | ε (paper) | ε used | δ | σ_min | r with IF branch "
          "| r with ELSE branch | integer r_max | paper r_max |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for tid in range(1, 13):
        ss = data.get(f"table{tid}-{TABLE_DATA[tid]}")
        if not ss:
            continue
        _, po = split(ss[0])
        info0 = po[0][3]
        eps, delta, smin = info0["epsilon_used"], info0["delta"], info0["sigma_min"]
        rmax = 0
        while omega(rmax + 1, eps, delta, info0.get("omega_form", "sqrt_r_log")) <= smin:
            rmax += 1
        ifs = [str(r) for _, r, _, i in po if i.get("branch") == "IF"]
        els = [str(r) for _, r, _, i in po if i.get("branch") == "ELSE"]
        print(f"| {TABLE_DATA[tid]} | {tid} | e^{po[0][0]} | {eps:.4g} | {delta:g} | {smin:.1f} "
              f"| {', '.join(ifs) or '-'} | {', '.join(els) or '-'} | {rmax} "
              f"| {PAPER_TABLES[tid][1]} |")


def instances(data):
    """The bandit instances: size, fit, signal-to-noise, near-optimal points, non-private S_T."""
    print("| instance (config) | n | d | σ_y | σ_n² / σ_y² | rows within 0.1σ_y of the best "
          "| within 0.5σ_y | non-private S_T/σ_y |")
    print("|---|---|---|---|---|---|---|---|")
    for key in ("fig2b-loans", "fig2c-property", "fig2c-property-like", "fig3-branin"):
        ss = data.get(key)
        if not ss:
            continue
        o = ss[0]["objective_info"]
        base, _ = split(ss[0])
        m, spread = stat(ss, base["label"])
        print(f"| {o['data']} ({key}) | {o['n']} | {o['d']} | {o['sigma_y']:.3f} "
              f"| {1 / o['signal_to_noise']:.3g} | {o['near_optimal_0.1sigma_y']} "
              f"| {o['near_optimal_0.5sigma_y']} | {m:.4f} {spread} |")


def basins_json(runs_csv):
    """Per policy: the basin of each run's best point and the first round at the grid optimum."""
    best, first = {}, {}
    with open(runs_csv) as f:
        for row in csv.DictReader(f):
            key = (row["policy"], int(row["run"]))
            score = -float(row["instant_regret"])
            if key not in best or score > best[key][0]:
                best[key] = (score, int(row["chosen"]))
            if key not in first:
                first[key] = None
            if first[key] is None and float(row["simple_regret"]) == 0.0:
                first[key] = int(row["round"])
    out = collections.defaultdict(lambda: {"final_basin": collections.Counter(),
                                           "first_round_at_optimum": []})
    for (pol, _run), (_, j) in sorted(best.items()):
        x = (-5 + 0.5 * (j // 31), 0.5 * (j % 31))
        basin = min(BRANIN_MINIMA, key=lambda m: (m[0] - x[0]) ** 2 + (m[1] - x[1]) ** 2)
        out[pol]["final_basin"][f"({basin[0]:g}, {basin[1]:g})"] += 1
        out[pol]["first_round_at_optimum"].append(first[(pol, _run)])
    return {k: {"final_basin": dict(v["final_basin"]),
                "first_round_at_optimum": v["first_round_at_optimum"]} for k, v in out.items()}


def branin_horizon(data, results):
    """S_T/sigma_y at T = 50, 100, 200 and where the runs end (basins.json of each run)."""
    print("| policy | S_50/σ_y | S_100/σ_y | S_200/σ_y | runs at the grid optimum (9.5, 2.5) "
          "after 50 / 100 / 200 steps | median step of first reaching it (T = 200) |")
    print("|---|---|---|---|---|---|")
    keys = ["fig3-branin", "fig3-branin-T100", "fig3-branin-T200"]
    if not all(data.get(k) for k in keys):
        return
    basins = []
    for k in keys:
        with open(os.path.join(results, k, "basins.json")) as f:
            basins.append(json.load(f))
    for p in data[keys[0]][0]["policies"]:
        label = p["label"]
        cells = [f"{stat(data[k], label)[0]:.4f} {stat(data[k], label)[1]}" for k in keys]
        at_opt = [str(sum(1 for r in b[label]["first_round_at_optimum"] if r is not None))
                  for b in basins]
        hits = [r for r in basins[2][label]["first_round_at_optimum"] if r is not None]
        med = f"{statistics.median(hits):.0f} ({len(hits)} of {data[keys[2]][0]['runs']} runs)" \
            if hits else "never"
        print(f"| {label} | " + " | ".join(cells) + f" | {' / '.join(at_opt)} | {med} |")


def run_counts(data):
    parts = []
    for k, ss in sorted(data.items()):
        parts.append(f"{k} {ss[0]['runs']}" + (f" × {len(ss)} draws" if len(ss) > 1 else ""))
    print("Run counts: " + ", ".join(parts))


def main(argv):
    if argv and argv[0] == "--basins":
        json.dump(basins_json(argv[1]), sys.stdout, indent=1)
        print()
        return
    results = argv[0] if argv else os.path.join(HERE, "results")
    data = load(results)
    print("### Tables 1–12: S_T after T UCB steps, by r (bold: gpbandit's best r)\n")
    tables(data)
    print("\n### Figures 2–3: final excess regret of PO-GP-UCB over non-private GP-UCB\n")
    figures(data)
    print("\n### Which r pass σ_min ≥ ω (from the runs' policy_info)\n")
    passes(data)
    print("\n### The bandit instances (from objective_info)\n")
    instances(data)
    print("\n### Branin: horizon T = 50 / 100 / 200 (fig3-branin, -T100, -T200)\n")
    branin_horizon(data, results)
    print()
    run_counts(data)


if __name__ == "__main__":
    main(sys.argv[1:])
