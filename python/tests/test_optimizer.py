"""gpbandit.Optimizer (ask/tell) and gpbandit.minimize."""
import math
import os
import pickle

import numpy as np
import pytest

import gpbandit as g


def branin_like(x):
    """A smooth 2-d test function with its maximum inside [0, 1]²."""
    x = np.atleast_2d(x)
    return np.sin(3 * x[:, 0]) * np.cos(2 * x[:, 1]) - (x[:, 0] - 0.6) ** 2


def grid_optimizer(**kw):
    opts = dict(domain={"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [15, 15]},
                kernel="se", lengthscale=0.25, noise_variance=1e-3, seed=3, fit_every=0,
                acquisition="ucb")
    opts.update(kw)
    return g.Optimizer(**opts)


# ---------------------------------------------------------------- domains

def test_domain_forms(tmp_path):
    rows = np.random.default_rng(0).uniform(size=(40, 3))
    np.save(tmp_path / "c.npy", rows)
    np.savetxt(tmp_path / "c.csv", rows, delimiter=",", header="a,b,c", comments="")
    forms = {
        "grid": ({"type": "grid", "lower": [0, 0], "upper": [1, 2], "counts": [4, 5]}, 20, 2),
        "array": (rows, 40, 3),
        "npy": (str(tmp_path / "c.npy"), 40, 3),
        "csv": (tmp_path / "c.csv", 40, 3),
        "box": ([(0.0, 1.0), (-2.0, 2.0)], 64, 2),
        "box-lists": ([[0.0, 1.0], [-2.0, 2.0]], 64, 2),
        "spec": (g.DomainSpec.sobol([0, 0], [1, 1], 32, seed=5), 32, 2),
        "Domain": (g.Domain.grid([0.0], [1.0], [7]), 7, 1),
    }
    for name, (domain, n, d) in forms.items():
        opt = g.Optimizer(domain, n_candidates=64)
        assert opt.candidates.shape == (n, d), name
    np.testing.assert_array_equal(g.Optimizer(rows).candidates, rows)
    np.testing.assert_allclose(g.Optimizer(str(tmp_path / "c.csv")).candidates, rows)
    box = g.Optimizer([(0.0, 1.0), (-2.0, 2.0)], n_candidates=64).candidates
    assert box[:, 1].min() >= -2 and box[:, 1].max() <= 2 and len(np.unique(box[:, 0])) == 64
    with pytest.raises(TypeError, match="^domain: expected"):
        g.Optimizer(42)
    with pytest.raises(g.InvalidArgument, match="domain.type"):
        g.Optimizer({"type": "cube"})


def test_default_kernel_is_ard_with_the_domain_scale():
    opt = g.Optimizer({"type": "grid", "lower": [0, -10], "upper": [1, 10], "counts": [3, 3]})
    assert opt.kernel.ard and opt.kernel.type == "matern52"
    np.testing.assert_allclose(opt.kernel.lengthscales, [0.2, 4.0])


# ---------------------------------------------------------------- ask / tell

def test_ucb_choices_match_the_finite_posterior(ctx):
    """tell after ask: the optimizer makes FinitePosterior's UCB choices, step for step."""
    opt = grid_optimizer(acquisition="ucb", beta=4.0, random_ties=False)
    domain = g.Domain.grid([0.0, 0.0], [1.0, 1.0], [15, 15])
    post = g.FinitePosterior(ctx, g.Kernel.se(0.25), domain, noise_variance=1e-3)
    f = branin_like(np.asarray(domain.points).T)
    for _ in range(25):
        points, index = opt.ask()
        (expected,), _ = post.ucb_argmax([2.0])  # √β = 2
        assert index[0] == expected
        np.testing.assert_array_equal(points[0], np.asarray(domain.points)[:, expected])
        opt.tell(index, f[index])
        post.observe(index, f[index])
    np.testing.assert_array_equal(opt.observed_indices, post.history())
    mean, var = opt.predict()
    np.testing.assert_allclose(mean, post.mean(), atol=1e-12)
    np.testing.assert_allclose(var, post.variance(), atol=1e-12)


def gp_reference(X, y, Z, ls, lam):
    def k(A, B):
        return np.exp(-0.5 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / ls**2)
    K = k(X, X) + lam * np.eye(len(X))
    Ks = k(Z, X)
    return Ks @ np.linalg.solve(K, y), 1.0 - np.einsum("ij,ji->i", Ks, np.linalg.solve(K, Ks.T))


def test_tell_any_points_and_predict_anywhere():
    opt = grid_optimizer()
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(6, 2))  # off the candidate set
    y = branin_like(X)
    opt.tell(X[:4], y[:4])
    opt.tell(X[4], y[4])  # one point
    opt.tell(np.array([[0.0, 0.0]]), [0.25])  # a candidate given as a point
    opt.tell(np.int64(7), 0.5)  # a candidate given by index
    assert len(opt) == 7
    np.testing.assert_array_equal(opt.observed_indices[:5], -1)
    assert opt.observed_indices[5] == 0 and opt.observed_indices[6] == 7
    allX = np.vstack([X[:5], [[0.0, 0.0]], opt.candidates[7]])
    ally = np.concatenate([y[:5], [0.25, 0.5]])
    np.testing.assert_array_equal(opt.X, allX)
    np.testing.assert_array_equal(opt.y, ally)
    Z = rng.uniform(size=(9, 2))
    mean, var = opt.predict(Z)
    ref_mean, ref_var = gp_reference(allX, ally, Z, 0.25, 1e-3)
    np.testing.assert_allclose(mean, ref_mean, atol=1e-9)
    np.testing.assert_allclose(var, ref_var, atol=1e-9)
    best = opt.best
    assert best.y == ally.max() and best.observation == int(np.argmax(ally))
    with pytest.raises(g.InvalidArgument, match="points"):
        opt.tell(np.ones((2, 3)), [1.0, 2.0])
    with pytest.raises(g.InvalidArgument, match="index"):
        opt.tell(np.int64(2**40), 1.0)
    with pytest.raises(TypeError):
        opt.tell(np.array(["a"]), 1.0)
    assert len(opt) == 7  # nothing recorded by the failed tells


