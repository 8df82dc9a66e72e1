"""Ask/tell Bayesian optimisation of your own function: ``Optimizer`` and ``minimize``.

``Optimizer`` wraps the C++ ``gpb::Optimizer`` (``OptimizerCore``): a finite candidate set (a grid,
a .csv/.npy file, a NumPy array, or a box filled with a scrambled Sobol sequence), a GP surrogate
(SE or Matérn, isotropic or ARD), and an acquisition rule (GP-UCB, Thompson sampling, expected
improvement, random). ``minimize(f, domain, n_calls)`` is the one-line entry point, shaped like
scikit-optimize's ``gp_minimize``.
"""

import collections
import numbers
import os

import numpy as np

from ._gpbandit import DomainSpec, Kernel, OptimizerCore

__all__ = ["Optimizer", "Suggestion", "Best", "OptimizeResult", "minimize"]

class Suggestion(collections.namedtuple("Suggestion", ["points", "indices"])):
    """What ``Optimizer.ask(q)`` returns: ``points`` (q×d float64) and ``indices`` (q int64
    candidate indices). Unpacks as ``points, indices = opt.ask(q)``."""

    __slots__ = ()

    def __repr__(self):
        return f"<gpbandit.Suggestion q={len(self.indices)} indices={self.indices.tolist()}>"


class Best(collections.namedtuple("Best", ["x", "y", "index", "observation"])):
    """The best observation: its point ``x`` (d), value ``y`` (as told), candidate ``index`` (-1
    for a point off the candidate set) and position ``observation`` in tell order."""

    __slots__ = ()

    def __repr__(self):
        return (f"<gpbandit.Best y={self.y!r} x={np.asarray(self.x).tolist()} index={self.index} "
                f"observation={self.observation}>")


_KERNELS = {"se": "se", "rbf": "se", "matern12": 0.5, "matern32": 1.5, "matern52": 2.5}
_ACQUISITIONS = ("ucb", "ts", "ei", "random")
_FIT_KEYS = ("every", "min_observations", "ard", "restarts", "max_rows", "normalize")


def _is_box(domain):
    """A list or tuple of (low, high) pairs, one per dimension (scikit-optimize's form)."""
    return (isinstance(domain, (list, tuple)) and len(domain) > 0
            and all(isinstance(b, tuple) and len(b) == 2 for b in domain))


def _domain_spec(domain, n_candidates, domain_seed):
    """A DomainSpec from any of the accepted forms (see Optimizer)."""
    from ._gpbandit import Domain

    if isinstance(domain, DomainSpec):
        return domain
    if isinstance(domain, (str, os.PathLike)):
        return DomainSpec.from_file(os.fspath(domain))
    if isinstance(domain, Domain):
        return DomainSpec.from_rows(np.asarray(domain.points).T)
    if isinstance(domain, dict):
        return _dict_domain(domain)
    if _is_box(domain):
        lower = [float(b[0]) for b in domain]
        upper = [float(b[1]) for b in domain]
        return DomainSpec.sobol(lower, upper, int(n_candidates), int(domain_seed))
    if isinstance(domain, np.ndarray):
        return DomainSpec.from_rows(domain)
    raise TypeError("domain: expected a DomainSpec, Domain, dict, a list of (low, high) pairs, "
                    f"a NumPy array of candidates or a .csv/.npy path, got {type(domain).__name__}")


# The keys of each dict domain type: (required, optional).
_DOMAIN_KEYS = {
    "grid": (("lower", "upper", "counts"), ()),
    "sobol": (("lower", "upper", "count"), ("seed",)),
    "csv": (("path",), ()),
    "npy": (("path",), ()),
    "points": (("points",), ()),
}


