"""Log-uniform dimensions (scikit-optimize's ``prior="log-uniform"``): a Real and an Integer whose
optimum ``minimize`` finds, log-integer axes that the engine projects onto ln of an integer (so
the point told is exactly the point asked), the space saved and loaded, and bad priors refused
with a ValueError that names the parameter."""
import math

import numpy as np
import pytest

import gpbandit as g
from gpbandit.space import Integer, Real, Space


def test_minimize_finds_the_optimum_of_a_log_uniform_real_and_integer():
    """The optimum, lr = 1e-3 and n = 200, lies decades inside both ranges; on the log axes the
    function is a smooth bowl. Deterministic (fixed seed; seeds 0..9 all end at n = 200 and lr
    within 0.4% of 1e-3): it fails if the log axes are lost (a uniform axis over 1..100000 puts
    nearly every point above 1000)."""
    seen = []

    def f(x):
        lr, n = x
        seen.append((lr, n))
        return (math.log10(lr) + 3) ** 2 + (math.log(n) - math.log(200)) ** 2

    dims = [Real(1e-6, 1.0, prior="log-uniform", name="lr"),
            Integer(1, 100_000, prior="log-uniform", name="n")]
    res = g.minimize(f, dims, n_calls=30, random_state=0)
    assert all(isinstance(n, int) and 1 <= n <= 100_000 for _, n in seen)
    assert all(1e-6 <= lr <= 1.0 for lr, _ in seen)
    lr, n = res.x
    assert abs(math.log10(lr) + 3) < 0.1, res.x
    assert 180 <= n <= 220, res.x
    # A log-uniform design: about half the first points fall below sqrt(100000) ≈ 316.
    assert sum(n < 316 for _, n in seen[:5]) >= 1


def test_the_point_told_is_the_point_asked():
    opt = g.Optimizer([Integer(1, 1000, prior="log-uniform"), Real(-1.0, 1.0)], backend="cpu",
                      initial_points=3, seed=2)
    for _ in range(8):
        points, _ = opt.ask(2)
        for n, _x in points:
            assert isinstance(n, int) and 1 <= n <= 1000
        typed = [[int(n), float(x)] for n, x in points]  # the values as a user types them back
        opt.tell(typed, [(math.log(n) - math.log(30)) ** 2 + x * x for n, x in typed])
        assert opt.pending.tolist() == []  # every ask answered, none left hanging
    assert len(opt) == 16 and opt.X[-2:] == typed


def test_the_engine_projects_log_integer_axes_onto_ln_of_an_integer():
    spec = g.DomainSpec.box([0.0, math.log(5)], [1.0, math.log(5000)], 256, 1, log_integer=[1])
    assert spec.log_integer_axes == [1]
    opt = g.Optimizer(spec, backend="cpu", initial_points=3, minimize=True, seed=4)
    for _ in range(10):
        rows, _ = opt.ask(1)
        z = float(rows[0][1])
        v = round(math.exp(z))
        assert z == math.log(v) and 5 <= v <= 5000  # exactly ln of an integer in the range
        opt.tell(rows, [(z - math.log(77)) ** 2 + rows[0][0]])
    with pytest.raises(ValueError, match="domain.log_integer"):
        g.DomainSpec.box([0.0, 0.0], [1.0, math.log(10.5)], 16, 0, log_integer=[1])


def test_a_log_integer_space_is_saved_and_loaded():
    opt = g.Optimizer([Integer(2, 512, prior="log-uniform", name="batch")], backend="cpu",
                      initial_points=2)
    for _ in range(4):
        points, _ = opt.ask(1)
        opt.tell(points, [abs(math.log2(points[0][0]) - 5)])
    again = g.Optimizer.from_state_dict(opt.state_dict())
    assert again.X == opt.X
    assert again.space.dimensions[0].prior == "log-uniform"
    assert again.ask(1)[0] == opt.ask(1)[0]


def test_skopt_style_forms_keep_the_log_prior():
    space = Space([(1, 1000, "log-uniform"), (1e-3, 1.0, "log-uniform")])
    first, second = space.dimensions
    assert isinstance(first, Integer) and first.prior == "log-uniform"
    assert isinstance(second, Real) and second.prior == "log-uniform"
    rows = space.to_engine([[10, 0.01]])
    assert rows[0][0] == math.log(10)
    assert space.from_engine(rows) == [[10, pytest.approx(0.01)]]


@pytest.mark.parametrize("make, match", [
    (lambda: Integer(1, 10, prior="cubic", name="depth"), r"Integer 'depth': prior must be"),
    (lambda: Integer(0, 10, prior="log-uniform", name="depth"), r"Integer 'depth'.*low >= 1"),
    (lambda: Integer(1, 10, prior=None), r"Integer\(1, 10\): prior must be"),
    (lambda: Integer(1, 10, prior="log-uniform", base=1), r"Integer\(1, 10\): base must be"),
    (lambda: Real(1e-3, 1.0, prior="loguniform", name="lr"), r"Real 'lr': prior must be"),
    (lambda: Real(0.0, 1.0, prior="log-uniform", name="lr"), r"Real 'lr'.*low > 0"),
    (lambda: Space([(1, 10, "log-normal")]), r"Integer\(1, 10\): prior must be"),
])
def test_bad_priors_are_refused_naming_the_parameter(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_minimize_refuses_a_bad_prior_before_any_evaluation():
    calls = []
    with pytest.raises(ValueError, match=r"Integer 'n': prior"):
        g.minimize(lambda x: calls.append(x) or 0.0,
                   [Real(0.0, 1.0), Integer(1, 9, prior="exp", name="n")], n_calls=5)
    assert calls == []
    res = g.minimize(lambda x: abs(math.log(x[0]) - math.log(7)), [(1, 50, "log-uniform")],
                     n_calls=8)
    assert isinstance(res.x[0], int) and np.isfinite(res.fun)
