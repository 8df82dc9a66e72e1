"""What telling the known noise buys: a model fitted to measurements from two instruments, a
precise one (noise variance 1e-4) and a coarse one (0.25), drawn at random per point.

For each seed: 40 uniform points of [0, 1]^2, each measured by either instrument (probability
1/2), y = f(x) + noise with f = sin(6 x0)·cos(4 x1) + x0 (range about 3); an Optimizer over the
box (Matérn-5/2 ARD, y standardised, priors as the defaults) is told the 40 values once with the
variances (`tell(..., noise=)`) and once without (one noise level fitted), fitted, and asked for
its posterior mean on a 30×30 grid; the statistic is the root-mean-square error of that mean
against f. Paired by seed (both fits see the same points and values): the mean over seeds of
log10(RMSE known / RMSE fitted) with its standard error, a difference counting at 2 SE.

With --bo PROBLEM (a function of bench/peers/bo_problems.py) the same two instruments drive a
whole `minimize` run instead: each evaluation of the noise-free function is measured by the precise
instrument (variance 1e-4) or, with probability 1/2, the coarse one (--coarse, variance), and the
run is told the variance (`noise="returned"`) or not (`noise="gaussian"`, the default); both arms
of a seed see the same instrument draws and noise (the NumPy stream 500 + seed, in call
order, so they part once their points differ). The recommended point is the observed point of
lowest posterior mean (the best noisy value would favour lucky coarse measurements); the
statistic is its true regret, paired by seed as above.

With --sweep, the suite's noisy Hartmann-6 (bench/peers/bo_suite.py: noise sd 0.1, the best
noisy observation recommended) under `minimize(noise=v)` for several told variances v with the
lengthscale prior's location fixed (fit.lengthscale_prior_select off), the fitted default, and
v = 0.01 with the location chosen (minimize's default when the noise is told), seeds
0..seeds−1: the final true regret, the share of asks with 4 or more
coordinates on a face of the box, and the median fitted lengthscale (unit coordinates).

Usage: PYTHONPATH=build/python python3 bench/peers/known_noise.py [--seeds 20]
       PYTHONPATH=build/python python3 bench/peers/known_noise.py --bo branin --seeds 10 --coarse 1
       PYTHONPATH=build/python python3 bench/peers/known_noise.py --sweep --seeds 6
"""
import os
import sys
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


def bo_regret(problem, seed, coarse, told):
    """True regret of a minimize run's recommendation under the two instruments."""
    rng = np.random.default_rng(500 + seed)

    def f(x):
        v = problem.true_value(x)
        var = 1e-4 if rng.uniform() < 0.5 else coarse
        y = v + math.sqrt(var) * rng.normal()
        return (y, var) if told else y

    res = g.minimize(f, problem.bounds, n_calls=problem.calls, random_state=seed,
                     noise="returned" if told else "gaussian", threads=1)
    X = np.asarray(res.x_iters, dtype=float)
    mean, _ = res.optimizer.predict(X)
    return problem.true_value(X[int(np.argmin(mean))]) - problem.optimum


def paired(label_a, a, label_b, b):
    d = np.log10(np.asarray(a) + 1e-12) - np.log10(np.asarray(b) + 1e-12)
    se = d.std(ddof=1) / math.sqrt(len(d))
    print(f"median {label_a} {np.median(a):.4g}, {label_b} {np.median(b):.4g}; log10 ratio "
          f"{d.mean():+.3f} ± {se:.3f} (SE); {label_a} lower on {(d < 0).sum()} of {len(d)} "
          f"seeds")


def sweep(seeds):
    """Noisy Hartmann-6 under several told variances and the fitted default."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bo_problems

    p = bo_problems.BY_KEY["hartmann6_noisy"]
    arms = [("gaussian", False), (1e-4, False), (1e-3, False), (1e-2, False), (1e-2, True)]
    for told, select in arms:
        regret, faces, lengths = [], [], []
        for seed in range(seeds):
            opts = {}

            def capture(f, problem, s, calls, options):  # bo_problems.run's objective, kept
                res = g.minimize(f, problem.bounds, n_calls=calls, random_state=s, noise=told,
                                 threads=1, fit={"lengthscale_prior_select": select})
                X = np.asarray(res.x_iters, dtype=float)
                lo = np.array([b[0] for b in problem.bounds])
                hi = np.array([b[1] for b in problem.bounds])
                on = ((X - lo) < 1e-6 * (hi - lo)) | ((hi - X) < 1e-6 * (hi - lo))
                opts["faces"] = float((on.sum(1) >= 4).mean())
                opts["length"] = float(np.median(np.asarray(res.optimizer.kernel.lengthscales)
                                                 / (hi - lo)))

            bo_problems.RUNNERS["known-noise-sweep"] = capture
            true, _, rec = bo_problems.run("known-noise-sweep", p, seed, p.calls)
            regret.append(true[rec[-1]] - p.optimum)
            faces.append(opts["faces"])
            lengths.append(opts["length"])
        print(f"noise {told}, lengthscale_prior_select {select}: final regret median {np.median(regret):.3g} "
              f"{np.round(regret, 3).tolist()}; asks with >= 4 coordinates on a face "
              f"{np.round(faces, 2).tolist()}; median lengthscale {np.round(lengths, 2).tolist()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--bo", help="a bench/peers/bo_problems.py function: a minimize run instead")
    ap.add_argument("--coarse", type=float, default=0.25, help="the coarse instrument's variance")
    ap.add_argument("--sweep", action="store_true", help="noisy Hartmann-6, several told noises")
    args = ap.parse_args()
    if args.sweep:
        sweep(args.seeds)
        return
    if args.bo:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import bo_problems

        problem = bo_problems.BY_KEY[args.bo]
        told = [bo_regret(problem, s, args.coarse, True) for s in range(args.seeds)]
        fitted = [bo_regret(problem, s, args.coarse, False) for s in range(args.seeds)]
        print(f"{args.bo}, {problem.calls} calls, instruments 1e-4 and {args.coarse}, seeds "
              f"0..{args.seeds - 1}: final true regret, ", end="")
        paired("told", told, "fitted", fitted)
        return
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