def _dict_domain(domain):
    """A DomainSpec from a dict in the config format, every key checked by name."""
    spec = dict(domain)
    kind = spec.pop("type", None)
    if kind not in _DOMAIN_KEYS:
        raise _invalid(f"domain.type: expected one of {', '.join(_DOMAIN_KEYS)}, got {kind!r}")
    required, optional = _DOMAIN_KEYS[kind]
    for key in spec:
        if key not in required + optional:
            raise _invalid(f"domain.{key}: unknown key for type '{kind}' (allowed: "
                           f"{', '.join(('type',) + required + optional)})")
    for key in required:
        if key not in spec:
            raise _invalid(f"domain.{key}: required for type '{kind}'")
    if kind == "grid":
        return DomainSpec.grid(spec["lower"], spec["upper"], spec["counts"])
    if kind == "sobol":
        return DomainSpec.sobol(spec["lower"], spec["upper"], spec["count"], spec.get("seed", 0))
    if kind == "points":
        return DomainSpec.from_rows(spec["points"])
    return DomainSpec.from_file(os.fspath(spec["path"]))


def _invalid(message):
    from ._gpbandit import InvalidArgument

    return InvalidArgument(message)


def _box_widths(spec):
    """Per-axis extent of the candidate set (1 where it is flat)."""
    if spec.kind in ("grid", "sobol"):
        width = np.asarray(spec.upper, float) - np.asarray(spec.lower, float)
    else:
        points = np.asarray(spec.points)
        if points.shape[0] == 0:
            raise _invalid(f"domain: no candidates (an array of shape {points.shape})")
        width = np.ptp(points, axis=0)
    return np.where(width > 0, width, 1.0)


def _kernel(kernel, lengthscale, variance, spec):
    if isinstance(kernel, Kernel):
        return kernel
    name = str(kernel).lower()
    if name not in _KERNELS:
        raise _invalid(f"kernel: expected a Kernel or one of {', '.join(_KERNELS)}, got {kernel!r}")
    if lengthscale is None:  # ARD, a fifth of the candidate set's extent on every axis
        lengthscale = 0.2 * _box_widths(spec)
        if lengthscale.size == 1:
            lengthscale = float(lengthscale[0])
    nu = _KERNELS[name]
    if nu == "se":
        return Kernel.se(lengthscale, variance)
    return Kernel.matern(nu, lengthscale, variance)


def _beta(beta):
    if beta is None:
        return {}
    if isinstance(beta, numbers.Real):
        return {"type": "constant", "value": float(beta)}
    if isinstance(beta, str):
        return {"type": beta}
    if isinstance(beta, dict):
        return dict(beta)
    raise TypeError(f"beta: expected None, a number (constant beta), a schedule name or a dict, "
                    f"got {type(beta).__name__}")


def _fit(fit, fit_every):
    fit = dict(fit or {})
    unknown = set(fit) - set(_FIT_KEYS)
    if unknown:
        raise _invalid(f"fit.{sorted(unknown)[0]}: unknown key ({', '.join(_FIT_KEYS)})")
    if fit_every is not None:
        fit["every"] = fit_every
    return fit


