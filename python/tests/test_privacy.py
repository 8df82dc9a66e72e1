"""Noise sources, CTL and the PO-GP-UCB curator."""
import numpy as np
import pytest

import gpbandit as g


def test_sources():
    s = g.secure_source()
    assert s.secure and "secure" in s.describe()
    a = g.seeded_source(5, 1, 2)
    b = g.seeded_source(5, 1, 2)
    assert not a.secure and "NOT private" in a.describe()
    assert [a.next_u64() for _ in range(4)] == [b.next_u64() for _ in range(4)]
    u = [s.uniform() for _ in range(100)]
    assert all(0.0 < x < 1.0 for x in u)


def test_clip_and_laplace():
    assert g.clip(5.0, 2.0) == 2.0 and g.clip(-5.0, 2.0) == -2.0 and g.clip(1.0, 2.0) == 1.0
    with pytest.raises(g.InvalidArgument):
        g.clip(1.0, 0.0)
    src = g.seeded_source(11)
    x = np.array([g.laplace_inverse_cdf(2.0, src) for _ in range(20000)])
    # Laplace(0, 2): mean 0, variance 8. sd of the sample mean = sqrt(8/20000) = 0.02, so the
    # 0.1 bound is 5 sd (false failure ~6e-7 for a fresh seed; this seed is fixed).
    assert abs(x.mean()) < 0.1
    assert abs(x.var() - 8.0) < 0.8


def test_ctl_vectorised_and_on_a_grid():
    ctl = g.CtlMechanism(B=1.0, R=1.0, epsilon=1.0)
    assert ctl.scale == pytest.approx(4.0)
    assert ctl.proven_epsilon > ctl.epsilon  # snapping proves slightly more than nominal
    y = np.linspace(-3, 3, 12).reshape(3, 4)
    out = ctl.privatize(y, g.seeded_source(3))
    assert out.shape == (3, 4)
    assert np.all(np.abs(out) <= ctl.output_bound)
    # Snapping outputs are multiples of Delta * Lambda' = 4 * 1 (Delta = 2(B+R), Lambda' = 1).
    np.testing.assert_array_equal(np.mod(out, 4.0), 0.0)
    again = ctl.privatize(y, g.seeded_source(3))
    np.testing.assert_array_equal(out, again)  # same seeded stream, same noise
    assert isinstance(ctl.privatize(0.5, g.seeded_source(1)), float)
    with pytest.raises(g.InvalidArgument, match="epsilon"):
        g.CtlMechanism(1.0, 1.0, 0.0)
    inv = g.CtlMechanism(1, 1, 1, sampler="inverse_cdf")
    assert inv.proven_epsilon == float("inf")  # no floating-point guarantee is claimed


def test_po_curator(ctx):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    rel = g.po_curate_seeded(ctx, X, epsilon=1.0, delta=1e-5, r=2, seed=4)
    assert rel.z.shape == (40, 2) and rel.m.shape == (3, 2) and rel.r == 2
    assert rel.branch in ("IF", "ELSE")
    assert rel.omega == pytest.approx(g.po_omega(2, 1.0, 1e-5))
    assert rel.sigma_min == pytest.approx(np.linalg.svd(X - X.mean(0), compute_uv=False)[-1])
    if rel.branch == "IF":
        np.testing.assert_allclose(rel.z, (X - X.mean(0)) @ rel.m / np.sqrt(2), atol=1e-10)
    sec = g.po_curate(ctx, X, 1.0, 1e-5, g.secure_source(), r=2)
    assert sec.z.shape == (40, 2)
    with pytest.raises(g.InvalidArgument, match="omega_form"):
        g.po_omega(2, 1.0, 1e-5, omega_form="bogus")