def test_batches_are_distinct_and_told_in_any_order():
    opt = grid_optimizer(acquisition="ts")
    points, index = opt.ask(5)
    assert points.shape == (5, 2) and index.dtype == np.int64 and len(set(index)) == 5
    np.testing.assert_array_equal(opt.pending, index)
    more, more_index = opt.ask(3)
    assert not set(more_index) & set(index)
    order = [2, 0, 4, 1, 3]
    opt.tell(index[order], branin_like(points[order]))
    np.testing.assert_array_equal(opt.pending, more_index)
    opt.tell(more, branin_like(more))
    assert len(opt) == 8 and len(opt.pending) == 0


# ---------------------------------------------------------------- state

def drive(opt, rounds, q=1):
    chosen = []
    for _ in range(rounds):
        points, index = opt.ask(q)
        opt.tell(index, branin_like(points))
        chosen.extend(index.tolist())
    return chosen


@pytest.mark.parametrize("acquisition", ["ucb", "ts", "ei"])
def test_pickle_and_save_continue_with_identical_choices(tmp_path, acquisition):
    kw = dict(acquisition=acquisition, fit_every=4, fit={"min_observations": 4, "restarts": 1})
    straight = grid_optimizer(**kw)
    drive(straight, 6, q=2)
    straight.ask(2)  # an outstanding batch travels with the state
    copies = {
        "pickle": pickle.loads(pickle.dumps(straight)),
        "state_dict": g.Optimizer.from_state_dict(straight.state_dict()),
    }
    for ext in ("json", "npz"):
        straight.save(tmp_path / f"state.{ext}")
        copies[ext] = g.Optimizer.load(tmp_path / f"state.{ext}")
    pending = straight.pending.copy()
    assert len(pending) == 2
    after = drive(straight, 6)
    for name, opt in copies.items():
        np.testing.assert_array_equal(opt.pending, pending)
        np.testing.assert_array_equal(opt.y, straight.y[:len(opt)])
        assert drive(opt, 6) == after, name
        np.testing.assert_array_equal(opt.predict()[0], straight.predict()[0])
    npz = np.load(tmp_path / "state.npz")
    assert set(npz.files) >= {"state"}


def test_fit_hyperparameters_updates_the_kernel():
    opt = grid_optimizer()
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(30, 2))
    opt.tell(X, branin_like(X))
    fit = opt.fit_hyperparameters()
    assert fit.lengthscales.shape == (2,) and fit.rows_used == 30
    assert opt.fits == 1 and opt.kernel.ard
    np.testing.assert_allclose(opt.kernel.lengthscales, fit.lengthscales)
    with pytest.raises(g.InvalidArgument):
        grid_optimizer().fit_hyperparameters()  # no observations


# ---------------------------------------------------------------- minimize

