# Known per-observation noise: Optimizer.tell(..., noise=) gives the posterior of K + Λ, noise as
# a number or per value with unknown entries, the `noise` property, minimize's noise (a known
# variance, or "returned" by the objective), and bad noise refused with nothing recorded.
import numpy as np
import pytest

import gpbandit as g
from gpbandit import InvalidArgument


def se(a, b, l=0.25):
    d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
    return np.exp(-0.5 * d2 / l ** 2)


def make():
    return g.Optimizer({"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [15, 15]},
                       kernel="se", lengthscale=0.25, noise_variance=1e-2, seed=3, fit_every=0,
                       acquisition="ucb")


def test_tell_with_noise_is_the_heteroscedastic_posterior():
    opt = make()
    pts, _ = opt.ask(3)  # pending rows, answered with known noise: rebuilt
    extra = np.array([[0.31, 0.77], [0.9, 0.05]])
    X = np.vstack([pts, extra])
    y = np.sin(4 * X[:, 0]) + X[:, 1]
    noise = [1e-5, 0.2, None, 1e-3, np.nan]
    opt.tell(X, y, noise=noise)
    lam = np.array([1e-5, 0.2, 1e-2, 1e-3, 1e-2])  # λ where not known
    Q = np.array([[0.5, 0.5], [0.1, 0.9], [0.3, 0.3]])
    K = se(X, X) + np.diag(lam)
    Kq = se(Q, X)
    mean, var = opt.predict(Q)
    np.testing.assert_allclose(mean, Kq @ np.linalg.solve(K, y), atol=1e-10)
    np.testing.assert_allclose(var, 1 - np.einsum("ij,ji->i", Kq, np.linalg.solve(K, Kq.T)),
                               atol=1e-10)
    K0 = se(X, X) + 1e-2 * np.eye(5)  # λ everywhere: far off (the test can fail)
    assert np.abs(mean - Kq @ np.linalg.solve(K0, y)).max() > 1e-3
    told = opt.noise
    assert told.shape == (5,)
    np.testing.assert_array_equal(told[[0, 1, 3]], [1e-5, 0.2, 1e-3])
    assert np.isnan(told[[2, 4]]).all()


def test_noise_as_one_number_and_by_index():
    opt = make()
    opt.tell([3, 7, 11], [0.1, 0.5, 0.2], noise=0.04)
    opt.tell(20, 0.3)
    np.testing.assert_array_equal(opt.noise[:3], [0.04] * 3)
    assert np.isnan(opt.noise[3])
    # A failed value (NaN) drops its noise with it.
    opt.tell([30, 31], [np.nan, 0.4], noise=[0.1, 0.2])
    assert len(opt.y) == 5 and opt.noise[-1] == 0.2


def test_bad_noise_is_refused_and_nothing_recorded():
    opt = make()
    for bad in ([-1.0, 0.1], [np.inf, 0.1], [0.1, 0.1, 0.1]):
        with pytest.raises(InvalidArgument, match="noise"):
            opt.tell([1, 2], [0.5, 0.6], noise=bad)
    with pytest.raises(TypeError, match="noise"):
        opt.tell([1, 2], [0.5, 0.6], noise=["a", 0.1])
    assert len(opt.y) == 0


def branin(x):
    x1, x2 = x
    return ((x2 - 5.1 / (4 * np.pi ** 2) * x1 ** 2 + 5 / np.pi * x1 - 6) ** 2
            + 10 * (1 - 1 / (8 * np.pi)) * np.cos(x1) + 10)


def test_minimize_with_a_known_noise_variance():
    res = g.minimize(branin, [(-5.0, 10.0), (0.0, 15.0)], n_calls=12, random_state=1,
                     noise=0.25)
    np.testing.assert_array_equal(res.optimizer.noise, [0.25] * 12)
    assert np.isfinite(res.fun)


def test_minimize_with_noise_returned_by_the_objective():
    def f(x):
        v = branin(x)
        return v, (None if x[0] < 0 else 0.01 * (1 + abs(x[1])))
    res = g.minimize(f, [(-5.0, 10.0), (0.0, 15.0)], n_calls=10, random_state=2,
                     noise="returned")
    told = res.optimizer.noise
    xs = np.asarray(res.x_iters)
    np.testing.assert_allclose(told[xs[:, 0] >= 0], 0.01 * (1 + np.abs(xs[xs[:, 0] >= 0, 1])))
    assert np.isnan(told[xs[:, 0] < 0]).all()
    np.testing.assert_allclose(res.func_vals, [branin(x) for x in xs])
    with pytest.raises(InvalidArgument, match="value, variance"):
        g.minimize(branin, [(-5.0, 10.0), (0.0, 15.0)], n_calls=3, noise="returned")
    with pytest.raises(InvalidArgument, match="noise must be"):
        g.minimize(branin, [(-5.0, 10.0), (0.0, 15.0)], n_calls=3, noise=-1)


def _fit_config(res):
    import json
    return json.loads(res.optimizer._core.dumps())["config"]["fit"]


def test_minimize_chooses_the_prior_location_when_the_noise_is_told():
    # bench/RESULTS.md, "Known noise": told, the fit also chooses the lengthscale prior's
    # location; fitted (the default) it does not; the user's own setting wins.
    dims = [(-5.0, 10.0), (0.0, 15.0)]
    told = g.minimize(branin, dims, n_calls=6, random_state=0, noise=0.1)
    assert _fit_config(told)["lengthscale_prior_select"] is True
    plain = g.minimize(branin, dims, n_calls=6, random_state=0)
    assert _fit_config(plain)["lengthscale_prior_select"] is False
    mine = g.minimize(branin, dims, n_calls=6, random_state=0, noise=0.1,
                      fit={"lengthscale_prior_select": False})
    assert _fit_config(mine)["lengthscale_prior_select"] is False
