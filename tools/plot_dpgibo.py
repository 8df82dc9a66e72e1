#!/usr/bin/env python3
"""Draw mean noise-free loss against cumulative evaluations (or iterations) from a DP-GIBO runs.csv.

Usage: plot_dpgibo.py RUNS_CSV TITLE XAXIS OUT_PNG   (XAXIS: evaluations | t)

One line per method: the mean over runs of `loss` at each row index (rows of a run share t), with a
+-1 sd band. Methods whose rows never count evaluations (DP-GD, GD) are drawn against t in the
evaluations view too. Log y axis when every loss is positive. Exits 3 without matplotlib, 2 on bad
input.
"""
import csv
import sys


def load(path):
    data = {}
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        need = {"method", "run", "t", "evaluations", "loss"}
        if reader.fieldnames is None or not need.issubset(reader.fieldnames):
            raise ValueError(f"{path}: not a DP-GIBO runs.csv (columns {sorted(need)} needed)")
        for row in reader:
            runs = data.setdefault(row["method"], {})
            runs.setdefault(row["run"], []).append(
                (int(row["t"]), int(row["evaluations"]), float(row["loss"])))
    if not data:
        raise ValueError(f"{path}: no rows")
    return data


def main(argv):
    if len(argv) != 4 or argv[2] not in ("evaluations", "t"):
        print(__doc__, file=sys.stderr)
        return 2
    runs_csv, title, xaxis, out_png = argv
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
    positive = True
    for method, runs in data.items():
        length = min(len(r) for r in runs.values())
        loss = np.array([[row[2] for row in r[:length]] for r in runs.values()])
        first = next(iter(runs.values()))[:length]
        use_evals = xaxis == "evaluations" and first[-1][1] > 0
        x = np.array([row[1] if use_evals else row[0] for row in first])
        mean = loss.mean(axis=0)
        sd = loss.std(axis=0, ddof=1) if loss.shape[0] > 1 else np.zeros_like(mean)
        positive = positive and bool((loss > 0).all())
        ax.plot(x, mean, label=method)
        ax.fill_between(x, mean - sd, mean + sd, alpha=0.2)
    if positive:
        ax.set_yscale("log")
    ax.set_xlabel("cumulative evaluations" if xaxis == "evaluations" else "iteration t")
    ax.set_ylabel("noise-free loss f(θ) (mean ± sd over runs)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110, format="png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
