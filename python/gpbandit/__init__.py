"""gpbandit: Gaussian-process bandits over large finite domains.

Python bindings of the C++ engine (libgpbandit). Arrays are NumPy arrays: float64 inputs
(C-contiguous; Fortran order for matrices whose columns are points) are used without a copy;
candidate indices must have an integer dtype and are range-checked in 64 bits (never wrapped or
truncated). ``Domain.from_rows`` copies the points once into the domain, which owns them;
``Domain.points`` is a read-only view of them (no copy); ``FinitePosterior.mean(run, copy=False)``
returns a read-only view valid until the next update.

Errors raise ``gpbandit.Error`` subclasses: ``InvalidArgument`` (also a ``ValueError``),
``IoError`` (also an ``OSError``), ``NumericalError``, ``CudaError``, ``NoCudaBuildError``;
arguments of the wrong type raise a one-line ``TypeError`` naming the argument.
"""

import json as _json
import os as _os

# OpenMP threads waiting for work sleep instead of spinning, as in the gpbandit CLI, unless the
# user chose: libgomp reads the variable once, when the extension below loads it.
_os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from . import _gpbandit, _strict  # noqa: E402

# One-line TypeErrors instead of pybind11's signature listings (see _strict.py).
_strict.install(_gpbandit)

from ._gpbandit import (  # noqa: E402,F401
    HAS_CUDA,
    Context,
    CtlMechanism,
    CudaError,
    Domain,
    DomainSpec,
    Error,
    Experiment,
    ExperimentConfig,
    ExperimentResult,
    FinitePosterior,
    HyperFit,
    InvalidArgument,
    IoError,
    Kernel,
    NoCudaBuildError,
    NoiseSource,
    NumericalError,
    Policy,
    PolicySummary,
    PoRelease,
    ScaleNoiseFit,
    TanimotoFeatures,
    __version__,
    clip,
    fingerprint_kernel_matrix,
    fit_scale_and_noise,
    kernel_matrix,
    laplace_inverse_cdf,
    laplace_snapping,
    load_config,
    load_experiment,
    parse_config,
    parse_experiment,
    po_curate,
    po_curate_seeded,
    po_max_r,
    po_omega,
    registry,
    run_experiment,
    secure_source,
    seeded_source,
)
from ._gpbandit import _make_policy  # noqa: E402
from .optimizer import Best, OptimizeResult, Optimizer, Suggestion, minimize  # noqa: E402,F401


def _registry_entry(kind, name):
    for entry in registry():
        if entry.kind == kind and entry.name == name:
            return entry
    names = sorted(e.name for e in registry() if e.kind == kind)
    raise InvalidArgument(f"type: unknown {kind} '{name}' (one of: {', '.join(names)})")


def make_policy(type, *, context, domain, kernel, runs=1, horizon=100, seed=0,
                noise_variance=1e-2, random_ties=True, f_sup=None, noise_bound=float("inf"),
                noise_moment=0.0, reward_moment=0.0, label="", **params):
    """Builds a registered policy (``gpbandit list policies`` / ``registry()``) by name.

    ``params`` are the policy's config parameters (e.g. ``beta={"type": "constant", "value": 4}``
    for ``gp_ucb``); an unknown name raises InvalidArgument naming it. ``f_sup`` (max |f| per run),
    ``noise_bound``, ``noise_moment`` and ``reward_moment`` are the instance constants that the
    heavy-tailed and LDP policies use when their parameters do not set them. The policy keeps
    ``context`` and ``domain`` alive.
    """
    entry = _registry_entry("policy", type)
    allowed = {p.name for p in entry.params if p.name != "label"}
    for key in params:
        if key not in allowed:
            raise InvalidArgument(
                f"{type}.{key}: unknown parameter (allowed: {', '.join(sorted(allowed))})")
    # Fill the registry's defaults as the config validator does; flag missing required ones.
    params = dict(params)
    for p in entry.params:
        if p.name in params or p.name == "label":
            continue
        if p.default == "(required)":
            raise InvalidArgument(f"{type}.{p.name}: required")
        try:
            params[p.name] = _json.loads(p.default)
        except ValueError:
            pass  # a default computed from the instance (e.g. "max|f| per run")
    return _make_policy(type, _json.dumps(params), context, domain, kernel, runs, horizon, seed,
                        noise_variance, random_ties, list(f_sup or []), noise_bound, noise_moment,
                        reward_moment, label)


def run(config, out_dir="", **options):
    """Runs an experiment from a config file path or a config dict (the CLI's JSON format).

    Any family (finite, dp-gibo, fed-pne). ``options`` are those of ``run_experiment`` (resume,
    force, progress, plot, backend, runs, seed). Returns an ExperimentResult; outputs go to
    ``out_dir`` (default results/<name>).
    """
    if isinstance(config, dict):
        cfg = parse_experiment(_json.dumps(config), "<python dict>", _os.getcwd())
    elif isinstance(config, (ExperimentConfig, Experiment)):
        cfg = config
    else:
        cfg = load_experiment(_os.fspath(config))
    return run_experiment(cfg, out_dir, **options)


__all__ = [name for name in dir() if not name.startswith("_")]
