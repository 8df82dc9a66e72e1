#!/usr/bin/env python3
"""Markdown table of final simple regret from gpbandit summary.json files (PO-GP-UCB examples).

Usage: results_table.py SUMMARY.json [...]. For every policy: the paper's parameters (epsilon, r),
omega (spec §4, sqrt_r_log form unless the policy says literal), sigma_min of the centred grid
domain, the curator branch (IF when sigma_min >= omega), and mean simple regret S_T with its
standard error over runs. sigma_y = 1 in these configs, so S_T is already in sigma_y units.
"""
import itertools
import json
import math
import sys


def grid_sigma_min(domain):
    """Smallest singular value of the centred grid (d <= 2: closed form of the 2x2 Gram)."""
    axes = []
    for lo, hi, n in zip(domain["lower"], domain["upper"], domain["counts"]):
        axes.append([lo + (hi - lo) * i / (n - 1) for i in range(n)] if n > 1 else [(lo + hi) / 2])
    pts = list(itertools.product(*axes))
    d = len(axes)
    mean = [sum(p[j] for p in pts) / len(pts) for j in range(d)]
    g = [[sum((p[a] - mean[a]) * (p[b] - mean[b]) for p in pts) for b in range(d)] for a in range(d)]
    if d == 1:
        return math.sqrt(g[0][0])
    if d != 2:
        raise SystemExit("results_table.py: only 1-d and 2-d grid domains are supported")
    tr, det = g[0][0] + g[1][1], g[0][0] * g[1][1] - g[0][1] * g[1][0]
    return math.sqrt(max(tr / 2 - math.sqrt(max(tr * tr / 4 - det, 0.0)), 0.0))


def omega(r, eps, delta, form):
    l2, l16 = math.log(2 / delta), math.log(16 * r / delta)
    if form == "literal":
        return 16 * math.sqrt(r) * l2 * l16 / eps
    return 16 * math.sqrt(r * l2) * l16 / eps


def main(paths):
    print("| config | policy | epsilon (ln) | r | omega | sigma_min | branch | mean S_T | stderr |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        s = json.load(open(path))
        smin = grid_sigma_min(s["config"]["domain"])
        runs = s["runs"]
        for p in s["policies"]:
            q = p["params"]
            sr = p["simple_regret"]
            se = sr["sd"] / math.sqrt(runs)
            if p["type"] == "po_gp_ucb":
                eps, r = q["epsilon"], q["r"]
                w = omega(r, eps, q["delta"], q.get("omega_form", "sqrt_r_log"))
                cols = [f"{eps:.4g} ({math.log(eps):.2f})", str(r), f"{w:.1f}", f"{smin:.1f}",
                        "IF" if smin >= w else "ELSE"]
            else:
                cols = ["-", "-", "-", "-", "non-private"]
            print(f"| {s['name']} | {p['label']} | " + " | ".join(cols) +
                  f" | {sr['mean']:.4f} | {se:.4f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