class Optimizer:
    """Ask/tell Bayesian optimisation over a finite set of candidates.

    ``domain`` is one of: a ``DomainSpec``; a dict in the config format (``{"type": "grid",
    "lower": [..], "upper": [..], "counts": [..]}``, ``"sobol"`` with ``count``/``seed``,
    ``"csv"``/``"npy"`` with ``path``, ``"points"`` with ``points``); a list of ``(low, high)``
    pairs (a box, filled with ``n_candidates`` scrambled Sobol points, ``domain_seed``); an N×d
    NumPy array of candidates; a ``gpbandit.Domain``; or the path of a .csv/.npy file.

    ``kernel`` is a ``gpbandit.Kernel`` or a name ("se", "matern12", "matern32", "matern52") with
    ``lengthscale`` (a number, or one per axis; default ARD, a fifth of the candidates' extent on
    each axis) and ``variance``. ``noise_variance`` is the surrogate's Gaussian noise. ``acquisition``
    is "ucb" (``beta``: None for Srinivas' schedule, a number for a constant β, or a dict such as
    ``{"type": "igp_ucb", "B": 1, "R": 0.1}``), "ts" (Thompson sampling; exact posterior draws up
    to ``exact_max`` points, ``features`` random Fourier features beyond), "ei" (expected
    improvement with threshold ``xi``) or "random". Rewards are maximised unless ``minimize``.
    The first ``initial_points`` asks are uniform random. ``fit_every`` = k refits the kernel by
    marginal likelihood after every k observations (``fit``: min_observations, ard, restarts,
    max_rows, normalize). ``backend``: "auto", "cpu" or "cuda".

    Told points outside the candidates' bounding box are refused (an ``InvalidArgument`` naming
    the point) unless ``allow_outside``; a told point within ``match_tolerance`` (relative to the
    candidates' extent) of an outstanding ask answers that ask, so points printed with 6
    significant digits still count as the candidates asked for.

    The state pickles (``pickle.dumps(opt)``), and ``save``/``load``/``state_dict`` keep it in a
    file or a dict: a loaded optimizer continues with exactly the choices of the original.

    Threads: one Optimizer may be shared between threads; its calls are serialised by a lock in
    the C++ core (and release the GIL while they wait and work). Warnings: a suggestion that
    repeats an observed candidate issues ``gpbandit.ModelWarning``; a posterior that does not fit
    the memory budget issues ``gpbandit.PerformanceWarning``.
    """

    def __init__(self, domain, kernel="matern52", *, lengthscale=None, variance=1.0,
                 noise_variance=1e-2, acquisition="ucb", beta=None, xi=0.0, exact_max=4096,
                 features=1024, minimize=False, initial_points=0, distinct=True,
                 random_ties=True, seed=0, fit_every=None, fit=None, n_candidates=4096,
                 domain_seed=0, backend="auto", threads=0, memory_budget_bytes=0,
                 capacity=256, allow_outside=False, match_tolerance=1e-5):
        """Builds the candidate set, the surrogate and an empty posterior (options: see the
        class docstring). Raises InvalidArgument naming a bad option."""
        spec = _domain_spec(domain, n_candidates, domain_seed)
        if acquisition not in _ACQUISITIONS:
            raise _invalid(f"acquisition: expected one of {', '.join(_ACQUISITIONS)}, "
                           f"got {acquisition!r}")
        self._core = OptimizerCore(
            spec, _kernel(kernel, lengthscale, variance, spec), noise_variance, acquisition,
            _beta(beta), xi, exact_max, features, minimize, initial_points, distinct, random_ties,
            seed, _fit(fit, fit_every), backend, threads, memory_budget_bytes, capacity,
            allow_outside, match_tolerance)

    @classmethod
    def _wrap(cls, core):
        opt = cls.__new__(cls)
        opt._core = core
        return opt

    @classmethod
    def from_config(cls, path):
        """An optimizer from a JSON config file (the format of ``gpbandit init``)."""
        return cls._wrap(OptimizerCore.from_config(os.fspath(path)))

    # ------------------------------------------------------------------ ask / tell / predict

    def ask(self, q=1):
        """Chooses ``q`` candidates (a batch by GP-BUCB hallucination when q > 1).

        Returns a ``Suggestion(points, indices)``: q×d points and q int64 candidate indices.
        They stay pending (hallucinated in the model) until told.
        """
        points, indices = self._core.ask(q)
        return Suggestion(points, indices)

    def tell(self, points_or_indices, y):
        """Tells the observed values ``y`` (a number, or one per point).

        ``points_or_indices`` is either candidate indices (an int or an array of integer dtype)
        or points (an m×d float array, or one point of d floats): any points, asked or not, on
        the candidate set or off it, in any order and batch size. A 1-D integer array means
        indices; points with integer coordinates go as a 2-D array. Returns self.
        """
        arr = np.asarray(points_or_indices)
        values = np.reshape(np.asarray(y), -1)
        if arr.dtype.kind in "iu" and arr.ndim <= 1:
            self._core.tell_indices(arr.reshape(-1), values)
        elif arr.dtype.kind in "iuf":
            self._core.tell_points(self._as_rows(arr, "points"), values)
        else:
            raise TypeError("points_or_indices: expected candidate indices (integer dtype) or "
                            f"points (float dtype), got {arr.dtype}")
        return self

    def forget(self, points_or_indices=None):
        """Releases outstanding asks that will never be told (a failed or abandoned evaluation):
        every one when ``points_or_indices`` is None, else those of the given candidate indices
        (integer dtype) or points (float dtype, matched as ``tell`` matches them). Later asks may
        choose those candidates again. Returns how many asks were released; raises
        InvalidArgument naming an index or point with no outstanding ask (nothing released)."""
        if points_or_indices is None:
            return self._core.forget_all()
        arr = np.asarray(points_or_indices)
        if arr.dtype.kind in "iu" and arr.ndim <= 1:
            return self._core.forget_indices(arr.reshape(-1))
        if arr.dtype.kind in "iuf":
            return self._core.forget_points(self._as_rows(arr, "points"))
        raise TypeError("points_or_indices: expected candidate indices (integer dtype) or "
                        f"points (float dtype), got {arr.dtype}")

    def _as_rows(self, arr, what):
        """m×d rows from an m×d array, one point of d values, or (d = 1) m values."""
        dim = self._core.domain.dim
        arr = np.asarray(arr, dtype=float)
        if arr.ndim == 0 or (arr.ndim == 1 and dim == 1):
            return arr.reshape(-1, 1)
        if arr.ndim == 1:
            if arr.size != dim:
                raise _invalid(f"{what}: expected one point of {dim} values or an m×{dim} "
                               f"array, got {arr.size} values")
            return arr.reshape(1, dim)
        return arr

    def predict(self, X=None):
        """Posterior ``(mean, variance)`` of f at the m×d points ``X`` (any points; one point of
        d floats gives arrays of length 1), or at every candidate when ``X`` is None. Values are
        in the units of y; pending asks do not count."""
        if X is None:
            return self._core.predict_candidates()
        return self._core.predict(self._as_rows(X, "X"))

    def fit_hyperparameters(self):
        """Fits the kernel's lengthscales (ARD), its variance and the noise variance by marginal
        likelihood (L-BFGS-B with restarts) and rebuilds the model. Returns a ``HyperFit``."""
        return self._core.fit_hyperparameters()

    # ------------------------------------------------------------------ what it has seen

    @property
    def X(self):
        """The observed points, one per row (n×d array), in tell order."""
        return np.asarray(self._core.observed_points)

    @property
    def y(self):
        """The observed values (length n), as told, in tell order."""
        return np.asarray(self._core.observed_values, dtype=float)

    @property
    def observed_indices(self):
        """Candidate index of each observation (-1 for a point off the candidate set)."""
        return np.asarray(self._core.observed_indices, dtype=np.int64)

    @property
    def pending(self):
        """Candidates asked for and not yet told, in ask order (int64 array)."""
        return np.asarray(self._core.pending, dtype=np.int64)

    @property
    def best(self):
        """The best observation (largest y, or smallest when minimising) as a ``Best``."""
        x, y, index, observation = self._core.best()
        return Best(np.asarray(x), y, index, observation)

    @property
    def candidates(self):
        """The N×d candidate points."""
        return np.asarray(self._core.candidates)

    @property
    def domain(self):
        """The candidate set's ``DomainSpec``."""
        return self._core.domain

    @property
    def kernel(self):
        """The current kernel (fitted values after a fit)."""
        return self._core.kernel

    @property
    def noise_variance(self):
        """The current noise variance of the model (in the model's units of y)."""
        return self._core.noise_variance

    @property
    def fits(self):
        """Hyperparameter fits done so far (explicit and automatic)."""
        return self._core.fits

    @property
    def last_fit_error(self):
        """Why the last automatic refit failed ('' when it did not)."""
        return self._core.last_fit_error

    @property
    def backend(self):
        """The backend the engine runs on, in words."""
        return self._core.backend

    def __len__(self):
        """Number of observations told."""
        return self._core.num_observations

    def __repr__(self):
        core = self._core
        return (f"<gpbandit.Optimizer N={len(self.candidates)} d={core.domain.dim} "
                f"kernel={core.kernel.describe()} observations={core.num_observations} "
                f"pending={len(core.pending)}>")

    # ------------------------------------------------------------------ state

    def state_dict(self):
        """The whole state as a JSON-compatible dict (options, kernel, hyperparameters, every
        observation, pending asks, random-stream positions); see ``from_state_dict``."""
        import json

        return json.loads(self._core.dumps())

    @classmethod
    def from_state_dict(cls, state, backend=None):
        """An optimizer from ``state_dict()``; it continues with the original's choices.
        ``backend`` overrides the saved one."""
        import json

        return cls._wrap(OptimizerCore.loads(json.dumps(state), backend))

    def save(self, path):
        """Writes the state atomically: JSON, or .npz when ``path`` ends in .npz."""
        self._core.save(os.fspath(path))

    @classmethod
    def load(cls, path, backend=None):
        """An optimizer from a file written by ``save`` (or by the CLI's ``gpbandit tell``)."""
        return cls._wrap(OptimizerCore.load(os.fspath(path), backend))

    def __getstate__(self):
        """Pickling: the state as JSON text."""
        return {"state": self._core.dumps()}

    def __setstate__(self, state):
        """Unpickling: replays the state (bit-identical continuation on the same backend)."""
        self._core = OptimizerCore.loads(state["state"], None)


