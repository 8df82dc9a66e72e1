"""gpbandit.minimize as a scikit-optimize user meets it: dimensions (lists, integer bounds,
categories, skopt-style objects), skopt's keywords and result fields, callbacks, x0 in n_calls,
failed evaluations, parallel batches, time budgets, progress lines, refinement beyond the
candidates, and the Branin acceptance check."""
import math
import threading
import time

import numpy as np
import pytest

import gpbandit as g
from gpbandit.space import Categorical, Integer, Real


def branin(x):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x[1] - b * x[0] ** 2 + c * x[0] - 6) ** 2 + 10 * (1 - t) * math.cos(x[0]) + 10


BRANIN_MIN = 0.397887357729738
BOUNDS = [(-5.0, 10.0), (0.0, 15.0)]


def test_bounds_as_lists_and_skopt_result_fields():
    res = g.minimize(branin, [[-5.0, 10.0], [0.0, 15.0]], n_calls=12, random_state=3)
    for field in ("x", "fun", "x_iters", "func_vals", "space", "models", "specs", "random_state"):
        assert field in res, field
    assert isinstance(res.x, list) and len(res.x) == 2
    assert isinstance(res.x_iters, list) and len(res.x_iters) == 12
    assert isinstance(res.func_vals, np.ndarray) and res.func_vals.shape == (12,)
    assert res.fun == min(res.func_vals) and res.random_state == 3
    assert isinstance(res.space, g.Space) and res.space.n_dims == 2
    assert res.models[-1] is res.optimizer


def test_integer_bounds_become_integer_dimensions():
    seen = []

    def f(x):
        seen.append(list(x))
        return (x[0] - 7) ** 2 + (x[1] - 0.25) ** 2

    res = g.minimize(f, [(1, 10), (0.0, 1.0)], n_calls=18, random_state=0)
    assert all(isinstance(x[0], int) and 1 <= x[0] <= 10 for x in seen)
    assert all(isinstance(x[1], float) for x in seen)
    assert res.x[0] == 7 and isinstance(res.x[0], int)


class SkoptLikeReal:  # the duck type of skopt.space.Real (its class name is what counts)
    def __init__(self, low, high, prior="uniform"):
        self.low, self.high, self.prior, self.name = low, high, prior, None


SkoptLikeReal.__name__ = "Real"


def test_mixed_space_with_categories_log_scale_and_skopt_objects():
    seen = []

    def f(x):
        seen.append(list(x))
        lr, layers, act, width = x
        return ((math.log10(lr) + 2) ** 2 + (layers - 3) ** 2 + (0 if act == "relu" else 1)
                + (width - 0.5) ** 2)

    dims = [Real(1e-5, 1e-1, prior="log-uniform"), Integer(1, 6), Categorical(["tanh", "relu", "elu"]),
            SkoptLikeReal(0.0, 1.0)]
    res = g.minimize(f, dims, n_calls=30, random_state=1)
    for lr, layers, act, width in seen:
        assert 1e-5 <= lr <= 1e-1 and isinstance(layers, int) and act in ("tanh", "relu", "elu")
        assert 0.0 <= width <= 1.0
    assert res.x[2] == "relu" and res.x[1] == 3
    assert res.fun < 0.3
    opt = res.optimizer
    assert opt.X == res.x_iters and opt.best.x == res.x  # your units in and out
    again = g.Optimizer.from_state_dict(opt.state_dict())
    assert again.X == opt.X and again.space.n_dims == 4


