# Per-parameter kernels on a parameter space: Optimizer(space, kernel={"combine", "parts"}),
# the kernel's parts, the fit of each part, and the refusals naming the field (ValueError /
# TypeError).
import math

import numpy as np
import pytest

import gpbandit as g
from gpbandit import params as gp

VALUES = [i / 10 for i in range(11)]


def space():
    return gp.ParameterSpace([gp.NumericalDiscrete("x", VALUES),
                              gp.Categorical("c", ["a", "b", "c", "d"]),
                              gp.NumericalDiscrete("z", VALUES)])


def f(p):
    return math.sin(4 * math.pi * p["x"]) + 0.5 * "abcd".index(p["c"]) + 0.01 * p["z"]


@pytest.mark.parametrize("combine", ["product", "sum"])
def test_optimizer_fits_each_part_and_asks(combine):
    sp = space()
    opt = g.Optimizer(sp, kernel={"combine": combine, "type": "se",
                                  "parts": [{"parameters": ["x"], "type": "matern52"},
                                            {"parameters": ["z"]}]},
                      fit_every=0, seed=1)
    k = opt.kernel
    assert k.type == combine
    parts = k.parts
    assert [p["features"] for p in parts] == [(0, 1), (5, 6), (1, 5)]  # c: a default part
    assert [p["type"] for p in parts] == ["matern52", "se", "se"]
    assert parts[2]["ard"] is False  # one-hot labels: one lengthscale
    rng = np.random.default_rng(5)
    points = [sp[int(i)] for i in rng.choice(len(sp), 40, replace=False)]
    opt.tell(points, [f(p) for p in points])
    opt.fit_hyperparameters()
    parts = opt.kernel.parts
    lx, lz = parts[0]["lengthscale"][0], parts[1]["lengthscale"][0]
    assert lx < lz / 3, opt.kernel.describe()
    assert len(opt.ask(2).points) == 2


def test_refusals_name_the_field():
    sp = space()

    def make(kernel):
        return g.Optimizer(sp, kernel=kernel)

    with pytest.raises(ValueError, match=r"kernel.parts\[0\].parameters\[0\]: unknown parameter 'y'"):
        make({"combine": "product", "parts": [{"parameters": ["y"]}]})
    with pytest.raises(ValueError, match=r"kernel.parts\[1\].parameters\[0\]: 'x' is already in "
                                         r"kernel.parts\[0\]"):
        make({"combine": "sum", "parts": [{"parameters": ["x"]}, {"parameters": ["x"]}]})
    with pytest.raises(ValueError, match=r"kernel.parts: must be a non-empty list"):
        make({"combine": "product", "parts": []})
    with pytest.raises(ValueError, match=r"kernel.combine: must be 'product' or 'sum'"):
        make({"combine": "max", "parts": [{"parameters": ["x"]}]})
    with pytest.raises(ValueError, match=r"kernel.parts\[0\].parameters must be adjacent"):
        make({"parts": [{"parameters": ["x", "z"]}]})
    with pytest.raises(ValueError, match=r"kernel.parts\[0\].lengthscal: unknown key"):
        make({"parts": [{"parameters": ["x"], "lengthscal": 1}]})
    with pytest.raises(TypeError, match=r"kernel.parts\[0\].parameters: expected a list"):
        make({"parts": [{"parameters": "x"}]})
    with pytest.raises(ValueError, match=r"needs a domain of named parameters"):
        g.Optimizer({"type": "grid", "lower": [0], "upper": [1], "counts": [5]},
                    kernel={"parts": [{"parameters": ["x"]}]})


def test_composite_kernel_pickles():
    import pickle

    k = g.Optimizer(space(), kernel={"combine": "sum", "parts": [{"parameters": ["x"],
                                                                 "lengthscale": 0.3}]}).kernel
    back = pickle.loads(pickle.dumps(k))
    assert back.describe() == k.describe()
    assert back([0.1, 1, 0, 0, 0, 0.5], [0.2, 0, 1, 0, 0, 0.5]) == k([0.1, 1, 0, 0, 0, 0.5],
                                                                     [0.2, 0, 1, 0, 0, 0.5])