class OptimizeResult(dict):
    """The result of ``minimize``, shaped like scikit-optimize's: ``x`` (best point), ``fun``
    (its value), ``x_iters`` (every evaluated point, n×d), ``func_vals`` (their values),
    ``optimizer`` (the ``Optimizer``, which can go on), ``index`` (the best point's candidate
    index) and ``nfev``. Items are also attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self):
        return (f"<gpbandit.OptimizeResult fun={self['fun']!r} x={list(self['x'])!r} "
                f"nfev={self['nfev']}>")


def minimize(f, domain, n_calls=50, *, n_initial_points=5, acquisition="ei", q=1, x0=None,
             y0=None, callback=None, seed=0, fit_every=1, optimizer=None, **options):
    """Minimises ``f`` over ``domain`` with ``n_calls`` evaluations (like skopt's gp_minimize).

    ``f(x)`` takes one point (a 1-D float array of length d) and returns a number. ``domain``
    takes every form ``Optimizer`` accepts (e.g. ``[(0.0, 1.0), (-2.0, 2.0)]`` for a box filled
    with ``n_candidates`` Sobol points). The first ``n_initial_points`` are random; the kernel is
    refitted by marginal likelihood after every ``fit_every`` evaluations (None: never).
    ``x0``/``y0`` are points (and optionally their values) evaluated or known beforehand; ``q``
    points are asked at a time; ``callback(result)`` is called after each batch and stops the
    run by returning True. ``optimizer`` continues an existing ``Optimizer`` (``domain`` and
    ``options`` are then ignored); other ``options`` go to ``Optimizer``.

    Returns an ``OptimizeResult`` (x, fun, x_iters, func_vals, optimizer, index, nfev).
    """
    if optimizer is None:
        optimizer = Optimizer(domain, acquisition=acquisition, minimize=True,
                              initial_points=n_initial_points, seed=seed, fit_every=fit_every,
                              **options)
    if not getattr(optimizer._core, "minimize", True):
        raise _invalid("optimizer: minimize() needs an Optimizer built with minimize=True")
    if x0 is not None:
        x0 = np.atleast_2d(np.asarray(x0, dtype=float))
        y0 = [float(f(x)) for x in x0] if y0 is None else np.reshape(y0, -1)
        optimizer.tell(x0, y0)
    done = 0
    while done < n_calls:
        points, _ = optimizer.ask(min(q, n_calls - done))
        values = [float(f(x)) for x in points]
        optimizer.tell(points, values)
        done += len(values)
        if callback is not None and callback(_result(optimizer)):
            break
    return _result(optimizer)


def _result(optimizer):
    best = optimizer.best
    return OptimizeResult(x=best.x, fun=best.y, index=best.index, x_iters=optimizer.X,
                          func_vals=optimizer.y, optimizer=optimizer, nfev=len(optimizer))
