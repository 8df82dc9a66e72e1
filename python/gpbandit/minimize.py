"""``minimize``: one call that minimises your function, shaped like scikit-optimize's gp_minimize.

Drop-in for a scikit-optimize user: the same positional arguments (``func, dimensions, n_calls``),
the same keywords (``n_initial_points``, ``initial_point_generator``, ``acq_func`` = "EI" / "LCB" /
"PI" / "gp_hedge", ``acq_optimizer``, ``x0``, ``y0``, ``random_state``, ``verbose``, ``callback``,
``n_points``, ``n_restarts_optimizer``, ``xi``, ``kappa``, ``noise``, ``n_jobs``,
``model_queue_size``), and a result with the fields its users read (``x``, ``fun``, ``x_iters``,
``func_vals``, ``space``, ``models``, ``specs``, ``random_state``). What differs is said where
it differs (see ``minimize.__doc__``).
"""

import concurrent.futures
import math
import numbers
import sys
import time

import numpy as np

from .optimizer import Optimizer, _invalid

__all__ = ["OptimizeResult", "minimize"]

# Keywords of Optimizer that minimize passes on (anything else is refused naming minimize).
_OPTIMIZER_KEYWORDS = {
    "kernel", "lengthscale", "variance", "noise_variance", "beta", "exact_max", "features",
    "distinct", "random_ties", "fit_every", "fit", "refine", "n_candidates", "domain_seed",
    "backend", "threads", "memory_budget_bytes", "capacity"}
_ACQ_FUNCS = {"ei": "ei", "logei": "ei", "gp_hedge": "ei", "lcb": "ucb", "ucb": "ucb", "pi": "pi",
              "ts": "ts", "random": "random"}
_GENERATORS = ("sobol", "random")


class OptimizeResult(dict):
    """The result of ``minimize``, with scikit-optimize's fields: ``x`` (the best point, a list;
    on a parameter space a dict of values by name), ``fun`` (its value), ``x_iters`` (every
    evaluated point, a list of lists, or of dicts on a parameter space, in order),
    ``func_vals`` (their values, an array), ``space`` (the ``gpbandit.space.Space``), ``models``
    (a list holding the final ``Optimizer``: its model is the surrogate), ``specs`` (the call's
    arguments), ``random_state`` (the seed); and ``optimizer`` (the ``Optimizer``, which can go
    on), ``index`` (the best point's candidate index, -1 off the candidate set), ``nfev``
    (evaluations, failed ones included) and ``failed`` (the points whose evaluation failed).
    Items are also attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self):
        return f"<gpbandit.OptimizeResult fun={self['fun']!r} x={self['x']!r} nfev={self['nfev']}>"


def _seed(random_state, seed):
    if seed is not None and random_state is not None:
        raise _invalid("minimize: give random_state or seed, not both")
    value = seed if seed is not None else random_state
    if value is None:
        return 0
    if isinstance(value, np.random.RandomState):
        return int(value.randint(0, 2**31 - 1))
    if isinstance(value, np.random.Generator):
        return int(value.integers(0, 2**31 - 1))
    if isinstance(value, numbers.Integral) and value >= 0:
        return int(value)
    raise _invalid(f"minimize: random_state must be None, an int >= 0 or a NumPy random state, "
                   f"got {value!r}")


def _count(name, value, lowest):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _invalid(f"minimize: {name} must be an integer, got {value!r}")
    if value < lowest:
        raise _invalid(f"minimize: {name} must be >= {lowest}, got {value}")
    return int(value)


def _callbacks(callback):
    if callback is None:
        return []
    if callable(callback):
        return [callback]
    if isinstance(callback, (list, tuple)) and all(callable(c) for c in callback):
        return list(callback)
    raise TypeError("minimize: callback must be a callable or a list of callables")


def _noise_mode(noise):
    """minimize's noise: "gaussian" (fitted), "returned", or a known variance ≥ 0 (a float)."""
    if isinstance(noise, str) and noise.lower() in ("gaussian", "returned"):
        return noise.lower()
    if isinstance(noise, numbers.Real) and not isinstance(noise, bool) and math.isfinite(
            noise) and noise >= 0:
        return float(noise)
    raise _invalid(f"minimize: noise must be 'gaussian' (fitted), 'returned' (func returns "
                   f"(value, variance)) or a known variance >= 0, got {noise!r}")


