#!/usr/bin/env python3
"""Draw the fraction of the top k found against evaluations from a pool runs.csv.

Usage: plot_pool.py RUNS_CSV TITLE OUT_PNG

One line per policy: the mean over runs of found_scores (MolPAL's "scores" metric) after each
batch, with a +-1 standard error band. Exits 3 without matplotlib, 2 on bad input.
"""
import csv
import sys


def load(path):
    data = {}
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        need = {"policy", "run", "batch", "evaluated", "found_scores"}
        if reader.fieldnames is None or not need.issubset(reader.fieldnames):
            raise ValueError(f"{path}: not a pool runs.csv (columns {sorted(need)} needed)")
        for row in reader:
            batches = data.setdefault(row["policy"], {})
            batches.setdefault(int(row["batch"]), (int(row["evaluated"]), []))[1].append(
                float(row["found_scores"]))
    if not data:
        raise ValueError(f"{path}: no rows")
    return data


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    runs_csv, title, out_png = argv
    try:
        import numpy as np
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return 3
    try:
        data = load(runs_csv)
    except (OSError, ValueError) as e:
        print(e, file=sys.stderr)
        return 2
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for policy, batches in data.items():
        keys = sorted(batches)
        x = np.array([batches[b][0] for b in keys])
        vals = [np.array(batches[b][1]) for b in keys]
        mean = np.array([100 * v.mean() for v in vals])
        se = np.array([100 * v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0.0 for v in vals])
        ax.plot(x, mean, marker="o", label=policy)
        ax.fill_between(x, mean - se, mean + se, alpha=0.2)
    ax.set_xlabel("molecules evaluated")
    ax.set_ylabel("top-k scores found, % (mean ± se over runs)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110, format="png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
