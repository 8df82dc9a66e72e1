"""Ask/tell Bayesian optimisation of your own function: ``Optimizer``.

``Optimizer`` wraps the C++ ``gpb::Optimizer`` (``OptimizerCore``): a continuous box (parameters
as in scikit-optimize: real, integer and categorical dimensions, see ``gpbandit.space``) or a
finite candidate set (a grid, a .csv/.npy file, a NumPy array, a Sobol set), a GP surrogate (SE or
Matérn, isotropic or ARD, refitted after every tell), and an acquisition rule (expected improvement
as log EI, GP-UCB, probability of improvement, Thompson sampling, random). On a box, each ask
refines beyond the Sobol candidates (local candidates and gradient steps on the acquisition); a
finite set is never left. ``gpbandit.minimize`` (minimize.py) is the one-call entry point.
"""

import collections
import json
import numbers
import os
import re
import tempfile

import numpy as np

from ._gpbandit import DomainSpec, InvalidArgument, Kernel, OptimizerCore
from .space import Space, space_from_json, space_to_json

__all__ = ["Optimizer", "Suggestion", "Best"]

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
_ACQUISITIONS = ("ei", "logei", "ucb", "lcb", "pi", "ts", "random")
_FIT_KEYS = ("every", "min_observations", "ard", "restarts", "max_rows", "normalize", "warp",
             "warp_select", "warp_knee", "unit_inputs", "prior", "lengthscale_prior_loc",
             "lengthscale_prior_log_d", "lengthscale_prior_scale", "lengthscale_prior_select",
             "kernel_select",
             "noise_floor", "mean_shift", "warm_start", "restarts_every")


def _domain_spec(domain, n_candidates, domain_seed):
    """(DomainSpec, Space or None) from any of the accepted forms (see Optimizer)."""
    from ._gpbandit import Domain

    if isinstance(domain, DomainSpec):
        return domain, None
    if isinstance(domain, (str, os.PathLike)):
        return DomainSpec.from_file(os.fspath(domain)), None
    if isinstance(domain, Domain):
        if domain.is_fingerprint:  # packed words: the tanimoto / minmax kernels, by index
            return DomainSpec.from_fingerprints(domain), None
        return DomainSpec.from_rows(np.asarray(domain.points).T), None
    from .params import ParameterSpace

    if ParameterSpace.accepts(domain):
        space = domain if isinstance(domain, ParameterSpace) else ParameterSpace(domain)
        return space.spec(), space
    if isinstance(domain, dict) and domain.get("type") == "parameters":
        space = ParameterSpace.from_json(domain)
        return space.spec(), space
    if Space.accepts(domain):
        space = Space(domain)
        return space.spec(n_candidates, domain_seed), space
    if isinstance(domain, dict):
        return _dict_domain(domain, n_candidates, domain_seed), None
    if isinstance(domain, np.ndarray):
        return DomainSpec.from_rows(domain), None
    raise TypeError("domain: expected a list of dimensions ((low, high) pairs, Real / Integer / "
                    "Categorical), a DomainSpec, Domain, dict, a NumPy array of candidates or a "
                    f".csv/.npy path, got {type(domain).__name__}")


def _is_indices(x):
    """Whether x is candidate indices: an int, or an integer-dtype NumPy array."""
    return (isinstance(x, numbers.Integral) and not isinstance(x, bool)) or (
        isinstance(x, np.ndarray) and x.dtype.kind in "iu")


def _key(point):
    """A hashable key of a point in the user's units (None when a value is unhashable)."""
    if isinstance(point, dict):  # a parameter space's point: its values by name
        try:
            key = tuple(sorted(point.items()))
            hash(key)
            return key
        except TypeError:
            return None
    try:
        key = tuple(point)
        hash(key)
        return key
    except TypeError:
        return None


# The keys of each dict domain type: (required, optional).
_DOMAIN_KEYS = {
    "grid": (("lower", "upper", "counts"), ()),
    "sobol": (("lower", "upper", "count"), ("seed",)),
    "csv": (("path",), ()),
    "npy": (("path",), ()),
    "points": (("points",), ()),
    "box": (("lower", "upper"), ("candidates", "seed", "integer", "onehot")),
}


