"""The test functions and the optimisers of bench/peers/bo_suite.py.

Functions: the standard ones of scikit-optimize's and BoTorch's suites, evaluated through
BoTorch's own definitions (``botorch.test_functions.synthetic``) when BoTorch is installed, else
through the NumPy twins below (the smoke mode in CI); ``check_twins`` compares the two at random
points. Every function is minimised on its usual box; regret is f(x) − f*.

Optimisers, each as a new user would call it (defaults unless a budget needs saying):
gpbandit.minimize, scikit-optimize's gp_minimize, Optuna's TPESampler and GPSampler, a standard
BoTorch loop (SingleTaskGP with its default priors on inputs normalised to the unit cube and
standardised outcomes, fit_gpytorch_mll, LogExpectedImprovement, optimize_acqf with 10 restarts
from 512 raw samples, 2(d + 1) Sobol initial points) and uniform random search. Each run is
single-threaded.
"""
import math
import time

import numpy as np

# ---------------------------------------------------------------- functions (NumPy twins)

_H6_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])
_H6_A = np.array([[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
                  [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]])
_H6_P = 1e-4 * np.array([[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
                         [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]])


def branin(x):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x[1] - b * x[0] ** 2 + c * x[0] - 6) ** 2 + 10 * (1 - t) * math.cos(x[0]) + 10


def hartmann6(x):
    inner = (_H6_A * (np.asarray(x)[None, :] - _H6_P) ** 2).sum(axis=1)
    return float(-(_H6_ALPHA * np.exp(-inner)).sum())


def ackley(x):
    x = np.asarray(x)
    return float(-20 * np.exp(-0.2 * np.sqrt(np.mean(x ** 2))) - np.exp(np.mean(np.cos(2 * np.pi * x)))
                 + 20 + math.e)


def levy(x):
    w = 1 + (np.asarray(x) - 1) / 4
    mid = ((w[:-1] - 1) ** 2 * (1 + 10 * np.sin(np.pi * w[:-1] + 1) ** 2)).sum()
    return float(np.sin(np.pi * w[0]) ** 2 + mid
                 + (w[-1] - 1) ** 2 * (1 + np.sin(2 * np.pi * w[-1]) ** 2))


def rosenbrock(x):
    x = np.asarray(x)
    return float((100 * (x[1:] - x[:-1] ** 2) ** 2 + (x[:-1] - 1) ** 2).sum())


def styblinski_tang(x):
    x = np.asarray(x)
    return float(0.5 * (x ** 4 - 16 * x ** 2 + 5 * x).sum())


class Problem:
    """One benchmark problem: a function on a box, its optimum and the evaluation budget."""

    def __init__(self, key, label, botorch_name, dim, bounds, optimum, calls, twin, noise=0.0):
        self.key, self.label, self.botorch_name, self.dim = key, label, botorch_name, dim
        self.bounds, self.optimum, self.calls, self.twin, self.noise = bounds, optimum, calls, twin, noise
        self._botorch = None

    def true_value(self, x):
        """f(x) without noise: BoTorch's definition when installed, else the NumPy twin."""
        if self._botorch is None:
            self._botorch = _botorch_function(self.botorch_name, self.dim) or False
        if self._botorch is False:
            return float(self.twin(np.asarray(x, dtype=float)))
        import torch

        with torch.no_grad():
            return float(self._botorch.evaluate_true(torch.tensor([list(map(float, x))],
                                                                  dtype=torch.float64))[0])


def _botorch_function(name, dim):
    try:
        from botorch.test_functions import synthetic
    except ImportError:
        return None
    cls = getattr(synthetic, name)
    return cls() if name == "Branin" else cls(dim=dim)


def _box(lo, hi, d):
    return [(float(lo), float(hi))] * d


PROBLEMS = [
    Problem("branin", "Branin", "Branin", 2, [(-5.0, 10.0), (0.0, 15.0)], 0.397887357729738, 40,
            branin),
    Problem("hartmann6", "Hartmann-6", "Hartmann", 6, _box(0, 1, 6), -3.32236801141551, 80,
            hartmann6),
    Problem("ackley5", "Ackley-5", "Ackley", 5, _box(-32.768, 32.768, 5), 0.0, 80, ackley),
    Problem("levy4", "Levy-4", "Levy", 4, _box(-10, 10, 4), 0.0, 60, levy),
    Problem("rosenbrock4", "Rosenbrock-4", "Rosenbrock", 4, _box(-5, 10, 4), 0.0, 60, rosenbrock),
    Problem("styblinski8", "Styblinski-Tang-8", "StyblinskiTang", 8, _box(-5, 5, 8),
            -39.166165703771412 * 8, 100, styblinski_tang),
    Problem("levy10", "Levy-10", "Levy", 10, _box(-10, 10, 10), 0.0, 120, levy),
    Problem("ackley20", "Ackley-20", "Ackley", 20, _box(-32.768, 32.768, 20), 0.0, 150, ackley),
    Problem("hartmann6_noisy", "Hartmann-6, noise sd 0.1", "Hartmann", 6, _box(0, 1, 6),
            -3.32236801141551, 80, hartmann6, noise=0.1),
]
BY_KEY = {p.key: p for p in PROBLEMS}


def check_twins(seed=0, points=20):
    """Max |BoTorch − twin| over random points of every problem (None without BoTorch)."""
    rng = np.random.default_rng(seed)
    worst = 0.0
    for p in PROBLEMS:
        f = _botorch_function(p.botorch_name, p.dim)
        if f is None:
            return None
        lo, hi = np.array(p.bounds).T
        for _ in range(points):
            x = lo + (hi - lo) * rng.uniform(size=p.dim)
            worst = max(worst, abs(p.true_value(x) - float(p.twin(x))))
            if abs(float(f.optimal_value) - p.optimum) > 1e-5:
                raise RuntimeError(f"{p.key}: optimum {f.optimal_value} vs {p.optimum}")
    return worst


# ---------------------------------------------------------------- optimisers

def run(optimizer, problem, seed, calls, options=None):
    """Minimises problem with `optimizer` for `calls` evaluations. Returns (true values of the
    evaluated points in order, CPU seconds of the whole run — the process's, which a loaded
    machine inflates far less than wall time —, the index of the recommended point in each
    prefix: the best observed, noisy when the problem is)."""
    noise_rng = np.random.default_rng(10_000 + seed)
    observed, true = [], []

    def f(x):
        v = problem.true_value(x)
        true.append(v)
        y = v + (problem.noise * noise_rng.normal() if problem.noise > 0 else 0.0)
        observed.append(y)
        return y

    start = time.process_time()
    RUNNERS[optimizer](f, problem, seed, calls, dict(options or {}))
    seconds = time.process_time() - start
    rec, best = [], 0
    for i, y in enumerate(observed[:calls]):
        if y < observed[best]:
            best = i
        rec.append(best)
    return true[:calls], seconds, rec


def _gpbandit(f, p, seed, calls, options):
    import gpbandit as gb

    options.setdefault("threads", 1)
    per_dim = options.pop("initial_points_per_dim", None)  # an initial design that grows with d
    if per_dim is not None:
        options["n_initial_points"] = per_dim * (p.dim + 1)
    if options.get("noise") == "true":  # the problem's own noise variance, told as known
        options["noise"] = p.noise ** 2
    gb.minimize(lambda x: f(x), p.bounds, n_calls=calls, random_state=seed, **options)


def _skopt(f, p, seed, calls, options):
    from skopt import gp_minimize

    gp_minimize(lambda x: f(x), p.bounds, n_calls=calls, random_state=seed, **options)


def _optuna(sampler):
    def runner(f, p, seed, calls, options):
        import optuna

        optuna.logging.set_verbosity(optuna.logging.ERROR)
        make = optuna.samplers.TPESampler if sampler == "tpe" else optuna.samplers.GPSampler
        study = optuna.create_study(sampler=make(seed=seed, **options))
        study.optimize(lambda t: f([t.suggest_float(f"x{i}", lo, hi)
                                    for i, (lo, hi) in enumerate(p.bounds)]), n_trials=calls)
    return runner


def _botorch(f, p, seed, calls, options):
    import torch
    from botorch.acquisition import LogExpectedImprovement
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.models.transforms import Normalize, Standardize
    from botorch.optim import optimize_acqf
    from botorch.utils.sampling import draw_sobol_samples
    from gpytorch.mlls import ExactMarginalLogLikelihood

    torch.manual_seed(seed)
    bounds = torch.tensor(p.bounds, dtype=torch.float64).T
    n_init = min(options.get("n_init", 2 * (p.dim + 1)), calls)
    X = draw_sobol_samples(bounds, n=n_init, q=1, seed=seed).squeeze(1)
    Y = torch.tensor([[-f(x.tolist())] for x in X], dtype=torch.float64)  # BoTorch maximises
    while len(X) < calls:
        model = SingleTaskGP(X, Y, input_transform=Normalize(p.dim),
                             outcome_transform=Standardize(m=1))
        fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
        acq = LogExpectedImprovement(model, best_f=Y.max())
        x, _ = optimize_acqf(acq, bounds=bounds, q=1, num_restarts=10, raw_samples=512)
        X = torch.cat([X, x])
        Y = torch.cat([Y, torch.tensor([[-f(x[0].tolist())]], dtype=torch.float64)])


def _random(f, p, seed, calls, options):
    rng = np.random.default_rng(seed)
    lo, hi = np.array(p.bounds).T
    for _ in range(calls):
        f(lo + (hi - lo) * rng.uniform(size=p.dim))


RUNNERS = {"gpbandit": _gpbandit, "skopt": _skopt, "optuna-gp": _optuna("gp"),
           "optuna-tpe": _optuna("tpe"), "botorch": _botorch, "random": _random}
LABELS = {"gpbandit": "gpbandit", "skopt": "skopt gp_minimize", "optuna-gp": "Optuna GP",
          "optuna-tpe": "Optuna TPE", "botorch": "BoTorch LogEI", "random": "random"}
PEERS = ["skopt", "optuna-gp", "botorch", "optuna-tpe"]
