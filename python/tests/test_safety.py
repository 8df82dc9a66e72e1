"""Module safety: indices are never wrapped or truncated, wrong arguments give one-line errors,
the CUDA request fails clearly, and the loaded libraries cannot pull a library from the current
directory."""
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

import gpbandit as g


@pytest.fixture
def post(ctx):
    return g.FinitePosterior(ctx, g.Kernel.se(0.3), g.Domain.grid([0.0], [1.0], [10]))


@pytest.mark.parametrize("bad", [np.int64(2**40), 2**40, 2**70, -1, 10, np.uint64(2**64 - 1),
                                 np.array([10], np.int16)])
def test_out_of_range_index_names_the_index_and_the_bound(post, bad):
    with pytest.raises(g.InvalidArgument, match=r"^index = -?\d+ is out of range \[0, 10\)$"):
        post.observe(bad, 1.0)
    assert post.rows == 0  # nothing observed


@pytest.mark.parametrize("bad", [11.7, 3.0, True, np.bool_(True), np.array([3.0]), "3",
                                 np.array([1 + 2j]), None])
def test_non_integer_index_is_a_type_error(post, bad):
    with pytest.raises(TypeError, match=r"^index: expected integer indices"):
        post.observe(bad, 1.0)
    with pytest.raises(TypeError, match=r"^index: expected integer indices"):
        post.add_pending(bad)
    assert post.rows == 0


@pytest.mark.parametrize("good", [3, np.int64(3), np.uint8(3), np.array([3], np.int16), [3],
                                  np.array(3, np.int32)])
def test_every_integer_dtype_is_accepted(post, good):
    post.observe(good, 0.5)
    np.testing.assert_array_equal(post.history(), [3])


def test_multi_run_index_names_the_element(ctx):
    p = g.FinitePosterior(ctx, g.Kernel.se(0.3), g.Domain.grid([0.0], [1.0], [10]), runs=3)
    with pytest.raises(g.InvalidArgument, match=r"^index\[1\] = 1099511627776 is out of range"):
        p.observe(np.array([1, 2**40, 2], np.int64), np.zeros(3))
    with pytest.raises(g.InvalidArgument, match=r"^index: expected 3 elements, got 2$"):
        p.observe([1, 2], np.zeros(3))


@pytest.mark.parametrize("bad", [True, "0.5", 1 + 2j, np.array(["a"]), None])
def test_rewards_must_be_real_numbers(post, bad):
    with pytest.raises(TypeError, match=r"^y: expected real numbers"):
        post.observe(3, bad)


def test_policy_observe_checks_chosen(ctx):
    d = g.Domain.grid([0.0], [1.0], [8])
    pol = g.make_policy("random", context=ctx, domain=d, kernel=g.Kernel.se(0.2), runs=2)
    c = pol.select(1, 0)
    with pytest.raises(TypeError, match=r"^chosen: expected integer indices"):
        pol.observe(c.astype(float), np.zeros((2, 1)))
    with pytest.raises(g.InvalidArgument, match=r"^chosen\[1\] = 4294967296 is out of range"):
        pol.observe(np.array([[0], [2**32]]), np.zeros((2, 1)))
    pol.observe(c.astype(np.int64), np.zeros((2, 1)))


def test_excluded_mask_is_bool_or_integer(post):
    mask = np.zeros(10, np.int64)
    mask[:9] = 256  # nonzero: excluded (a cast to uint8 would wrap 256 to 0)
    (i,), _ = post.ucb_argmax([1.0], excluded=mask)
    assert i == 9
    with pytest.raises(TypeError, match=r"^excluded \(R×N\): expected a mask"):
        post.ucb_argmax([1.0], excluded=np.zeros(10))


# ---------------------------------------------------------------- one-line argument errors