def _variance(v):
    """A returned noise variance: None (not known) or a finite number >= 0."""
    if v is None:
        return None
    arr = np.asarray(v, dtype=float)
    if arr.size != 1 or not np.isfinite(arr).all() or arr.reshape(-1)[0] < 0:
        raise _invalid(f"minimize: the objective returned the noise variance {v!r}; it must be "
                       "a number >= 0 (or None: not known)")
    return float(arr.reshape(-1)[0])


def _value(v):
    """One evaluation's value: a number, or a 1-element array; NaN or None means failed."""
    if v is None:
        return float("nan")
    arr = np.asarray(v, dtype=float)
    if arr.size != 1:
        raise _invalid(f"minimize: the objective returned {arr.size} values; it must return one "
                       "number (or a 1-element array)")
    return float(arr.reshape(-1)[0])


def minimize(func, dimensions=None, n_calls=100, *, n_initial_points=None,
             initial_point_generator="random", acq_func="EI", acq_optimizer="auto", x0=None,
             y0=None, random_state=None, verbose=False, callback=None, n_points=4096,
             n_restarts_optimizer=5, xi=0.0, kappa=None, noise="gaussian", n_jobs=1,
             model_queue_size=None, base_estimator=None, q=None, max_time=None, seed=None,
             optimizer=None, domain=None, acquisition=None, n_random_starts=None,
             exploit_last=0.05, **options):
    """Minimises ``func`` with ``n_calls`` evaluations (like scikit-optimize's gp_minimize).

    ``func(x)`` takes one point and returns a number (or a 1-element array). ``x`` is a 1-D float
    array when every dimension is a real interval, otherwise a list of values (ints for integer
    dimensions, the categories themselves). A NaN or None result is a failed evaluation: it
    counts in n_calls, never enters the model, and the point is never asked again.

    ``dimensions`` (or ``domain``): a list of ``(low, high)`` pairs or lists — two ints make an
    integer dimension, so ``(1, 10)`` asks only 1..10 —, ``(low, high, "log-uniform")``, lists of
    categories, ``gpbandit.space.Real`` / ``Integer`` / ``Categorical`` or scikit-optimize's; the
    optimizer then searches the whole box (``n_points`` Sobol candidates are the global step of
    each ask, refined beyond them). Any other form ``Optimizer`` accepts (a grid, a NumPy array or
    file of candidates) is a finite set that is never left.

    Evaluations: ``n_calls`` in all, the ``x0`` points that are evaluated here (``y0`` None)
    included, as in scikit-optimize; the first ``n_initial_points`` (default: the dimension + 1,
    at least 5; fewer by the points told through ``x0``) come from ``initial_point_generator``
    ("random", uniform in the box, the default as in scikit-optimize: chosen by the ablation of
    bench/RESULTS.md; "sobol": the prefix of the scrambled Sobol candidates). ``acq_func`` (any case):
    "EI" (expected improvement computed as log EI, threshold ``xi`` in the units of y; the
    default), "LCB" (μ − κσ with ``kappa``; None: a schedule), "PI", "gp_hedge" (taken as EI:
    gpbandit has no acquisition portfolio), "ts", "random". ``acq_optimizer``
    "auto"/"lbfgs" refines each ask beyond the candidates by local candidates and L-BFGS-B
    (``n_restarts_optimizer`` polished points), "sampling" stays on the candidates.
    ``noise``: "gaussian" (the noise level is fitted, the default), a number ≥ 0 (the known
    variance of every evaluation's error, as in scikit-optimize: it enters the model instead of a
    fitted noise), or "returned" (``func`` returns ``(value, variance)``, the variance of that
    evaluation's error, e.g. from replicates; None as the variance: not known); told either way,
    the fits also choose the lengthscale prior's location by marginal likelihood
    (``fit={"lengthscale_prior_select": True}``; bench/RESULTS.md, "Known noise").
    ``random_state`` (or ``seed``): an int or a NumPy
    random state; it also scrambles the Sobol candidates. ``n_jobs`` > 1 evaluates batches of
    n_jobs points in parallel threads (scikit-optimize uses n_jobs for its acquisition search
    instead), ``q`` sets the batch size alone. ``max_time`` stops starting new evaluations after
    that many seconds. ``verbose`` prints one line per evaluation with the best so far.
    ``callback``: a callable or a list of callables, each called with the result so far after
    every batch; one returning True stops the run. ``optimizer`` continues an existing
    ``Optimizer`` (``dimensions`` and the model options are then ignored). Other keywords go to
    ``Optimizer`` (kernel, fit_every, fit, refine, backend, ...); anything else is an error.
    Unlike a bare ``Optimizer``, ``minimize`` turns on the output warp (``fit={"warp": True}``:
    the worst 40 % of the distances below the best value Box-Cox compressed before the GP sees
    them; chosen by the ablation of bench/RESULTS.md); ``fit={"warp": False}`` turns it off.
    It also chooses the kernel's structure at every fit (``fit={"kernel_select": True}``: the
    product kernel over all inputs or the additive kernel of 1-d parts, by BIC-penalised
    marginal likelihood; ``fit={"kernel_select": False}`` keeps the product).
    ``exploit_last`` (a fraction in [0, 1), default 0.05, chosen by the ablation of
    bench/RESULTS.md; 0 turns it off): the last ⌊exploit_last·n_calls⌋ evaluations choose the
    posterior mean's best point (UCB with β = 1e-8, refined beyond the candidates on a box)
    instead of the acquisition's, spending the end of the budget on the incumbent's
    neighbourhood; the returned optimizer has its own rule back.
    ``base_estimator`` must be None or "GP"; ``model_queue_size`` is accepted and ignored (the
    result keeps the final model).

    Returns an ``OptimizeResult``.
    """
    unknown = sorted(set(options) - _OPTIMIZER_KEYWORDS)
    if unknown:
        raise TypeError(f"minimize() got an unexpected keyword argument '{unknown[0]}'")
    if dimensions is not None and domain is not None:
        raise _invalid("minimize: give dimensions or domain, not both")
    dimensions = domain if dimensions is None else dimensions
    if base_estimator not in (None, "GP", "gp"):
        raise _invalid(f"minimize: base_estimator must be None or 'GP' (a Gaussian process is "
                       f"the only model), got {base_estimator!r}")
    noise = _noise_mode(noise)
    if n_random_starts is not None:  # scikit-optimize's deprecated name
        n_initial_points = n_random_starts
    n_calls = _count("n_calls", n_calls, 1)
    exploit = _exploit_calls(exploit_last, n_calls)
    acq = str(acquisition if acquisition is not None else acq_func).lower()
    if acq not in _ACQ_FUNCS:
        raise _invalid(f"minimize: acq_func must be one of EI, LCB, PI, gp_hedge, ts, random "
                       f"(any case), got {acq_func!r}")
    if str(acq_optimizer).lower() not in ("auto", "lbfgs", "sampling"):
        raise _invalid(f"minimize: acq_optimizer must be 'auto', 'lbfgs' or 'sampling', got "
                       f"{acq_optimizer!r}")
    if str(initial_point_generator).lower() not in _GENERATORS:
        raise _invalid(f"minimize: initial_point_generator must be one of "
                       f"{', '.join(_GENERATORS)}, got {initial_point_generator!r}")
    n_jobs = _count("n_jobs", n_jobs, 1)
    batch = _count("q", q, 1) if q is not None else n_jobs
    callbacks = _callbacks(callback)
    seed = _seed(random_state, seed)
    x0 = _points(x0)
    if y0 is not None:
        y0 = [_value(v) for v in np.reshape(np.asarray(y0, dtype=object), -1)]
        if x0 is None or len(y0) != len(x0):
            raise _invalid(f"minimize: y0 has {len(y0)} values but x0 has "
                           f"{0 if x0 is None else len(x0)} points")
    evaluate_x0 = x0 is not None and y0 is None
    if evaluate_x0 and len(x0) > n_calls:
        raise _invalid(f"minimize: n_calls = {n_calls} cannot cover the {len(x0)} points of x0 "
                       "(they are evaluated here and count in n_calls)")
    if optimizer is None:
        if dimensions is None:
            raise _invalid("minimize: dimensions are required (or an optimizer to continue)")
        from .space import Space

        d = Space(dimensions).n_dims if Space.accepts(dimensions) else None
        if n_initial_points is None:
            n_initial_points = max(5, (d or 4) + 1)
        n_init = _count("n_initial_points", n_initial_points, 0)
        n_init = max(0, n_init - (len(x0) if x0 is not None else 0))
        model = dict(options)
        # The output warp is minimize's default (fit.warp, its knee at fit.warp_knee = 0.6;
        # fit={"warp": False} turns it off): chosen by the ablation of bench/RESULTS.md.
        # So is the kernel's structure chosen by the data (fit.kernel_select: the product or the
        # additive kernel at every fit; fit={"kernel_select": False} keeps the product).
        # With the noise told (noise a number or "returned"), the lengthscale prior's location is
        # chosen by marginal likelihood too (fit.lengthscale_prior_select): a told noise as large
        # as a flat start's spread otherwise leaves the lengthscales to the prior's ln(d)/2 and
        # log EI runs to a corner (bench/RESULTS.md, "Known noise": noisy Hartmann-6 1.86 → 0.213).
        if model.get("fit") is None or isinstance(model.get("fit"), dict):
            told = {"lengthscale_prior_select": True} if noise != "gaussian" else {}
            model["fit"] = {"warp": True, "kernel_select": True, **told, **(model.get("fit") or {})}
        # n_points (scikit-optimize's name) or n_candidates (Optimizer's): the Sobol candidates.
        model["n_candidates"] = _count("n_points", model.get("n_candidates", n_points), 1)
        if kappa is not None:
            model["beta"] = float(kappa) ** 2
        if str(acq_optimizer).lower() == "sampling":
            model["refine"] = False
        elif n_restarts_optimizer is not None and model.get("refine", True) is not False:
            refine = dict(model.get("refine") or {})
            refine.setdefault("starts", _count("n_restarts_optimizer", n_restarts_optimizer, 0))
            model["refine"] = refine
        optimizer = Optimizer(dimensions, acquisition=_ACQ_FUNCS[acq], xi=xi, minimize=True,
                              initial_points=n_init, initial_design=initial_point_generator.lower(),
                              seed=seed, **model)
    if not getattr(optimizer._core, "minimize", True):
        raise _invalid("minimize: optimizer needs an Optimizer built with minimize=True")
    start = time.monotonic()
    state = _Run(func, optimizer, verbose, n_calls, start, noise)
    if x0 is not None:
        if evaluate_x0:
            values, variances = state.split([state.call(x) for x in x0])
        else:
            values, variances = y0, (noise if isinstance(noise, float) else None)
        optimizer.tell(x0 if optimizer._user_points() else np.asarray(x0, dtype=float), values,
                       variances)
        state.report(x0, values)
    spent = len(x0) if evaluate_x0 else 0
    rule = None  # the optimizer's own rule while exploit_last has replaced it
    pool = concurrent.futures.ThreadPoolExecutor(n_jobs) if n_jobs > 1 else None
    try:
        while spent < n_calls:
            if max_time is not None and time.monotonic() - start >= max_time:
                break
            if exploit and rule is None and n_calls - spent <= exploit:
                rule = optimizer._core.acquisition_rule
                optimizer.set_acquisition("ucb", beta=_EXPLOIT_BETA)
            points, _ = optimizer.ask(min(batch, n_calls - spent))
            if pool is None:
                values, variances = state.split([state.call(x) for x in points])
            else:
                values, variances = state.split(list(pool.map(state.call, points)))
            optimizer.tell(points, values, variances)
            state.report(points, values)
            spent += len(values)
            result = _result(optimizer, state, seed)
            if any(cb(result) for cb in callbacks):
                break
    finally:
        if pool is not None:
            pool.shutdown()
        if rule is not None:
            optimizer._core.acquisition_rule = rule
    return _result(optimizer, state, seed)


