"""Version, Context, Domain, Kernel, kernel_matrix and the exception mapping."""
import re

import numpy as np
import pytest

import gpbandit as g


def test_version_is_semver_and_matches_cmake(source_dir):
    assert re.fullmatch(r"\d+\.\d+\.\d+", g.__version__)
    with open(f"{source_dir}/CMakeLists.txt") as f:
        m = re.search(r"project\(gpbandit VERSION (\d+\.\d+\.\d+)", f.read())
    assert m and m.group(1) == g.__version__


def test_context_cpu(ctx):
    assert ctx.backend == "cpu"
    assert ctx.threads == 1
    assert "cpu" in ctx.describe()


def test_cuda_request_in_cpu_build_raises():
    if g.HAS_CUDA:
        pytest.skip("CUDA build: a Cuda context may succeed")
    with pytest.raises(g.NoCudaBuildError):
        g.Context("cuda")


def test_bad_backend_is_invalid_argument_and_value_error():
    with pytest.raises(g.InvalidArgument, match="gpu"):
        g.Context("gpu")
    with pytest.raises(ValueError):
        g.Context("gpu")
    assert issubclass(g.InvalidArgument, g.Error)


def test_grid_points_are_a_read_only_view():
    d = g.Domain.grid([0.0, -1.0], [1.0, 1.0], [3, 5])
    assert (d.size, d.dim, len(d)) == (15, 2, 15)
    p = d.points
    assert p.shape == (2, 15) and p.flags.f_contiguous and not p.flags.writeable
    # Axis 0 fastest: candidate j = (x0[j % 3], x1[j // 3]).
    np.testing.assert_allclose(p[0, :3], [0.0, 0.5, 1.0])
    np.testing.assert_allclose(p[1, ::3], np.linspace(-1, 1, 5))
    assert np.shares_memory(d.points, d.points)  # no copy: both views see the same buffer


def test_from_rows_and_bad_input():
    rows = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    d = g.Domain.from_rows(rows)
    np.testing.assert_array_equal(d.points, rows.T)
    with pytest.raises(g.InvalidArgument):
        g.Domain.from_rows(np.array([[np.nan, 1.0]]))
    with pytest.raises(g.IoError):
        g.Domain.from_csv("/nonexistent/points.csv")


def se_reference(A, B, ls, var):
    d2 = ((A[:, :, None] - B[:, None, :]) ** 2).sum(axis=0)
    return var * np.exp(-0.5 * d2 / ls**2)


def test_kernels_match_formulas(ctx):
    rng = np.random.default_rng(0)
    A = np.asfortranarray(rng.uniform(size=(3, 7)))
    B = np.asfortranarray(rng.uniform(size=(3, 4)))
    k = g.Kernel.se(0.3, 2.0)
    np.testing.assert_allclose(g.kernel_matrix(ctx, k, A, B), se_reference(A, B, 0.3, 2.0),
                               rtol=1e-12)
    assert k(A[:, 0], B[:, 1]) == pytest.approx(se_reference(A[:, :1], B[:, 1:2], 0.3, 2.0)[0, 0])
    m = g.Kernel.matern(0.5, 0.3)
    s = np.linalg.norm(A[:, 0] - B[:, 0]) / 0.3
    assert m(A[:, 0], B[:, 0]) == pytest.approx(np.exp(-s))
    lin = g.Kernel.linear(1.5, 0.5)
    assert lin(A[:, 1], B[:, 2]) == pytest.approx(1.5 * (A[:, 1] @ B[:, 2] + 0.5))
    assert (k.type, m.type, lin.stationary) == ("se", "matern12", False)
    with pytest.raises(g.InvalidArgument, match="lengthscale"):
        g.Kernel.se(-1.0)
    with pytest.raises(g.InvalidArgument, match="nu"):
        g.Kernel.matern(1.0, 0.3)


def test_precomputed_kernel(ctx):
    K = np.array([[2.0, 0.5], [0.5, 1.0]])
    k = g.Kernel.precomputed(K)
    idx = np.asfortranarray(np.array([[0.0, 1.0]]))
    np.testing.assert_array_equal(g.kernel_matrix(ctx, k, idx, idx), K)
    with pytest.raises(g.InvalidArgument):
        g.Kernel.precomputed(np.array([[1.0, 0.2], [0.0, 1.0]]))  # not symmetric


def test_ard_kernels_and_pickling(ctx):
    import pickle
    k = g.Kernel.matern(2.5, [0.2, 0.5], 2.0)
    assert k.ard and k.type == "matern52"
    np.testing.assert_array_equal(k.lengthscale, [0.2, 0.5])
    np.testing.assert_array_equal(k.lengthscales, [0.2, 0.5])
    iso = g.Kernel.se(0.3)
    assert not iso.ard and iso.lengthscale == 0.3
    # ARD SE equals the isotropic SE on inputs scaled axis by axis.
    rng = np.random.default_rng(1)
    A = np.asfortranarray(rng.uniform(size=(2, 5)))
    B = np.asfortranarray(rng.uniform(size=(2, 3)))
    ard = g.Kernel.se([0.2, 0.5])
    scale = np.array([[1 / 0.2], [1 / 0.5]])
    np.testing.assert_allclose(g.kernel_matrix(ctx, ard, A, B),
                               se_reference(A * scale, B * scale, 1.0, 1.0), rtol=1e-12)
    with pytest.raises(g.InvalidArgument):
        g.Kernel.se([0.2, -1.0])
    for kern in (k, iso, g.Kernel.linear(1.5, 0.5), g.Kernel.polynomial(3, 2.0, 0.5),
                 g.Kernel.precomputed(np.array([[2.0, 0.5], [0.5, 1.0]]))):
        back = pickle.loads(pickle.dumps(kern))
        assert back.describe() == kern.describe()
        x = np.array([0.0, 1.0]) if kern.type != "precomputed" else np.array([0.0])
        y = np.array([0.3, 0.4]) if kern.type != "precomputed" else np.array([1.0])
        assert back(x, y) == kern(x, y)