def test_keywords_are_checked_and_named_by_minimize():
    with pytest.raises(TypeError, match=r"^minimize\(\) got an unexpected keyword argument 'foo'"):
        g.minimize(branin, BOUNDS, n_calls=5, foo=1)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(g.InvalidArgument, match="minimize: n_calls"):
            g.minimize(branin, BOUNDS, n_calls=bad)
    with pytest.raises(g.InvalidArgument, match="minimize: acq_func"):
        g.minimize(branin, BOUNDS, n_calls=5, acq_func="EIps")
    with pytest.raises(g.InvalidArgument, match="minimize: initial_point_generator"):
        g.minimize(branin, BOUNDS, n_calls=5, initial_point_generator="lhs")
    with pytest.raises(g.InvalidArgument, match="minimize: n_calls = 2 cannot cover"):
        g.minimize(branin, BOUNDS, n_calls=2, x0=[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    for acq in ("EI", "ei", "LCB", "PI", "gp_hedge", "LogEI"):
        assert g.minimize(branin, BOUNDS, n_calls=6, acq_func=acq, n_initial_points=3).nfev == 6


def test_x0_counts_in_n_calls_and_shrinks_the_initial_design():
    calls = []
    res = g.minimize(lambda x: calls.append(1) or branin(x), BOUNDS, n_calls=8,
                     x0=[[0.0, 5.0], [3.0, 3.0]], n_initial_points=3, random_state=2)
    assert len(calls) == 8 and res.nfev == 8
    assert res.x_iters[:2] == [[0.0, 5.0], [3.0, 3.0]]


def test_callbacks_as_a_list_and_early_stop():
    seen = []
    res = g.minimize(branin, BOUNDS, n_calls=10, callback=[lambda r: seen.append(r.nfev),
                                                           lambda r: r.nfev >= 4])
    assert res.nfev == 4 and seen == [1, 2, 3, 4]
    with pytest.raises(TypeError, match="minimize: callback"):
        g.minimize(branin, BOUNDS, n_calls=3, callback=[1])


def test_random_state_varies_the_candidate_set_and_repeats_a_run():
    first = [g.minimize(branin, BOUNDS, n_calls=1, random_state=s).x_iters[0] for s in (0, 7)]
    assert first[0] != first[1]
    a = g.minimize(branin, BOUNDS, n_calls=9, random_state=np.random.RandomState(4))
    b = g.minimize(branin, BOUNDS, n_calls=9, random_state=np.random.RandomState(4))
    assert a.x_iters == b.x_iters


def test_objective_may_return_a_one_element_array_and_nan_is_a_failed_evaluation():
    asked = []

    def f(x):
        asked.append(tuple(x))
        if len(asked) % 3 == 0:
            return float("nan")  # every third evaluation "crashes"
        return np.array([branin(x)])

    res = g.minimize(f, BOUNDS, n_calls=15, random_state=5)
    assert res.nfev == 15 and np.isnan(res.func_vals).sum() == 5
    assert len(res.failed) == 5 and len(res.optimizer) == 10
    assert len(set(asked)) == 15  # a failed point is never asked again
    assert np.isfinite(res.fun)
    with pytest.raises(g.InvalidArgument, match="returned 2 values"):
        g.minimize(lambda x: np.array([1.0, 2.0]), BOUNDS, n_calls=2)


def test_verbose_prints_one_line_per_call(capsys):
    g.minimize(branin, BOUNDS, n_calls=4, verbose=True)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 4 and lines[-1].startswith("gpbandit.minimize: call 4/4: f = ")
    assert "best" in lines[-1]


def test_n_jobs_evaluates_batches_in_parallel():
    active, peak, lock = [0], [0], threading.Lock()

    def slow(x):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return branin(x)

    res = g.minimize(slow, BOUNDS, n_calls=12, n_jobs=3, random_state=0)
    assert res.nfev == 12 and peak[0] >= 2
    assert len({tuple(x) for x in res.x_iters}) == 12


def test_max_time_stops_starting_evaluations():
    res = g.minimize(lambda x: time.sleep(0.2) or branin(x), BOUNDS, n_calls=50, max_time=0.5)
    assert 1 <= res.nfev < 10


def test_refinement_leaves_the_candidates_on_a_box_not_on_a_finite_set():
    res = g.minimize(branin, BOUNDS, n_calls=20, n_points=256, random_state=0)
    cand = {tuple(c) for c in res.optimizer.candidates}
    off = [x for x in res.x_iters if tuple(x) not in cand]
    assert len(off) >= 8  # after the initial design, refined asks leave the 256 candidates
    grid = {"type": "grid", "lower": [-5, 0], "upper": [10, 15], "counts": [31, 31]}
    res = g.minimize(branin, grid, n_calls=15, random_state=0)
    cand = {tuple(c) for c in res.optimizer.candidates}
    assert all(tuple(x) in cand for x in res.x_iters)  # a finite domain is never left


def test_refine_false_stays_on_the_candidates():
    # minimize used to turn refine=False back on when it set the polishing starts.
    res = g.minimize(branin, BOUNDS, n_calls=15, n_points=256, random_state=0, refine=False)
    cand = {tuple(c) for c in res.optimizer.candidates}
    assert all(tuple(x) in cand for x in res.x_iters)


def test_face_tolerance_pulls_asks_from_the_faces_and_is_checked():
    """refine.face_tolerance on a bowl centred in the unit box (d = 6): fewer asks after the
    initial design with a coordinate within 1 % of a face than without; the setting survives a
    state round trip; a negative one is refused naming it."""
    box = [(0.0, 1.0)] * 6

    def faces(options):
        res = g.minimize(lambda x: float(((np.asarray(x) - 0.5) ** 2).sum()), box, n_calls=40,
                         n_points=512, random_state=3, refine=options)
        x = np.asarray(res.x_iters)[7:]
        return int(np.any((x < 0.01) | (x > 0.99), axis=1).sum()), res.optimizer

    off, _ = faces({})
    on, opt = faces({"face_tolerance": 1.0})
    assert on < off
    again = g.Optimizer.from_state_dict(opt.state_dict())
    assert again.state_dict() == opt.state_dict()
    with pytest.raises(ValueError, match="refine.face_tolerance"):
        g.minimize(branin, BOUNDS, n_calls=3, refine={"face_tolerance": -1.0})


def test_mean_shift_is_kept_and_checked():
    res = g.minimize(branin, BOUNDS, n_calls=8, random_state=0, fit={"mean_shift": 1.5})
    state = res.optimizer.state_dict()
    assert g.Optimizer.from_state_dict(state).state_dict() == state
    with pytest.raises(ValueError, match="fit.mean_shift"):
        g.minimize(branin, BOUNDS, n_calls=3, fit={"mean_shift": -0.5})


def test_wrongly_typed_fit_and_refine_values_are_type_errors_naming_the_field():
    """A value of the wrong type in fit/refine is a TypeError naming the field and both types
    (pybind's own cast error was a RuntimeError naming neither)."""
    for kw, field, want, got in (({"fit": {"warp": "yes"}}, "fit.warp", "a bool", "str"),
                                 ({"fit": {"restarts": 1.5}}, "fit.restarts", "an int", "float"),
                                 ({"fit": {"noise_floor": "x"}}, "fit.noise_floor", "a number",
                                  "str"),
                                 ({"refine": {"starts": "two"}}, "refine.starts", "an int", "str")):
        with pytest.raises(TypeError) as err:
            g.minimize(branin, BOUNDS, n_calls=3, **kw)
        assert str(err.value) == f"{field}: expected {want}, got {got}"


def rosenbrock(x):
    x = np.asarray(x)
    return float((100 * (x[1:] - x[:-1] ** 2) ** 2 + (x[:-1] - 1) ** 2).sum())


def test_output_warp_maps_predictions_back_and_survives_a_state_round_trip():
    """fit.warp on a heavy-tailed objective (Rosenbrock, values 1 .. 1e6): the model works in
    warped units, yet predictions at the observations give back the told values (near
    interpolation), also after save and load; without the warp's inverse they would be off by
    orders of magnitude. The knee is at the median here: at a knee of 0.75 the kept range of
    these 25 values reaches 10⁵, and the smallest are fitted to within the noise (about 20)
    rather than to 10⁻³."""
    box = [(-5.0, 10.0)] * 3
    res = g.minimize(rosenbrock, box, n_calls=25, random_state=0,
                     fit={"warp": True, "warp_knee": 0.5})
    opt = res.optimizer
    y = np.asarray(res.func_vals)
    assert y.max() / max(y.min(), 1e-9) > 100  # the tail the warp is for
    mean, var = opt.predict(np.asarray(res.x_iters))
    np.testing.assert_allclose(mean, y, rtol=1e-3, atol=1e-3 * np.median(y))
    assert np.all(var >= 0) and np.all(np.isfinite(var))
    state = opt.state_dict()
    assert state["model"]["warp"]["lambda"] < 1  # the warp is on for these values
    again = g.Optimizer.from_state_dict(state)
    np.testing.assert_allclose(again.predict(np.asarray(res.x_iters))[0], mean, rtol=1e-9)
    with pytest.raises(g.InvalidArgument, match="fit.colour"):
        g.minimize(rosenbrock, box, n_calls=3, fit={"colour": True})


def test_exploit_last_asks_the_posterior_mean_at_the_end_and_restores_the_rule():
    """exploit_last=0.25 of 20 calls: the last 5 asks use UCB with a constant β of 1e-8 (the
    posterior mean), the earlier ones the default EI; the returned optimizer has EI again; each
    exploiting ask lands within 1.5 (a tenth of the box) of the best point before it (without
    exploit_last, 3 of these 5 land 7 to 15 away); the default, 0.05, exploits the last 2 of 40
    calls and 0 turns it off; a fraction outside [0, 1) is one InvalidArgument before any
    evaluation."""
    rules = []

    def record(res):
        rules.append(res.optimizer.state_dict()["config"]["acquisition"]["type"])

    res = g.minimize(branin, BOUNDS, n_calls=20, random_state=3, exploit_last=0.25,
                     callback=record)
    assert rules == ["ei"] * 15 + ["ucb"] * 5
    assert res.optimizer.state_dict()["config"]["acquisition"]["type"] == "ei"
    xs, ys = np.asarray(res.x_iters), np.asarray(res.func_vals)
    for i in range(15, 20):
        incumbent = xs[int(np.argmin(ys[:i]))]
        assert np.linalg.norm(xs[i] - incumbent) < 1.5, (i, xs[i], incumbent)
    for kw, expected in (({}, ["ei"] * 38 + ["ucb"] * 2), ({"exploit_last": 0}, ["ei"] * 40)):
        rules.clear()
        g.minimize(branin, BOUNDS, n_calls=40, random_state=0, callback=record, **kw)
        assert rules == expected
    calls = []
    for bad in (1.0, -0.1, True, "0.1"):
        with pytest.raises(g.InvalidArgument, match="exploit_last"):
            g.minimize(lambda x: calls.append(x) or 0.0, BOUNDS, n_calls=5, exploit_last=bad)
    assert calls == []


def test_minimize_warps_y_by_default_and_fit_turns_it_off():
    """minimize's own default (a bare Optimizer keeps fit.warp off): the warp on, its knee at
    0.6; fit={"warp": False} turns it off, and other fit keys keep it on."""
    def fit_of(**kw):
        res = g.minimize(branin, BOUNDS, n_calls=6, random_state=0, **kw)
        return res.optimizer.state_dict()["config"]["fit"]

    assert fit_of()["warp"] is True and fit_of()["warp_knee"] == 0.6
    assert fit_of()["kernel_select"] is True  # the kernel's structure chosen too
    assert fit_of(fit={"kernel_select": False})["kernel_select"] is False
    assert g.Optimizer(BOUNDS).state_dict()["config"]["fit"]["kernel_select"] is False
    assert fit_of(fit={"warp": False})["warp"] is False
    kept = fit_of(fit={"restarts": 2, "warp_knee": 0.5})
    assert kept["warp"] is True and kept["restarts"] == 2 and kept["warp_knee"] == 0.5
    assert g.Optimizer(BOUNDS).state_dict()["config"]["fit"]["warp"] is False
    with pytest.raises(g.InvalidArgument, match="fit.warp_knee"):
        g.minimize(branin, BOUNDS, n_calls=3, fit={"warp_knee": 1.0})


def test_output_warp_lowers_the_regret_on_rosenbrock():
    """minimize's default output warp (knee at 0.6) against no warp on a 4-d Rosenbrock with 40
    calls: the mean over seeds 0..11 of log10(regret with) − log10(regret without) must be below
    0. Calibration (other seeds, 100..139, minimize's defaults: the knee at 0.6, exploit_last
    0.05, kernel_select): −0.71 ± 0.11 (mean ± standard error; per-seed sd 0.71, the warp lower
    on 35 of 40); with that sd the mean of 12 seeds has a standard error of 0.21, so this fails
    with probability about 3e-4 (z = 3.5). (Without kernel_select: −0.74 ± 0.12; without
    exploit_last either: −0.84 ± 0.12; at the knee of 0.75: −0.30 ± 0.09.) On bench/peers/bo_suite.py's Rosenbrock-4 (60 calls,
    seeds 0..9) no warp is higher by 0.81 ± 0.27 (bench/RESULTS.md). The seeds are fixed, so the
    outcome is deterministic on a given build."""
    box = [(-5.0, 10.0)] * 4
    diffs = []
    for seed in range(12):
        plain = g.minimize(rosenbrock, box, n_calls=40, random_state=seed, fit={"warp": False}).fun
        warped = g.minimize(rosenbrock, box, n_calls=40, random_state=seed).fun  # the default
        diffs.append(math.log10(max(warped, 1e-12)) - math.log10(max(plain, 1e-12)))
    assert np.mean(diffs) < 0


def test_warp_select_keeps_the_warp_only_where_it_explains_y_better():
    """fit.warp_select: at each fit the warped and the plain model are both fitted and the warp
    is kept only where its marginal likelihood with the Jacobian is higher. y = x⁸ (a heavy bad
    tail) keeps it; a linear function observed mostly near its minimum (x = u⁶) has a skewed y
    too, which Box-Cox alone warps, but the plain GP explains it better."""
    u = (np.arange(24) + 0.5) / 24

    def warp_lambda(x, y, select):
        opt = g.Optimizer([(0.0, 1.0)], minimize=True,
                          fit={"every": 0, "warp": True, "warp_select": select})
        opt.tell(x.reshape(-1, 1), list(y))
        opt.fit_hyperparameters()
        state = opt.state_dict()
        assert state["config"]["fit"]["warp_select"] is select
        return state["model"]["warp"]["lambda"]

    assert warp_lambda(u ** 6, u ** 6, False) < 1
    assert warp_lambda(u ** 6, u ** 6, True) == 1
    assert warp_lambda(u, u ** 8, True) < 1


def test_lengthscale_prior_select_key_is_passed_and_saved():
    """fit.lengthscale_prior_select reaches the engine (saved in the state) and a non-boolean is
    refused naming the key; which prior a fit picks is tested in
    tests/test_optimizer_prior_select.cpp."""
    x = np.array([[0.1, 0.2], [0.4, 0.9], [0.7, 0.3], [0.9, 0.6], [0.3, 0.5], [0.6, 0.8]])
    for select in (False, True):
        opt = g.Optimizer([(0.0, 1.0), (0.0, 1.0)],
                          fit={"every": 0, "lengthscale_prior_select": select})
        opt.tell(x, list(np.sin(6 * x).sum(axis=1)))
        opt.fit_hyperparameters()
        assert opt.state_dict()["config"]["fit"]["lengthscale_prior_select"] is select
    with pytest.raises(Exception, match="fit.lengthscale_prior_select"):
        g.Optimizer([(0.0, 1.0)], fit={"lengthscale_prior_select": "yes"})


def test_plot_convergence():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    res = [g.minimize(branin, BOUNDS, n_calls=6, random_state=s) for s in (0, 1)]
    ax = g.plot_convergence(("gpbandit", res), true_minimum=BRANIN_MIN, yscale="log")
    assert len(ax.lines) >= 3


def test_branin_regret_below_1e3_within_40_calls():
    """The acceptance check of issue #30: the defaults reach simple regret < 1e-3 on Branin within
    40 calls in at least 9 of 10 seeds. Calibration (bench/peers/branin_acceptance.py 100 100, on
    other seeds than these), with minimize's defaults since the ninth round of issue #30 (the
    output warp with its knee at 0.6, the last 5 % of the calls on the posterior mean): 98 of
    seeds 100..199 succeeded (the two others, 151 and 172, ended at 1.55 on the box's edge;
    without the final exploitation 92, six ending between 1.0e-3 and 3.2e-3; the knee at 0.75,
    the seventh round's: 97; at the median: 84; no warp: 100). At a per-seed success rate of
    0.98 the chance of fewer than 9 successes in 10 fresh seeds is 1.6% (the false-failure rate
    of this check for arbitrary seeds). The seeds here are fixed (0..9), so the check is
    deterministic for a given build."""
    ok = 0
    for seed in range(10):
        res = g.minimize(branin, BOUNDS, n_calls=40, random_state=seed)
        ok += res.fun - BRANIN_MIN < 1e-3
    assert ok >= 9
