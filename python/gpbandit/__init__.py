"""gpbandit: Gaussian-process bandits over large finite domains.

Python bindings of the C++ engine (libgpbandit). Arrays are NumPy arrays: float64 inputs
(C-contiguous; Fortran order for matrices whose columns are points) are used without a copy;
candidate indices must have an integer dtype and are range-checked in 64 bits (never wrapped or
truncated). ``Domain.from_rows`` copies the points once into the domain, which owns them;
``Domain.points`` is a read-only view of them (no copy); ``FinitePosterior.mean(run, copy=False)``
returns a read-only view valid until the next update.

Errors raise ``gpbandit.Error`` subclasses: ``InvalidArgument`` (also a ``ValueError``),
``IoError`` (also an ``OSError``), ``NumericalError``, ``CudaError``, ``NoCudaBuildError``,
``RankFailure`` (a rank of a sharded job died or hung: ``failed_rank`` names it); arguments of
the wrong type raise a one-line ``TypeError`` naming the argument.

Under MPI (``Context(comm=MPI.COMM_WORLD)``), once a ``RankFailure`` was raised the process ends
the whole job at exit (``MPI_Abort``) instead of waiting in ``MPI_Finalize`` for the lost rank;
``python3 -m mpi4py script.py`` also aborts on any uncaught exception.
"""

import atexit as _atexit
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
    ModelWarning,
    NoCudaBuildError,
    NoiseSource,
    NumericalError,
    PerformanceWarning,
    Policy,
    PolicySummary,
    PoRelease,
    RankFailure,
    ScaleNoiseFit,
    TanimotoFeatures,
    __version__,
    clip,
    config_kind,
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
from ._gpbandit import _abort_if_rank_failed, _make_policy, _run_command_config  # noqa: E402

# Registered at import, so it runs before mpi4py's MPI_Finalize (a Py_AtExit hook, which runs
# after every atexit function): after a RankFailure that finalize would wait for ever.
_atexit.register(_abort_if_rank_failed)
from . import params, space  # noqa: E402,F401
from .minimize import OptimizeResult, minimize  # noqa: E402,F401
from .optimizer import Best, Optimizer, Suggestion  # noqa: E402,F401
from .plots import plot_convergence  # noqa: E402,F401
from .space import Categorical, Integer, Real, Space  # noqa: E402,F401


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


def _config_text(config):
    """(text, source, base folder) of a config path or dict."""
    if isinstance(config, dict):
        return _json.dumps(config), "<python dict>", _os.getcwd()
    if not isinstance(config, (str, _os.PathLike)):
        raise TypeError("config: expected a path, a dict, an ExperimentConfig or an Experiment, "
                        f"got {type(config).__name__}")
    path = _os.fspath(config)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise IoError(f"cannot read config file '{path}': {why}") from None
    return text, path, _os.path.dirname(path) or "."


def run(config, out_dir="", **options):
    """Runs a config file path or a config dict (the CLI's JSON format), as ``gpbandit run`` does.

    An experiment config of any family (finite, dp-gibo, fed-pne): ``options`` are those of
    ``run_experiment`` (resume, force, progress, plot, backend, runs, seed); returns an
    ExperimentResult; outputs go to ``out_dir`` (default results/<name>).

    A command-objective config (an optimizer config with ``"objective": {"type": "command", ...}``
    and ``T``; ``gpbandit list optimizer``): runs the program on the optimizer's suggestions T
    times through the CLI's own code, writing state.json, run.json, evaluations.csv and
    summary.json to ``out_dir``; ``options``: resume, force, progress, backend, seed, threads.
    Returns the summary (the dict written to summary.json, plus ``"out_dir"``). Ctrl-C stops it
    after the round in progress, which is saved; ``resume=True`` continues.

    An optimizer config without an objective has nothing to run: it raises InvalidArgument saying
    how to drive it (``Optimizer.from_config`` and ask/tell, or ``minimize``).
    """
    if isinstance(config, (ExperimentConfig, Experiment)):
        return run_experiment(config, out_dir, **options)
    text, source, base = _config_text(config)
    kind = config_kind(text)
    if kind == "optimizer":
        raise InvalidArgument(
            f"{source}: an optimizer config (no experiment to run): build it with "
            "gpbandit.Optimizer.from_config(path) and drive it with ask/tell, or minimize()")
    if kind == "command":
        return _run_command(text, source, base, out_dir, **options)
    return run_experiment(parse_experiment(text, source, base), out_dir, **options)


def _run_command(text, source, base, out_dir, *, resume=False, force=False, progress=False,
                 backend=None, seed=None, threads=None, **others):
    """run() of a command-objective config (the CLI's gpb::run_command_config)."""
    for key in others:
        why = " (a command objective has one run)" if key == "runs" else ""
        raise TypeError(f"run: unexpected keyword '{key}' for a command-objective config{why} "
                        "(allowed: resume, force, progress, backend, seed, threads)")
    out, summary = _run_command_config(text, source, base, _os.fspath(out_dir), resume, force,
                                       progress, backend, seed, threads)
    result = _json.loads(summary)
    result["out_dir"] = out
    return result


__all__ = [name for name in dir() if not name.startswith("_")]
