#!/usr/bin/env python3
"""Builds the results table of examples/ldp-bo/README.md from the summary.json files of real runs.

Usage: python3 examples/ldp-bo/results_table.py [RESULTS_DIR=results/ldp-bo] > table.md
       python3 examples/ldp-bo/results_table.py --readme [RESULTS_DIR]   (rewrites README.md)

Every number comes from <RESULTS_DIR>/L<i>/summary.json (nothing is typed by hand). Per panel:
final mean R_T +- sample sd (n-1) over the trials for every policy, the rank of the MoMA variant
among the three paper algorithms of the same preset (1 = lowest mean R_T), a paired comparison
(trials where MoMA beats each other algorithm of its preset), and the wall-clock per policy.
"""
import json
import os
import sys

CLAIMS = {
    "L1": "Fig 2(a) LDP synthetic Matern, eps=1: LDP-MoMA tends to outperform",
    "L2": "Fig 2(b) LDP light, eps=0.5: LDP-MoMA tends to outperform",
    "L3": "Fig 2(c) LDP stock, eps=1: LDP-MoMA tends to outperform",
    "L4": "Fig 2(d) heavy-tailed synthetic SE: MoMA tends to outperform; high error bar (new f per trial)",
    "L5": "Fig 2(e) heavy-tailed light: MoMA tends to outperform",
    "L6": "Fig 2(f) heavy-tailed stock: MoMA tends to outperform",
    "L7": "Fig 3(a) LDP synthetic SE, eps=1: LDP-MoMA better or competitive",
    "L8": "Fig 3(b) LDP light, eps=1: LDP-MoMA better or competitive",
    "L9": "Fig 3(c) LDP stock, eps=0.5: LDP-MoMA better or competitive",
}


def fmt(x):
    return f"{x:.4g}"


def load(root, pid):
    path = os.path.join(root, pid, "summary.json")
    return json.load(open(path)) if os.path.exists(path) else None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "results/ldp-bo"
    panels = [(f"L{i}", load(root, f"L{i}")) for i in range(1, 10)]
    tally = {}
    print("### Per panel\n")
    print("| panel | command | paper claims (§7) | MoMA rank practical / theory "
          "(1 = best of 3) | trials where MoMA beats TGP, ATA (paired) | plot |")
    print("|---|---|---|---|---|---|")
    for pid, s in panels:
        cmd = f"`gpbandit run examples/ldp-bo/{pid}.json --out results/ldp-bo/{pid}`"
        if s is None:
            print(f"| {pid} | {cmd} | {CLAIMS[pid]} | not run | | |")
            continue
        pols = s["policies"]
        ranks, wins = [], []
        for preset in ("practical", "theory"):
            tally.setdefault(preset, {})
            group = [p for p in pols if p.get("params", {}).get("preset") == preset]
            if not group:
                continue
            order = sorted(group, key=lambda p: p["cumulative_regret"]["mean"])
            moma = next(p for p in group if "moma" in p["type"])
            ranks.append(f"{order.index(moma) + 1}")
            tally[preset].setdefault(order.index(moma) + 1, []).append(pid)
            w = []
            for other in group:
                if other is moma:
                    continue
                a, b = moma["cumulative_regret_per_run"], other["cumulative_regret_per_run"]
                w.append(f"{sum(x < y for x, y in zip(a, b))}/{len(a)}")
            wins.append(f"{preset}: " + ", ".join(w))
        print(f"| {pid} (T = {s['T']}) | {cmd} | {CLAIMS[pid]} | {' / '.join(ranks)} | "
              + "; ".join(wins) + f" | [plots/{pid}.png](plots/{pid}.png) |")
    print()
    for preset, by_rank in tally.items():
        parts = [f"rank {r}: {len(v)} ({', '.join(v)})" for r, v in sorted(by_rank.items())]
        print(f"* MoMA variant, {preset} preset, over the panels run: " + "; ".join(parts))
    print("\n### Final cumulative regret R_T (mean ± sample sd over the trials) and wall-clock\n")
    print("| panel | policy | R_T mean | R_T sd | seconds (all trials) |")
    print("|---|---|---|---|---|")
    for pid, s in panels:
        if s is None:
            continue
        for p in s["policies"]:
            c = p["cumulative_regret"]
            print(f"| {pid} | {p['label']} | {fmt(c['mean'])} | {fmt(c['sd'])} | "
                  f"{p['seconds']:.1f} |")


def scale_table(root):
    """The large-grid runs (project addition): N, d, T, runs, R_T and seconds per policy."""
    print("| config | N | d | T | runs | policy | R_T mean ± sd | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ("scale-1e5-d2", "scale-1e6-d3"):
        s = load(root, name)
        if s is None:
            continue
        for p in s["policies"]:
            c = p["cumulative_regret"]
            print(f"| {name}.json | {s['N']} | {s['d']} | {s['T']} | {s['runs']} | {p['label']} | "
                  f"{fmt(c['mean'])} ± {fmt(c['sd'])} | {p['seconds']:.1f} |")


def write_readme(root):
    """examples/ldp-bo/README.md = README.template.md with @TABLE@ replaced by the tables."""
    import contextlib
    import io
    here = os.path.dirname(os.path.abspath(__file__))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        sys.argv = [sys.argv[0], root]
        main()
    text = open(os.path.join(here, "README.template.md")).read().replace("@TABLE@", buf.getvalue())
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        scale_table(root)
    text = text.replace("@SCALE@", buf.getvalue())
    open(os.path.join(here, "README.md"), "w").write(text)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--readme":
        write_readme(sys.argv[2] if len(sys.argv) > 2 else "results/ldp-bo")
    else:
        main()