def test_wrong_argument_messages_name_the_argument(ctx, post):
    cases = [
        (lambda: post.mean(1.5), r"^FinitePosterior\.mean\(\): argument 'run': expected an "
                                 r"integer, got float 1\.5$"),
        (lambda: g.Context(backnd="cpu"), r"^Context\(\): unexpected keyword argument 'backnd' "
                                          r"\(accepted: backend, memory_budget_bytes"),
        (lambda: g.Domain.grid([0], [1]), r"^Domain\.grid\(\): missing required argument "
                                          r"'counts'$"),
        (lambda: g.Domain.grid([0], [1], [2.5]), r"^Domain\.grid\(\): argument 'counts': "
                                                 r"expected a sequence of integers"),
        (lambda: g.Kernel.se("wide"), r"^lengthscale: expected real numbers \(a float or an "
                                      r"array of float or integer dtype\), got a string$"),
        (lambda: g.Kernel.se(0.2, "big"), r"^Kernel\.se\(\): argument 'variance': expected a "
                                          r"number, got str 'big'$"),
        (lambda: g.FinitePosterior(ctx, "se", g.Domain.indices(3)),
         r"^FinitePosterior\(\): argument 'kernel': expected a gpbandit\.Kernel, got str"),
        (lambda: g.kernel_matrix(ctx, g.Kernel.se(1.0), "A", "B"),
         r"^kernel_matrix\(\): argument 'A': expected an array of numbers"),
        (lambda: g.clip(1.0, 2.0, 3.0), r"^clip\(\) takes at most 2 arguments \(3 given\)$"),
        (lambda: post.mean(2**40), r"^FinitePosterior\.mean\(\): argument 'run': 1099511627776 "
                                   r"is out of range for its C\+\+ integer type$"),
    ]
    for call, pattern in cases:
        with pytest.raises(TypeError) as info:
            call()
        assert re.search(pattern, str(info.value)), str(info.value)