def test_minimize_returns_a_gp_minimize_like_result():
    def f(x):
        assert x.shape == (2,)
        return float((x[0] - 0.3) ** 2 + (x[1] + 0.5) ** 2)

    calls = []
    res = g.minimize(f, [(0.0, 1.0), (-1.0, 1.0)], n_calls=20, n_candidates=1024, seed=1,
                     callback=lambda r: calls.append(r.nfev))
    assert len(res.x_iters) == 20 and res.func_vals.shape == (20,)
    assert isinstance(res.x, list) and all(isinstance(x, list) for x in res.x_iters)
    assert res.fun == res.func_vals.min() and res.nfev == 20
    assert res.x == res.x_iters[int(np.argmin(res.func_vals))]
    assert res.fun < 0.05
    assert calls == list(range(1, 21))
    more = g.minimize(f, None, n_calls=5, optimizer=res.optimizer)
    assert more.nfev == 25 and more.fun <= res.fun
    stopped = g.minimize(f, [(0.0, 1.0), (-1.0, 1.0)], n_calls=20, callback=lambda r: r.nfev >= 3)
    assert stopped.nfev == 3


def test_minimize_with_known_points():
    res = g.minimize(lambda x: float(abs(x[0] - 0.5)), [(0.0, 1.0)], n_calls=3,
                     x0=[[0.5]], y0=[0.0], n_initial_points=0)
    assert res.nfev == 4 and res.fun == 0.0


# ---------------------------------------------------------------- TS and EI against random

def demo_prior(n=30, lengthscale=0.15):
    """Candidates of an n×n grid and a Cholesky factor of the SE prior over them."""
    P = np.asarray(g.Domain.grid([0.0, 0.0], [1.0, 1.0], [n, n]).points).T
    K = np.exp(-0.5 * ((P[:, None, :] - P[None, :, :]) ** 2).sum(-1) / lengthscale**2)
    return P, np.linalg.cholesky(K + 1e-8 * np.eye(len(P)))


def simple_regrets(P, L, seed, evaluations=40, sd=0.05):
    """Simple regret of TS, EI and random search on the GP draw of `seed`."""
    f = L @ np.random.default_rng(100 + seed).standard_normal(len(P))
    regret = {}
    for acq in ("ts", "ei", "random"):
        opt = g.Optimizer(P, "se", lengthscale=0.15, noise_variance=sd**2, acquisition=acq,
                          seed=seed, fit_every=0)
        noise = np.random.default_rng(seed)
        for _ in range(evaluations):
            _, i = opt.ask()
            opt.tell(i, f[i] + sd * noise.standard_normal(1))
        regret[acq] = f.max() - f[opt.observed_indices].max()
    return regret


def wins_over_random(regrets, acq):
    """Functions where `acq` ends below random search (ties count half)."""
    return sum((r[acq] < r["random"]) + 0.5 * (r[acq] == r["random"]) for r in regrets)


def test_ts_and_ei_beat_random_search():
    """On 12 sampled objectives (GP draws, 30×30 grid, 40 evaluations, noise sd 0.05) TS and EI
    must each end with a lower simple regret than random search on at least 7 of the 12
    functions (ties count half). Calibration on 200 other functions
    (`python3 python/tests/calibrate_ts_ei.py 1000 1200`): TS won 186.5, EI 182.5. With a
    per-function win probability of 0.87 (the 95% lower confidence bound for EI) the chance of
    fewer than 7 wins in 12 is 2.2e-3 per rule (binomial), so the false-failure rate for fresh
    seeds is below 0.5%; the seeds here are fixed."""
    P, L = demo_prior()
    regrets = [simple_regrets(P, L, seed) for seed in range(12)]
    for acq in ("ts", "ei"):
        assert wins_over_random(regrets, acq) >= 7, (acq, regrets)


def test_forget_takes_points_in_your_units():
    """forget() takes points as ask() returns them and tell() takes them: lists of values with a
    log-uniform Real and a Categorical (not only engine coordinates or indices)."""
    opt = g.Optimizer([g.Real(1e-4, 1e2, prior="log-uniform"), g.Categorical(["a", "b", "c"])],
                      backend="cpu")
    points, index = opt.ask(3)
    assert sorted(opt.pending.tolist()) == sorted(index.tolist())
    assert opt.forget(points[1]) == 1  # one point, as ask returned it
    assert sorted(opt.pending.tolist()) == sorted([index[0], index[2]])
    with pytest.raises(g.InvalidArgument, match=r"^forget: point 0 = \[[0-9.e+-]+, '[abc]'\] "
                                                r"matches no outstanding ask"):
        opt.forget(points[1])  # released already: named in your units
    typed = [float(f"{points[0][0]:.6g}"), points[0][1]]  # as a user would type it back
    assert opt.forget([typed, points[2]]) == 2
    assert opt.pending.tolist() == []
    again, again_index = opt.ask(2)
    assert opt.forget(again_index) == 2  # indices still work
    told, _ = opt.ask(1)
    opt.tell(told, [1.0])
    assert len(opt) == 1 and opt.pending.tolist() == []
