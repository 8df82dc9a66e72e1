#!/usr/bin/env python3
"""Prints a Markdown table of final regret per policy from one or more summary.json files.

Usage: tools/results_table.py results/demo/summary.json [more summary.json ...]
"""
import json
import sys


def fmt(x):
    return f"{x:.4g}"


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    print("| experiment | policy | cumulative regret R_T (mean ± sd) | simple regret (mean ± sd) | seconds |")
    print("|---|---|---|---|---|")
    for path in paths:
        with open(path) as f:
            s = json.load(f)
        exp = f"{s['name']} (N = {s['N']}, T = {s['T']}, {s['runs']} runs, {s['backend']})"
        for p in s["policies"]:
            c, r = p["cumulative_regret"], p["simple_regret"]
            print(f"| {exp} | {p['label']} | {fmt(c['mean'])} ± {fmt(c['sd'])} | "
                  f"{fmt(r['mean'])} ± {fmt(r['sd'])} | {p.get('seconds', float('nan')):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
