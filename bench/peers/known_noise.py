"""What telling the known noise buys: a model fitted to measurements from two instruments, a
precise one (noise variance 1e-4) and a coarse one (0.25), drawn at random per point.

For each seed: 40 uniform points of [0, 1]^2, each measured by either instrument (probability
1/2), y = f(x) + noise with f = sin(6 x0)·cos(4 x1) + x0 (range about 3); an Optimizer over the
box (Matérn-5/2 ARD, y standardised, priors as the defaults) is told the 40 values once with the
variances (`tell(..., noise=)`) and once without (one noise level fitted), fitted, and asked for
its posterior mean on a 30×30 grid; the statistic is the root-mean-square error of that mean
against f. Paired by seed (both fits see the same points and values): the mean over seeds of
log10(RMSE known / RMSE fitted) with its standard error, a difference counting at 2 SE.

Usage: PYTHONPATH=build/python python3 bench/peers/known_noise.py [--seeds 20]
"""
import argparse
import math

import numpy as np

import gpbandit as g


def f(x):
    return np.sin(6 * x[:, 0]) * np.cos(4 * x[:, 1]) + x[:, 0]


def rmse(seed, known):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(40, 2))
    var = np.where(rng.uniform(size=40) < 0.5, 1e-4, 0.25)
    y = f(X) + np.sqrt(var) * rng.normal(size=40)
    opt = g.Optimizer([(0.0, 1.0), (0.0, 1.0)], seed=seed, threads=1)
    opt.tell(X, y, noise=var if known else None)
    opt.fit_hyperparameters()
    u = np.linspace(0, 1, 30)
    Q = np.array([(a, b) for a in u for b in u])
    mean, _ = opt.predict(Q)
    return math.sqrt(float(np.mean((mean - f(Q)) ** 2)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    args = ap.parse_args()
    d, known_all, fitted_all = [], [], []
    for s in range(args.seeds):
        a, b = rmse(s, True), rmse(s, False)
        known_all.append(a)
        fitted_all.append(b)
        d.append(math.log10(a / b))
    d = np.array(d)
    se = d.std(ddof=1) / math.sqrt(len(d))
    print(f"seeds 0..{args.seeds - 1}: median RMSE known noise {np.median(known_all):.4f}, "
          f"fitted noise {np.median(fitted_all):.4f}; log10 ratio {d.mean():+.3f} ± {se:.3f} "
          f"(SE); known lower on {(d < 0).sum()} of {len(d)} seeds")


if __name__ == "__main__":
    main()
