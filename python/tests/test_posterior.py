"""FinitePosterior against the closed-form GP posterior computed with NumPy."""
import numpy as np
import pytest

import gpbandit as g


def reference(X, D, y, ls, lam):
    def k(A, B):
        return np.exp(-0.5 * ((A[:, :, None] - B[:, None, :]) ** 2).sum(0) / ls**2)
    Kt = k(X, X) + lam * np.eye(X.shape[1])
    Ks = k(X, D)
    mu = Ks.T @ np.linalg.solve(Kt, y)
    var = 1.0 - np.einsum("ij,ij->j", Ks, np.linalg.solve(Kt, Ks))
    return mu, var


@pytest.mark.parametrize("mode", ["incremental", "recompute"])
def test_matches_closed_form(ctx, mode):
    d = g.Domain.grid([0.0, 0.0], [1.0, 1.0], [6, 5])
    post = g.FinitePosterior(ctx, g.Kernel.se(0.4), d, runs=2, noise_variance=0.05, mode=mode,
                             chunk=7)
    assert post.recompute_mode == (mode == "recompute")
    rng = np.random.default_rng(1)
    idx = rng.integers(0, d.size, size=(5, 2)).astype(np.int32)
    ys = rng.normal(size=(5, 2))
    for t in range(5):
        post.observe(idx[t], ys[t])
    assert post.rows == 5
    P = np.array(d.points)
    for r in range(2):
        mu, var = reference(P[:, idx[:, r]], P, ys[:, r], 0.4, 0.05)
        np.testing.assert_allclose(post.mean(r), mu, atol=1e-10)
        np.testing.assert_allclose(post.variance(r), var, atol=1e-10)
        np.testing.assert_array_equal(post.history(r), idx[:, r])


def test_views_and_ucb(ctx):
    d = g.Domain.grid([0.0], [1.0], [21])
    post = g.FinitePosterior(ctx, g.Kernel.se(0.2), d, runs=1, noise_variance=1e-2)
    post.observe(np.array([4], dtype=np.int32), np.array([1.0]))
    view = post.mean(copy=False)
    assert not view.flags.writeable
    assert np.shares_memory(view, post.mean(copy=False))
    assert not np.shares_memory(post.mean(), post.mean())
    mu, var = post.mean(), post.variance()
    index, score = post.ucb_argmax([3.0])
    expected = mu + 3.0 * np.sqrt(np.maximum(var, 0))
    assert index[0] == np.argmax(expected)
    assert score[0] == pytest.approx(expected.max())
    mask = np.zeros(21, dtype=np.uint8)
    mask[index[0]] = 1
    index2, _ = post.ucb_argmax([3.0], excluded=mask)
    assert index2[0] != index[0]
    assert post.info_gain() > 0


def test_pending_rows_update_variance_only(ctx):
    d = g.Domain.grid([0.0], [1.0], [11])
    post = g.FinitePosterior(ctx, g.Kernel.se(0.3), d, runs=1)
    mu0 = post.mean()
    post.add_pending([5])
    assert post.pending == 1
    np.testing.assert_array_equal(post.mean(), mu0)
    assert post.variance()[5] < 0.1
    post.resolve_pending([2.0])
    assert post.pending == 0 and post.mean()[5] > 1.5


def test_bad_inputs_name_the_field(ctx):
    d = g.Domain.grid([0.0], [1.0], [5])
    post = g.FinitePosterior(ctx, g.Kernel.se(0.3), d, runs=2)
    with pytest.raises(g.InvalidArgument, match="index"):
        post.observe([1], [0.0, 0.0])
    with pytest.raises(g.InvalidArgument):
        post.observe([1, 9], [0.0, 0.0])
    with pytest.raises(g.InvalidArgument, match="run"):
        post.mean(2)
    with pytest.raises(g.InvalidArgument, match="mode"):
        g.FinitePosterior(ctx, g.Kernel.se(0.3), d, mode="fast")


def test_lazy_blocks_match_eager(ctx):
    # 60 x 60 = 3600 candidates: seven blocks of 512, reordered spatially in the lazy posterior.
    d = g.Domain.grid([0.0, 0.0], [1.0, 1.0], [60, 60])
    lazy = g.FinitePosterior(ctx, g.Kernel.se(0.2), d, noise_variance=1e-2, capacity=64)
    eager = g.FinitePosterior(ctx, g.Kernel.se(0.2), d, noise_variance=1e-2, capacity=64,
                              lazy=False)
    P = np.array(d.points)
    f = np.sin(5 * P[0]) * np.cos(3 * P[1])
    rng = np.random.default_rng(3)
    for _ in range(40):
        (a,), (sa,) = lazy.ucb_argmax([2.0])
        (b,), (sb,) = eager.ucb_argmax([2.0])
        assert (a, sa) == (b, sb)
        y = np.array([f[a] + 0.1 * rng.normal()])
        lazy.observe(np.array([a], np.int32), y)
        eager.observe(np.array([a], np.int32), y)
    np.testing.assert_array_equal(lazy.mean(0), eager.mean(0))
    np.testing.assert_array_equal(lazy.variance(0), eager.variance(0))
