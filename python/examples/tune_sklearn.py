"""Tunes a scikit-learn model with gpbandit on a grid of 10^5 configurations.

The model: PCA followed by an RBF support-vector classifier on the handwritten digits that ship
with scikit-learn (1797 8×8 images, no download). The grid: 100 values of log10 C in [-2, 4],
100 values of log10 gamma in [-6, -1] and 10 PCA sizes (9, 15, ..., 63 components): 100 000
configurations. The objective is the 5-fold cross-validated accuracy on 1200 training images;
the best configuration is then scored once on the 597 held-out images.

gpbandit.minimize (expected improvement, ARD Matérn-5/2 kernel refitted after every evaluation)
and random search over the same grid get the same budget; both are repeated for a few seeds.

Needs scikit-learn (Debian: apt-get install python3-sklearn). From the repository root, after
building:

    PYTHONPATH=build/python /usr/bin/python3 python/examples/tune_sklearn.py --calls 40 --seeds 3
"""
import argparse
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import gpbandit as gb

GRID = {"type": "grid", "lower": [-2.0, -6.0, 9.0], "upper": [4.0, -1.0, 63.0],
        "counts": [100, 100, 10]}


def model(x):
    """The pipeline for one grid point x = (log10 C, log10 gamma, PCA components)."""
    return make_pipeline(StandardScaler(), PCA(n_components=int(round(x[2])), random_state=0),
                         SVC(C=10.0 ** x[0], gamma=10.0 ** x[1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=40, help="evaluations per search")
    ap.add_argument("--seeds", type=int, default=3, help="repetitions of each search")
    args = ap.parse_args()

    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=1200, random_state=0,
                                                        stratify=y)

    def cv_error(x):
        """1 − 5-fold CV accuracy (minimised)."""
        return 1.0 - cross_val_score(model(x), X_train, y_train, cv=5).mean()

    candidates = gb.Optimizer(GRID).candidates
    print(f"grid: {len(candidates)} configurations, {args.calls} evaluations per search")
    print("| search | seed | best CV accuracy | its test accuracy | log10 C | log10 gamma | "
          "PCA | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for seed in range(args.seeds):
        searches = {
            "gpbandit EI": lambda: gpbandit_result(
                gb.minimize(cv_error, GRID, n_calls=args.calls, seed=seed)),
            "random search": lambda: random_search(cv_error, candidates, args.calls, seed),
        }
        for name, search in searches.items():
            start = time.perf_counter()
            x, fun = search()
            seconds = time.perf_counter() - start
            test = model(x).fit(X_train, y_train).score(X_test, y_test)
            print(f"| {name} | {seed} | {1 - fun:.4f} | {test:.4f} | {x[0]:.3f} | {x[1]:.3f} | "
                  f"{int(round(x[2]))} | {seconds:.0f} |", flush=True)


def random_search(f, candidates, calls, seed):
    rng = np.random.default_rng(seed)
    picks = candidates[rng.choice(len(candidates), size=calls, replace=False)]
    values = [f(x) for x in picks]
    best = int(np.argmin(values))
    return picks[best], values[best]


def gpbandit_result(res):
    return res.x, res.fun


if __name__ == "__main__":
    main()