def _dict_domain(domain, n_candidates, domain_seed):
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
    if kind == "box":
        return DomainSpec.box(spec["lower"], spec["upper"], int(spec.get("candidates", n_candidates)),
                              int(spec.get("seed", domain_seed)), list(spec.get("integer", ())),
                              [tuple(g) for g in spec.get("onehot", ())])
    return DomainSpec.from_file(os.fspath(spec["path"]))


def _invalid(message):
    from ._gpbandit import InvalidArgument

    return InvalidArgument(message)


def _box_widths(spec):
    """Per-axis extent of the candidate set (1 where it is flat)."""
    if spec.kind in ("grid", "sobol", "box"):
        width = np.asarray(spec.upper, float) - np.asarray(spec.lower, float)
    elif spec.kind == "parameters":
        width = np.asarray(spec.feature_widths, float)
    else:
        points = np.asarray(spec.points)
        if points.shape[0] == 0:
            raise _invalid(f"domain: no candidates (an array of shape {points.shape})")
        width = np.ptp(points, axis=0)
    return np.where(width > 0, width, 1.0)


_PART_KEYS = ("parameters", "type", "lengthscale", "variance", "ard")


def _space_kernel(kernel, space, variance):
    """A per-parameter product or sum kernel from its dict (docs/spaces.md, "Kernels per
    parameter"): ``{"combine": "product"|"sum", "parts": [{"parameters": [...], "type": ...,
    "lengthscale": ..., "ard": ..., "variance": ...}], "type": ..., "variance": ...}``."""
    from ._gpbandit import space_kernel
    from .params import ParameterSpace

    if not isinstance(space, ParameterSpace):
        raise _invalid("kernel: a dict of parts needs a domain of named parameters "
                       "(gpbandit.params.ParameterSpace or a list of parameters)")
    unknown = set(kernel) - {"combine", "parts", "type", "variance"}
    if unknown:
        raise _invalid(f"kernel.{sorted(unknown)[0]}: unknown key (combine, parts, type, variance)")
    combine = kernel.get("combine", "product")
    if combine not in ("product", "sum"):
        raise _invalid(f"kernel.combine: must be 'product' or 'sum', got {combine!r}")
    parts = kernel.get("parts")
    if not isinstance(parts, (list, tuple)) or not parts:
        raise _invalid(f"kernel.parts: must be a non-empty list of parts, got {parts!r}")
    out = []
    for i, part in enumerate(parts):
        where = f"kernel.parts[{i}]"
        if not isinstance(part, dict):
            raise TypeError(f"{where}: expected a dict, got {type(part).__name__}")
        bad = set(part) - set(_PART_KEYS)
        if bad:
            raise _invalid(f"{where}.{sorted(bad)[0]}: unknown key ({', '.join(_PART_KEYS)})")
        names = part.get("parameters")
        if isinstance(names, str) or not isinstance(names, (list, tuple)):
            raise TypeError(f"{where}.parameters: expected a list of parameter names, got {names!r}")
        for j, name in enumerate(names):
            if not isinstance(name, str):
                raise TypeError(f"{where}.parameters[{j}]: expected a name, got {name!r}")
        ls = part.get("lengthscale")
        ls = np.zeros(0) if ls is None else np.atleast_1d(np.asarray(ls, dtype=float))
        ard = part.get("ard")
        if ard is not None and not isinstance(ard, (bool, np.bool_)):
            raise TypeError(f"{where}.ard: expected True or False, got {ard!r}")
        out.append((list(names), str(part.get("type", kernel.get("type", "matern52"))), ls,
                    float(part.get("variance", 0.0)), -1 if ard is None else int(bool(ard))))
    var = kernel.get("variance", variance)
    if combine == "sum" and "variance" in kernel:
        raise _invalid("kernel.variance: a sum has one variance per part (kernel.parts[i].variance)")
    return space_kernel(space.core, combine, out, str(kernel.get("type", "matern52")), float(var))


