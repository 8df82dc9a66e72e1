#!/usr/bin/env python3
"""Draw the mean cumulative regret of every policy from a gpbandit runs.csv.

Usage: plot_regret.py RUNS_CSV OUT_PNG [--title TITLE]

x = evaluation count within a run, y = mean cumulative regret over runs with a +-1 sd band
(sample sd). Linear axes. Exits 3 if matplotlib is not installed, 2 on bad input.
"""
import argparse
import csv
import sys


def load(path):
    """Returns {policy: {run: [cumulative regret after each evaluation]}}, policies in file order."""
    data = {}
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        need = {"run", "policy", "cumulative_regret"}
        if reader.fieldnames is None or not need.issubset(reader.fieldnames):
            raise ValueError(f"{path}: not a gpbandit runs.csv (columns {sorted(need)} needed)")
        for row in reader:
            runs = data.setdefault(row["policy"], {})
            runs.setdefault(row["run"], []).append(float(row["cumulative_regret"]))
    if not data:
        raise ValueError(f"{path}: no rows")
    return data


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs_csv")
    parser.add_argument("out_png")
    parser.add_argument("--title", default="")
    args = parser.parse_args(argv)
    try:
        import numpy as np
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed", file=sys.stderr)
        return 3
    try:
        data = load(args.runs_csv)
    except (OSError, ValueError) as e:
        print(f"plot_regret.py: {e}", file=sys.stderr)
        return 2

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for policy, runs in data.items():
        length = min(len(c) for c in runs.values())
        curves = np.array([c[:length] for c in runs.values()], dtype=float)
        mean = curves.mean(axis=0)
        sd = curves.std(axis=0, ddof=1) if curves.shape[0] > 1 else np.zeros_like(mean)
        x = np.arange(1, length + 1)
        (line,) = ax.plot(x, mean, label=f"{policy} ({curves.shape[0]} runs)")
        ax.fill_between(x, mean - sd, mean + sd, color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xlabel("evaluation")
    ax.set_ylabel("cumulative regret (mean ± 1 sd)")
    if args.title:
        ax.set_title(args.title)
    ax.set_xlim(left=1)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out_png, format="png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