# exploit_last's rule: UCB with a constant β this small is the posterior mean, its σ term only
# breaking ties (β must be > 0).
_EXPLOIT_BETA = 1e-8


def _exploit_calls(fraction, n_calls):
    """The number of final calls exploit_last spends on the posterior mean."""
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not (
            0 <= fraction < 1):
        raise _invalid(f"minimize: exploit_last must be a fraction in [0, 1), got {fraction!r}")
    return int(math.floor(fraction * n_calls))


def _points(x0):
    """x0 as a list of points (one point may be given alone), or None."""
    if x0 is None:
        return None
    if isinstance(x0, np.ndarray):
        return [list(r) for r in np.atleast_2d(x0)]
    x0 = list(x0)
    if not x0:
        return None
    if not isinstance(x0[0], (list, tuple, np.ndarray)):
        x0 = [x0]
    return [list(p) for p in x0]


def _point(x):
    """A point as the result reports it: a list of values (an array's, or your units), or on a
    parameter space a dict of values by name (not list(dict), which would be its names)."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    return dict(x) if isinstance(x, dict) else list(x)


class _Run:
    """What minimize keeps between calls: the function, the progress lines, the evaluations."""

    def __init__(self, func, optimizer, verbose, n_calls, start, noise):
        self.func, self.optimizer, self.verbose = func, optimizer, verbose
        self.n_calls, self.start, self.done, self.noise = n_calls, start, 0, noise
        told = optimizer.X  # an optimizer that goes on keeps its earlier evaluations first
        self.x_iters = [_point(x) for x in told]
        self.values = [float(v) for v in optimizer.y]

    def call(self, x):
        """(value, known noise variance or None) of one evaluation."""
        point = np.asarray(x, dtype=float) if not self.optimizer._user_points() else x
        r = self.func(point)
        if self.noise == "returned":
            if not isinstance(r, (tuple, list)) or len(r) != 2:
                raise _invalid("minimize: with noise='returned' the objective must return "
                               f"(value, variance), got {r!r}")
            return _value(r[0]), _variance(r[1])
        return _value(r), self.noise if isinstance(self.noise, float) else None

    def split(self, results):
        """Values and known noise variances (None when none is known) of (value, noise) pairs."""
        values = [v for v, _ in results]
        variances = [n for _, n in results]
        if all(n is None for n in variances):
            return values, None
        return values, [np.nan if n is None else n for n in variances]

    def report(self, points, values):
        for x, v in zip(points, values):
            self.done += 1
            self.x_iters.append(_point(x))
            self.values.append(v)
            if self.verbose:
                ok = [u for u in self.values if np.isfinite(u)]
                best = f"{min(ok):.6g}" if ok else "none yet"
                shown = "failed" if not np.isfinite(v) else f"{v:.6g}"
                print(f"gpbandit.minimize: call {self.done}/{self.n_calls}: f = {shown}, "
                      f"best {best} ({time.monotonic() - self.start:.2f} s)", file=sys.stdout,
                      flush=True)


def _result(optimizer, state, seed):
    try:
        best = optimizer.best
        x, fun, index = _point(best.x), float(best.y), best.index
    except Exception:  # no successful evaluation yet
        x, fun, index = None, float("nan"), -1
    failed = optimizer.failed
    failed = failed.tolist() if isinstance(failed, np.ndarray) else failed
    return OptimizeResult(
        x=x, fun=fun, index=index, x_iters=list(state.x_iters),
        func_vals=np.asarray(state.values, dtype=float), space=optimizer.space,
        models=[optimizer], optimizer=optimizer, nfev=len(state.values), failed=failed,
        random_state=seed, specs={"function": "minimize", "args": {"n_calls": state.n_calls}})