def instances(ctx, tmp_path):
    """One instance of every class of the module (the walk below fails on a class missing here)."""
    d = g.Domain.grid([0.0], [1.0], [5])
    cfg = g.parse_config('{"domain": {"type": "grid", "lower": [0], "upper": [1], "counts": [5]},'
                         '"objective": {"type": "rkhs"}, "policies": [{"type": "random"}],'
                         '"runs": 1, "T": 2}')
    res = g.run_experiment(cfg, str(tmp_path / "exp"))
    experiment = g.parse_experiment('{"domain": {"type": "grid", "lower": [0], "upper": [1], '
                                    '"counts": [5]}, "objective": {"type": "rkhs"}, '
                                    '"policies": [{"type": "random"}], "runs": 1, "T": 2}')
    entry = g.registry()[0]
    opt = g.Optimizer({"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [4, 4]})
    suggestion = opt.ask(2)
    opt.tell(suggestion.points, [0.5, 1.5])
    opt.tell(np.random.default_rng(0).uniform(size=(3, 2)), [0.1, 0.2, 0.3])
    result = g.minimize(lambda x: float(x.sum()), [(0.0, 1.0)], n_calls=2, n_candidates=8)
    return {
        "Optimizer": opt, "Suggestion": suggestion, "Best": opt.best,
        "HyperFit": opt.fit_hyperparameters(), "DomainSpec": opt.domain,
        "OptimizeResult": result, "Space": result.space, "Real": g.Real(0.0, 1.0),
        "Integer": g.Integer(1, 3), "Categorical": g.Categorical(["a", "b"]),
        "Context": ctx, "Domain": d, "Kernel": g.Kernel.se(0.3),
        "FinitePosterior": g.FinitePosterior(ctx, g.Kernel.se(0.3), d),
        "Policy": g.make_policy("random", context=ctx, domain=d, kernel=g.Kernel.se(0.3)),
        "NoiseSource": g.seeded_source(1), "CtlMechanism": g.CtlMechanism(1.0, 1.0, 1.0),
        "PoRelease": g.po_curate_seeded(ctx, np.random.default_rng(0).normal(size=(9, 3)), 1.0,
                                        1e-5, r=1),
        "ExperimentConfig": cfg, "Experiment": experiment, "PolicySpec": cfg.policies[0], "ExperimentResult": res,
        "PolicySummary": res.policies[0], "RegistryEntry": entry, "ParamDoc": entry.params[0],
        "TanimotoFeatures": g.TanimotoFeatures(64, 8, 1),
        "ScaleNoiseFit": g.fit_scale_and_noise(np.eye(3) + 0.5, np.array([0.0, 1.0, 3.0])),
    }


def public_classes():
    return {n: c for n, c in vars(g).items()
            if isinstance(c, type) and not n.startswith("_") and not issubclass(c, BaseException)}


def test_every_callable_gives_one_line_type_errors(ctx, tmp_path):
    objs = instances(ctx, tmp_path)
    missing = set(public_classes()) - set(objs)
    assert not missing, f"add an instance of {missing} to instances()"
    calls = []
    for name in g.__all__:
        obj = getattr(g, name)
        if callable(obj) and not isinstance(obj, type) and name not in ("make_policy", "run"):
            calls.append((name, obj))
    for cname, cls in public_classes().items():
        for name, attr in vars(cls).items():
            if name.startswith("__") and name not in ("__init__", "__call__"):
                continue
            if isinstance(attr, property) or not callable(getattr(cls, name)):
                continue
            if isinstance(attr, staticmethod) or name == "__init__":
                fn = getattr(cls, name) if name != "__init__" else cls
            else:
                fn = getattr(objs[cname], name)
            calls.append((f"{cname}.{name}", fn))
    assert len(calls) > 40
    for label, fn in calls:
        for args, kwargs in (((), {"no_such_argument": 1}), ((object(),) * 9, {})):
            try:
                fn(*args, **kwargs)
            except TypeError as e:
                text = str(e)
                assert "\n" not in text and "Invoked with" not in text, f"{label}: {text}"
            except g.Error:
                pass  # accepted the arguments' types and refused their values
            else:
                pytest.fail(f"{label}{args}{kwargs} did not raise")


# ---------------------------------------------------------------- docstrings and repr

SIGNATURE_LINE = re.compile(r"^(\d+\. )?[\w.]+\(.*\) -> \S.*$")


def doc_text(obj):
    """The docstring without pybind11's signature lines."""
    lines = (obj.__doc__ or "").splitlines()
    return "\n".join(l for l in lines
                     if not SIGNATURE_LINE.match(l.strip()) and l.strip() != "Overloaded function."
                     ).strip()


def test_every_public_name_has_a_docstring_and_every_class_a_repr(ctx, tmp_path):
    undocumented = []
    for name in g.__all__:
        obj = getattr(g, name)
        if isinstance(obj, (str, bool)):
            continue
        if not doc_text(obj):
            undocumented.append(name)
        if isinstance(obj, type) and not issubclass(obj, BaseException):
            assert obj.__repr__ is not object.__repr__, f"{name} has no __repr__"
            for member, attr in vars(obj).items():
                if member.startswith("_") and member not in ("__init__", "__call__", "__len__"):
                    continue
                if not doc_text(attr if isinstance(attr, property) else getattr(obj, member)):
                    undocumented.append(f"{name}.{member}")
    assert not undocumented, f"no docstring: {undocumented}"
    for cname, obj in instances(ctx, tmp_path).items():
        text = repr(obj)
        assert text.startswith(f"<gpbandit.{cname}") and "\n" not in text, text


# ---------------------------------------------------------------- copies, CUDA, RUNPATH

def test_from_rows_copies_once_into_the_domain():
    # docs/python.md: the domain owns its points (the engine caches kernel rows computed from them), so
    # from_rows copies; the copy is then exposed without further copies.
    rows = np.arange(12.0).reshape(6, 2)
    d = g.Domain.from_rows(rows)
    assert not np.shares_memory(d.points, rows)
    rows[0, 0] = 99.0
    assert d.points[0, 0] == 0.0
    np.testing.assert_array_equal(d.points, np.arange(12.0).reshape(6, 2).T)
    assert np.shares_memory(d.points, d.points) and not d.points.flags.writeable
    ints = g.Domain.from_rows(np.arange(6).reshape(3, 2))
    np.testing.assert_array_equal(ints.points, [[0, 2, 4], [1, 3, 5]])
    with pytest.raises(g.InvalidArgument, match=r"rows\[:, None\]"):
        g.Domain.from_rows(np.arange(3.0))
    with pytest.raises(TypeError, match="^rows: expected real numbers"):
        g.Domain.from_rows(np.array([[True, False]]))


def test_cuda_without_device_says_what_is_missing():
    if not g.HAS_CUDA or g.Context.cuda_device_count() > 0:
        pytest.skip("needs a CUDA build on a machine without a usable GPU")
    with pytest.raises(g.CudaError) as info:
        g.Context("cuda")
    text = str(info.value)
    assert "no CUDA device is available" in text and "use backend cpu" in text
    assert "insufficient" not in text and "\n" not in text


def loaded_gpbandit_libraries():
    ext = g._gpbandit.__file__
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "libgpbandit.so" in line}
    return [ext] + sorted(libs)


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs readelf (binutils)")
def test_loaded_libraries_have_no_empty_or_relative_runpath():
    files = loaded_gpbandit_libraries()
    assert len(files) == 2, files
    for path in files:
        out = subprocess.run(["readelf", "-d", os.path.realpath(path)], capture_output=True,
                             text=True, check=True).stdout
        for entry in re.findall(r"Library (?:rpath|runpath): \[([^\]]*)\]", out):
            for p in entry.split(":"):
                assert p.startswith("/") or p.startswith("$ORIGIN"), f"{path}: [{entry}]"


# ---------------------------------------------------------------- asks, the box, warnings (#29)

def grid_optimizer(**options):
    return g.Optimizer({"type": "grid", "lower": [0, 0], "upper": [2, 3], "counts": [30, 30]},
                       backend="cpu", **options)


def test_forget_releases_asks_by_index_point_or_all():
    opt = g.Optimizer({"type": "grid", "lower": [0], "upper": [1], "counts": [4]}, backend="cpu")
    points, index = opt.ask(4)
    with pytest.raises(g.InvalidArgument, match="only 0 of the 4 candidates"):
        opt.ask()
    assert opt.forget(index[:1]) == 1
    assert opt.forget(np.round(points[1:2], 6)) == 1  # matched within the tolerance
    with pytest.raises(g.InvalidArgument, match=r"^forget: index\[0\] = \d has no outstanding ask"):
        opt.forget(index[:1])
    assert len(opt.pending) == 2 and opt.forget() == 2 and len(opt.pending) == 0
    assert len(opt.ask(4).indices) == 4


def test_points_told_with_six_digits_answer_their_asks():
    opt = grid_optimizer()
    points, index = opt.ask(3)
    rounded = np.array([[float(f"{v:.6g}") for v in row] for row in points])
    assert not np.array_equal(rounded, points)
    opt.tell(rounded, [1.0, 2.0, 3.0])
    assert len(opt.pending) == 0
    np.testing.assert_array_equal(np.sort(opt.observed_indices), np.sort(index))


def test_points_outside_the_box_are_refused_unless_allowed():
    opt = grid_optimizer()
    with pytest.raises(g.InvalidArgument, match=r"point 1 = \(150, 2\) lies outside the "
                                                r"candidates' bounding box: coordinate 0 = 150"):
        opt.tell(np.array([[1.0, 2.0], [150.0, 2.0]]), [1.0, 2.0])
    assert len(opt) == 0  # nothing recorded
    loose = grid_optimizer(allow_outside=True)
    loose.tell(np.array([[150.0, 2.0]]), [1.0])
    assert loose.observed_indices.tolist() == [-1]


def test_a_repeated_suggestion_warns_and_warnings_can_be_errors():
    opt = g.Optimizer({"type": "grid", "lower": [0], "upper": [1], "counts": [3]},
                      acquisition="ucb", beta=1e-12, backend="cpu", fit_every=0,
                      fit={"normalize": False})
    opt.tell([1], [5.0])  # the mean's maximum: β ≈ 0 asks it again
    with pytest.warns(g.ModelWarning, match=r"ask: suggests candidate 1 = \(0.5\), already "
                                            r"observed 1 time"):
        points, index = opt.ask()
    assert index.tolist() == [1]
    opt.forget()
    with warnings.catch_warnings():
        warnings.simplefilter("error", g.ModelWarning)
        with pytest.raises(g.ModelWarning):
            opt.ask()
    assert opt.pending.tolist() == [1]  # the ask was made; the warning came after it


def _repeating_optimizer():
    opt = g.Optimizer({"type": "grid", "lower": [0], "upper": [1], "counts": [3]},
                      acquisition="ucb", beta=1e-12, backend="cpu", fit_every=0,
                      fit={"normalize": False})
    opt.tell([1], [5.0])  # every ask now repeats candidate 1 and warns
    return opt


def test_warnings_name_the_callers_line_not_gpbandits_own_files():
    opt = _repeating_optimizer()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        opt.ask(); line_ask = sys._getframe().f_lineno  # noqa: E702 - the line the warning names
        g.Optimizer(np.linspace(0, 1, 2000)[:, None], backend="cpu", memory_budget_bytes=1000)
        line_init = sys._getframe().f_lineno - 1
    assert [(x.category, x.filename, x.lineno) for x in w] == [
        (g.ModelWarning, __file__, line_ask), (g.PerformanceWarning, __file__, line_init)]


def test_a_warning_surfaces_only_on_the_call_that_raised_it():
    """Thread A's asks on a shared Optimizer warn (a repeated candidate), thread B's predicts on
    it do not: every warning must name A's line, none B's, and A gets one per ask. (Before the
    fix, a call flushed every queued warning of the object, so B's predict, landing between A's
    unlock and A's flush, took A's warning: with that flush restored this test failed 2 of 5 runs
    and 2 of 3 with 300 rounds; it cannot fail spuriously, the fixed code has no such window.)"""
    opt = _repeating_optimizer()
    rounds, barrier, lines = 1000, threading.Barrier(2), {}

    def asks():
        barrier.wait()
        for _ in range(rounds):
            opt.ask(); lines["a"] = sys._getframe().f_lineno  # noqa: E702
            opt.forget()

    def predicts():
        barrier.wait()
        for _ in range(rounds):
            opt.predict(); lines["b"] = sys._getframe().f_lineno  # noqa: E702

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # interleave the two threads as finely as possible
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            threads = [threading.Thread(target=asks), threading.Thread(target=predicts)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(interval)
    where = [(x.filename, x.lineno) for x in w]
    assert where.count((__file__, lines["a"])) == rounds
    assert len(where) == rounds, sorted(set(where))


def test_a_posterior_in_recompute_mode_warns(ctx):
    d = g.Domain.grid([0.0], [1.0], [2000])
    small = g.Context("cpu", memory_budget_bytes=1000, threads=1)
    with pytest.warns(g.PerformanceWarning, match=r"recompute mode"):
        post = g.FinitePosterior(small, g.Kernel.se(0.3), d, capacity=10)
    assert post.recompute_mode
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.FinitePosterior(small, g.Kernel.se(0.3), d, capacity=10, mode="recompute")  # asked for
        g.FinitePosterior(ctx, g.Kernel.se(0.3), d, capacity=10)  # fits: no warning
    with pytest.warns(g.PerformanceWarning, match=r"optimizer: the posterior over 2000 points"):
        g.Optimizer(np.linspace(0, 1, 2000)[:, None], backend="cpu", memory_budget_bytes=1000)


def test_the_automatic_cpu_budget_follows_the_available_memory():
    with open("/proc/meminfo") as f:
        avail = next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable"))
    budget = g.Context("cpu").memory_budget_bytes
    # 75 % of what was available when the Context was built (which moves a little meanwhile).
    assert 0.5 * avail < budget < 0.9 * avail, (budget, avail)


def test_precomputed_kernels_must_be_positive_semidefinite():
    with pytest.raises(g.InvalidArgument, match=r"^matrix is not positive semi-definite: "
                                                r"smallest eigenvalue -1 "):
        g.Kernel.precomputed(np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert g.Kernel.precomputed(np.array([[1.0, 2.0], [2.0, 1.0]]), check_psd=False).type
    assert g.Kernel.precomputed(np.array([[2.0, 0.5], [0.5, 1.0]])).type == "precomputed"


def test_run_says_what_to_do_with_optimizer_configs():
    opt = {"domain": {"type": "grid", "lower": [0], "upper": [1], "counts": [5]}}
    with pytest.raises(g.InvalidArgument, match=r"an optimizer config .*Optimizer\.from_config"):
        g.run(opt)
    cmd = dict(opt, T=3, objective={"type": "command", "cmd": ["true"]})
    assert g.config_kind(json.dumps(cmd)) == "command"
    assert g.config_kind(json.dumps(opt)) == "optimizer"


# A command objective: (x0 - 0.3)^2 + (x1 - 0.7)^2 for each CSV row on stdin (as the CLI tests).
_AWK = "awk -F, 'NR > 1 { printf \"%.17g\\n\", ($1 - 0.3)^2 + ($2 - 0.7)^2 }'"


def _command_config(script, T=5, q=2):
    return {"name": "tune", "T": T, "q": q, "goal": "minimize", "seed": 2,
            "domain": {"type": "sobol", "lower": [0, 0], "upper": [1, 1], "count": 256, "seed": 1},
            "kernel": {"type": "matern52", "lengthscale": 0.25}, "acquisition": {"type": "ei"},
            "objective": {"type": "command", "cmd": ["sh", "-c", script], "timeout_s": 30}}


def _without_timings(summary):
    return {k: v for k, v in summary.items() if k not in ("timings", "out_dir")}


def test_run_runs_a_command_objective_config_as_the_cli_does(tmp_path):
    path = tmp_path / "tune.json"
    path.write_text(json.dumps(_command_config(_AWK)))
    s = g.run(path, tmp_path / "py")
    assert s["out_dir"] == str(tmp_path / "py") and s["evaluations"] == 5
    assert s["experiment"] == "command" and s["goal"] == "minimize"
    evals = (tmp_path / "py" / "evaluations.csv").read_text()
    assert evals.startswith("evaluation,round,index,x0,x1,y\n") and evals.count("\n") == 6
    written = json.loads((tmp_path / "py" / "summary.json").read_text())
    assert _without_timings(written) == _without_timings(s)
    x = s["best"]["x"]
    assert s["best"]["y"] == pytest.approx((x[0] - 0.3) ** 2 + (x[1] - 0.7) ** 2, rel=1e-12)
    # The CLI on the same config: the same evaluations and the same summary (but for timings).
    cli = os.environ.get("GPB_CLI")
    if cli:
        r = subprocess.run([cli, "run", str(path), "--out", str(tmp_path / "cli"), "--quiet"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert (tmp_path / "cli" / "evaluations.csv").read_text() == evals
        cli_summary = json.loads((tmp_path / "cli" / "summary.json").read_text())
        assert _without_timings(cli_summary) == _without_timings(s)
    # Refusals as in the CLI: an existing run, resume with force, runs; resume of a finished run.
    with pytest.raises(g.InvalidArgument, match=r"state\.json exists: use --resume"):
        g.run(path, tmp_path / "py")
    with pytest.raises(g.InvalidArgument, match=r"^resume and force exclude each other"):
        g.run(path, tmp_path / "py", resume=True, force=True)
    with pytest.raises(TypeError, match=r"'runs' .*one run"):
        g.run(path, tmp_path / "py", runs=3)
    assert g.run(path, tmp_path / "py", resume=True)["evaluations"] == 5
    assert (tmp_path / "py" / "evaluations.csv").read_text() == evals


def test_run_of_a_command_config_dict_resumes_after_a_failing_round(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a dict's relative paths (and results/<name>) start here
    (tmp_path / "f.sh").write_text(_AWK + "\n")
    config = _command_config("n=$(cat counter 2>/dev/null || echo 0); echo $((n + 1)) > counter; "
                             "if [ $n -eq 2 ]; then exit 3; fi; sh f.sh", T=6, q=2)
    with pytest.raises(g.Error, match=r"round 3.*exit.*3.*the 4 earlier evaluations are saved in "
                                      r"results/tune/state\.json"):
        g.run(config)
    assert (tmp_path / "counter").read_text() == "3\n"  # ran in the dict's folder (the cwd)
    s = g.run(config, resume=True)
    assert s["evaluations"] == 6 and s["out_dir"] == "results/tune"
    assert (tmp_path / "results" / "tune" / "evaluations.csv").read_text().count("\n") == 7