def _kernel(kernel, lengthscale, variance, spec, space=None):
    if isinstance(kernel, Kernel):
        return kernel
    if isinstance(kernel, dict):
        return _space_kernel(kernel, space, variance)
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


def _check_acquisition(acquisition):
    """Raises InvalidArgument naming an acquisition that is not one of _ACQUISITIONS."""
    if str(acquisition).lower() not in _ACQUISITIONS:
        raise _invalid(f"acquisition: expected one of {', '.join(_ACQUISITIONS)} (any "
                       f"case), got {acquisition!r}")


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
    fit.setdefault("every", 1)  # refit after every tell by default (see the class docstring)
    return fit


def _finite(values):
    """A bool mask of the values that are not failures (None and NaN are failed evaluations;
    an infinite value is refused by the engine, naming it)."""
    out = []
    for v in values:
        try:
            out.append(v is not None and not np.isnan(float(v)))
        except (TypeError, ValueError):
            out.append(False)
    return np.asarray(out, dtype=bool)


class Optimizer:
    """Ask/tell Bayesian optimisation over a box or a finite set of candidates.

    ``domain`` is one of:

    - a list of dimensions, as scikit-optimize takes them (a continuous box the optimizer may
      suggest any point of): ``(low, high)`` pairs or lists (two ints make an integer
      dimension, e.g. ``(1, 10)``), ``(low, high, "log-uniform")``, lists of categories, or
      ``gpbandit.space.Real`` / ``Integer`` / ``Categorical`` (scikit-optimize's objects work
      too); ``n_candidates`` scrambled Sobol points (``domain_seed``, default ``seed``) are the
      global step of each ask, which ``refine`` goes beyond;
    - a finite candidate set, never left: a ``DomainSpec``; a dict in the config format
      (``{"type": "grid", "lower": [..], "upper": [..], "counts": [..]}``, ``"sobol"`` with
      ``count``/``seed``, ``"box"`` with ``candidates``/``seed``/``integer``/``onehot``,
      ``"csv"``/``"npy"`` with ``path``, ``"points"`` with ``points``); an N×d NumPy array of
      candidates; a ``gpbandit.Domain``; or the path of a .csv/.npy file.

    With integer, categorical or log-uniform dimensions, points go in and out in your units (lists
    of values); otherwise as float arrays.

    ``kernel`` is a ``gpbandit.Kernel`` or a name ("se", "matern12", "matern32", "matern52") with
    ``lengthscale`` (a number, or one per axis; default ARD, a fifth of the domain's extent on each
    axis) and ``variance``; on a parameter space also a dict of per-parameter parts,
    ``{"combine": "product" | "sum", "parts": [{"parameters": [names], "type": ..., ...}]}``
    (docs/spaces.md, "Kernels per parameter"). ``noise_variance`` is the surrogate's Gaussian noise (until a fit).
    ``acquisition`` (any letter case): "ei" (expected improvement, computed as log EI; threshold
    ``xi`` in the units of y), "ucb" or "lcb" (``beta``: None for Srinivas' schedule, a number
    for a constant β, or a dict such as ``{"type": "igp_ucb", "B": 1, "R": 0.1}``), "pi"
    (probability of improvement), "ts" (Thompson sampling; exact draws up to ``exact_max``
    points, ``features`` random Fourier features beyond or while refitting) or "random". Rewards
    are maximised unless ``minimize``. The first ``initial_points`` asks are an initial design
    (``initial_design`` "sobol": the Sobol prefix of a box or Sobol set; "random").

    Defaults a scikit-optimize or BoTorch user expects, chosen by measurement
    (bench/RESULTS.md): y is standardised after every tell, and the kernel (ARD lengthscales,
    variance, noise) is refitted after every ``fit_every`` (default 1) tells from
    ``fit["min_observations"]`` = 5 on, by maximum a posteriori in unit coordinates with a lengthscale prior that grows with
    the dimension; ``fit`` sets the rest (every, min_observations, ard, restarts, max_rows,
    normalize, warp, warp_select, warp_knee, unit_inputs, prior, lengthscale_prior_loc,
    lengthscale_prior_log_d, lengthscale_prior_scale, lengthscale_prior_select, kernel_select,
    noise_floor, mean_shift, warm_start, restarts_every; ``fit_every=0`` never refits: then the
    kernel stays as given; ``lengthscale_prior_select`` also fits the prior without its ln(d)
    term at every fit and keeps the fit of higher marginal likelihood; ``kernel_select`` also
    fits the additive kernel, one 1-d part per input, and keeps the structure of higher
    marginal likelihood, penalised by BIC for the additive kernel's extra variances). Each refit costs
    O(restarts·iterations·t³) on t observations.
    ``refine`` (a dict: enabled, local_points, centres, starts, iterations,
    coordinate_points, face_tolerance; or False) controls the
    continuous refinement on a box, and of a parameter space's continuous parameters. ``backend``: "auto", "cpu" or "cuda".

    ``exclude_observed=True`` makes every suggestion a new experiment: ``ask`` never returns a
    candidate already told (observed or failed; BayBE's
    ``allow_recommending_already_measured=False``). By default an observed candidate may be asked
    again (issuing ``gpbandit.ModelWarning``), which a noisy model may want.

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
                 noise_variance=1e-2, acquisition="ei", beta=None, xi=0.0, exact_max=4096,
                 features=1024, minimize=False, initial_points=0, initial_design="sobol",
                 distinct=True, random_ties=True, seed=0, fit_every=None, fit=None, refine=None,
                 n_candidates=4096, domain_seed=None, backend="auto", threads=0,
                 memory_budget_bytes=0, capacity=256, allow_outside=False,
                 match_tolerance=1e-5, exclude_observed=False):
        """Builds the candidate set, the surrogate and an empty posterior (options: see the
        class docstring). Raises InvalidArgument naming a bad option."""
        if not isinstance(exclude_observed, (bool, np.bool_)):
            raise TypeError(f"exclude_observed: expected True or False, got {exclude_observed!r}")
        exclude_observed = bool(exclude_observed)
        spec, self._space = _domain_spec(domain, n_candidates,
                                         seed if domain_seed is None else domain_seed)
        if spec.kind == "fingerprints" and isinstance(kernel, str) and kernel == "matern52":
            # the default kernel of fingerprints: Tanimoto on bits, MinMax on counts
            kernel = (Kernel.minmax(variance) if domain.fingerprint_kind == "counts"
                      else Kernel.tanimoto(variance))
        _check_acquisition(acquisition)
        if refine is None or refine is True:
            refine = {}
        elif refine is False:
            refine = {"enabled": False}
        self._core = OptimizerCore(
            spec, _kernel(kernel, lengthscale, variance, spec, self._space), noise_variance,
            str(acquisition),
            _beta(beta), xi, exact_max, features, minimize, initial_points, distinct, random_ties,
            seed, _fit(fit, fit_every), backend, threads, memory_budget_bytes, capacity,
            str(initial_design), dict(refine), allow_outside, match_tolerance,
            exclude_observed)

    @classmethod
    def _wrap(cls, core, space=None):
        opt = cls.__new__(cls)
        opt._core = core
        opt._space = space
        return opt

    @classmethod
    def from_config(cls, path):
        """An optimizer from a JSON config file (the format of ``gpbandit init``)."""
        return cls._wrap(OptimizerCore.from_config(os.fspath(path)))

    # ------------------------------------------------------------------ your units

    @property
    def space(self):
        """The parameter space (``gpbandit.space.Space``), or None for a finite candidate set."""
        return self._space

    def _user_points(self):
        """Whether points go in and out as lists of values in the user's units."""
        return self._space is not None and not self._space.is_plain

    def _out(self, rows):
        rows = np.asarray(rows)
        return self._space.from_engine(rows) if self._user_points() else rows

    def _to_engine(self, points, release=True):
        """Engine rows for user points; a point ask() returned maps back to its very row (a
        log-uniform axis would otherwise round-trip through log and power with an ulp of error,
        and the told point would be a new point beside the pending one). ``release``: the asks
        are answered (tell), so their rows are no longer remembered."""
        asked = getattr(self, "_asked", {})
        rows = self._space.to_engine(points)
        for i, x in enumerate(points):
            key = _key(x)
            if key is None:
                continue
            row = asked.pop(key, None) if release else asked.get(key)
            if row is not None:
                rows[i] = row
        return rows

    # ------------------------------------------------------------------ ask / tell / predict

    def set_acquisition(self, acquisition, beta=None, xi=0.0, exact_max=4096, features=1024):
        """Replaces the acquisition rule of later asks (the constructor's keywords, the same
        meanings): e.g. ``set_acquisition("ucb", beta=1e-8)`` spends the next asks on the
        posterior mean's best point, refined beyond the candidates on a box (``minimize``'s
        ``exploit_last``). Saved with the state; pending asks stay pending. Raises
        InvalidArgument naming a bad value; nothing changes then."""
        _check_acquisition(acquisition)
        self._core.set_acquisition(str(acquisition), _beta(beta), float(xi), int(exact_max),
                                   int(features))

    def ask(self, q=1):
        """Chooses ``q`` points (a batch by GP-BUCB hallucination when q > 1).

        Returns a ``Suggestion(points, indices)``: q points (a q×d array, or q lists of values
        with integer / categorical / log-uniform dimensions) and q int64 candidate indices (-1 for
        a point off the candidate set, found by the refinement on a box). They stay pending
        (hallucinated in the model) until told.
        """
        points, indices = self._core.ask(q)
        if self._core.fingerprints:  # the chosen fingerprints' packed words
            return Suggestion(np.ascontiguousarray(points).view(np.uint64), indices)
        out = self._out(points)
        if self._user_points():
            if not hasattr(self, "_asked"):
                self._asked = {}
            for x, row in zip(out, np.asarray(points)):
                if _key(x) is not None:
                    self._asked[_key(x)] = row
        return Suggestion(out, indices)

    def tell(self, points_or_indices, y, noise=None):
        """Tells the observed values ``y`` (a number, or one per point).

        ``points_or_indices`` is either candidate indices (an int or an array of integer dtype)
        or points (an m×d float array, one point of d floats, or lists of values in your units):
        any points, asked or not, on the candidate set or off it, in any order and batch size.
        A 1-D integer array means indices; points with integer coordinates go as a 2-D array. A
        value that is NaN or None marks a failed evaluation: it never enters the model and the
        point is never suggested again (``failed``).

        ``noise`` is the known variance of each value's measurement error, in y's units (a
        number for all, or one per value; NaN or None where it is not known), as BoTorch's
        ``train_Yvar``: such an observation enters the model with that variance instead of the
        fitted noise, and fits keep it fixed. Returns self.
        """
        values = np.reshape(np.asarray(y, dtype=object), -1)
        ok = _finite(values)
        values = np.where(ok, values, 0.0).astype(float)
        if noise is not None:
            lam = np.reshape(np.asarray(noise, dtype=object), -1)
            if lam.size == 1 and values.size != 1:
                lam = np.repeat(lam, values.size)
            if lam.size != values.size:
                raise _invalid(f"tell: {lam.size} noise variances for {values.size} values of y")
            try:
                noise = np.array([np.nan if v is None else float(v) for v in lam])[ok]
            except (TypeError, ValueError):
                raise TypeError("noise: expected numbers (or None / NaN where not known)") from None
        if self._user_points() and not isinstance(points_or_indices, (numbers.Integral,)):
            pts = points_or_indices
            if isinstance(pts, dict):  # one point of a parameter space
                pts = [pts]
            elif len(pts) > 0 and not isinstance(pts[0], (list, tuple, np.ndarray, dict)):
                pts = [pts]
            arr = self._to_engine(pts)
        else:
            arr = np.asarray(points_or_indices)
        if arr.dtype.kind in "iu" and arr.ndim <= 1:
            index = arr.reshape(-1)
            if len(index) != len(values):
                raise _invalid(f"tell: {len(index)} indices but {len(values)} values of y")
            self._core.tell_indices(index[ok], values[ok], noise)
            if not ok.all():
                self._core.tell_failed_indices(index[~ok])
        elif arr.dtype.kind in "iuf":
            rows = self._as_rows(arr, "points")
            if len(rows) != len(values):
                raise _invalid(f"tell: {len(rows)} points but {len(values)} values of y")
            self._core.tell_points(rows[ok], values[ok], noise)
            if not ok.all():
                self._core.tell_failed_points(rows[~ok])
        else:
            raise TypeError("points_or_indices: expected candidate indices (integer dtype) or "
                            f"points (float dtype), got {arr.dtype}")
        return self

    def forget(self, points_or_indices=None):
        """Releases outstanding asks that will never be told (a failed or abandoned evaluation):
        every one when ``points_or_indices`` is None, else those of the given candidate indices
        (an int or an integer-dtype array, as ``ask`` returns them) or points (in your units, as
        ``ask`` returns them and ``tell`` takes them: lists of values with integer, categorical
        or log-uniform dimensions, else a float array; matched as ``tell`` matches them). Later
        asks may choose those candidates again. Returns how many asks were released; raises
        InvalidArgument naming an index or point with no outstanding ask (nothing released)."""
        if points_or_indices is None:
            released = self._core.forget_all()
            self._asked = {}
            return released
        if isinstance(points_or_indices, dict) or (
                isinstance(points_or_indices, (list, tuple)) and points_or_indices
                and isinstance(points_or_indices[0], dict)):  # a parameter space's points
            pts = [points_or_indices] if isinstance(points_or_indices, dict) else points_or_indices
            released = self._core.forget_points(self._space.to_engine(pts))
            for x in pts:  # released: a later tell of these points is a new evaluation
                getattr(self, "_asked", {}).pop(_key(x), None)
            return released
        if self._user_points() and not _is_indices(points_or_indices):
            pts = points_or_indices
            if len(pts) > 0 and not isinstance(pts[0], (list, tuple, np.ndarray)):
                pts = [pts]
            rows = self._to_engine(pts, release=False)
            try:
                released = self._core.forget_points(self._as_rows(rows, "points"))
            except InvalidArgument as e:  # name the point in your units, not the engine's
                m = re.match(r"^forget: point (\d+) = \([^)]*\)(.*)$", str(e))
                if m is None:
                    raise
                i = int(m.group(1))
                raise _invalid(f"forget: point {i} = {list(pts[i])!r}{m.group(2)}") from None
            for x in pts:  # released: a later tell of these points is a new evaluation
                if _key(x) is not None:
                    getattr(self, "_asked", {}).pop(_key(x), None)
            return released
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
        try:
            arr = np.asarray(arr, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"{what}: expected numbers (an m×{dim} array of floats), got "
                            f"{type(arr).__name__}") from None
        if arr.ndim == 0 or (arr.ndim == 1 and dim == 1):
            return arr.reshape(-1, 1)
        if arr.ndim == 1:
            if arr.size != dim:
                raise _invalid(f"{what}: expected one point of {dim} values or an m×{dim} "
                               f"array, got {arr.size} values")
            return arr.reshape(1, dim)
        return arr

    def predict(self, X=None):
        """Posterior ``(mean, variance)`` of f at the points ``X`` (any points: an m×d array, one
        point, or lists of values in your units; one point gives arrays of length 1), or at every
        candidate when ``X`` is None. Values are in the units of y; pending asks do not count."""
        if X is None:
            return self._core.predict_candidates()
        if self._user_points():
            X = X if len(X) > 0 and isinstance(X[0], (list, tuple, np.ndarray)) else [X]
            X = self._space.to_engine(X)
        return self._core.predict(self._as_rows(X, "X"))

    def fit_hyperparameters(self):
        """Fits the kernel's lengthscales (ARD), its variance and the noise variance (maximum a
        posteriori by default, see ``fit``; L-BFGS-B with restarts) and rebuilds the model.
        Returns a ``HyperFit``."""
        return self._core.fit_hyperparameters()

    # ------------------------------------------------------------------ what it has seen

    @property
    def X(self):
        """The observed points in tell order: an n×d array, or n lists of values in your units
        (integer, categorical, log-uniform dimensions)."""
        return self._out(self._core.observed_points)

    @property
    def y(self):
        """The observed values (length n), as told, in tell order."""
        return np.asarray(self._core.observed_values, dtype=float)

    @property
    def noise(self):
        """The known noise variance of each observation (length n, NaN where none was told)."""
        return np.asarray(self._core.observed_noise, dtype=float)

    @property
    def failed(self):
        """The points of failed evaluations (told with NaN or None), in the units of ``X``."""
        return self._out(np.asarray(self._core.failed_points).reshape(-1, self._core.domain.dim))

    @property
    def observed_indices(self):
        """Candidate index of each observation (-1 for a point off the candidate set)."""
        return np.asarray(self._core.observed_indices, dtype=np.int64)

    @property
    def pending(self):
        """Candidates asked for and not yet told, in ask order (int64 array; -1 for a point off
        the candidate set)."""
        return np.asarray(self._core.pending, dtype=np.int64)

    @property
    def best(self):
        """The best observation (largest y, or smallest when minimising) as a ``Best``."""
        x, y, index, observation = self._core.best()
        x = self._out(np.asarray(x).reshape(1, -1))[0] if self._user_points() else np.asarray(x)
        return Best(x, y, index, observation)

    @property
    def candidates(self):
        """The N×d candidate points (the engine's coordinates)."""
        return np.asarray(self._core.candidates)

    @property
    def streams(self):
        """Whether the parameter space is streamed: its materialised form (encodings twice and
        33 bytes per combination) exceeds ``memory_budget_bytes`` (default 75 % of the memory
        available), so its encodings are computed chunk by chunk and never held (docs/spaces.md,
        "Streaming"); ``candidates`` then raises and ``acquisition="ts"`` is refused."""
        return self._core.streams

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
        observation, pending asks, random-stream positions, and the parameter space); see
        ``from_state_dict``."""
        state = json.loads(self._core.dumps())
        if self._space is not None:
            state["space"] = space_to_json(self._space)
        return state

    @classmethod
    def from_state_dict(cls, state, backend=None):
        """An optimizer from ``state_dict()``; it continues with the original's choices.
        ``backend`` overrides the saved one."""
        space = space_from_json(state["space"]) if "space" in state else None
        return cls._wrap(OptimizerCore.loads(json.dumps(state), backend), space)

    def save(self, path):
        """Writes the state atomically: JSON (with the parameter space), or .npz when ``path``
        ends in .npz (the engine's state only: load it back in engine coordinates)."""
        path = os.fspath(path)
        if self._space is None or path.endswith(".npz"):
            self._core.save(path)
            return
        folder = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".gpbandit-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as out:
                json.dump(self.state_dict(), out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    @classmethod
    def load(cls, path, backend=None):
        """An optimizer from a file written by ``save`` (or by the CLI's ``gpbandit tell``)."""
        path = os.fspath(path)
        core = OptimizerCore.load(path, backend)
        space = None
        with open(path, "rb") as f:
            head = f.read(2)
        if head != b"PK":
            with open(path, encoding="utf-8") as f:
                state = json.load(f)
            space = space_from_json(state["space"]) if "space" in state else None
        return cls._wrap(core, space)

    def __getstate__(self):
        """Pickling: the state as JSON text, and the parameter space."""
        return {"state": self._core.dumps(), "space": self._space}

    def __setstate__(self, state):
        """Unpickling: replays the state (bit-identical continuation on the same backend)."""
        self._core = OptimizerCore.loads(state["state"], None)
        self._space = state.get("space")
