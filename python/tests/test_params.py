# gpbandit.params: parameter spaces as Optimizer / minimize domains, points by label.
import itertools
import json

import numpy as np
import pytest

import gpbandit as g
from gpbandit import params as gp

LIGANDS = {"L1": [0.1, 2.0], "L2": [0.4, 1.0], "L3": [0.9, 3.5], "L4": [0.3, 0.5]}


def edbo_like():
    return gp.ParameterSpace(
        [gp.Categorical("base", ["KOAc", "CsOAc", "KOPiv"]),
         gp.Categorical("ligand", list(LIGANDS), encoding=LIGANDS),
         gp.NumericalDiscrete("conc", [0.057, 0.1, 0.153]),
         gp.Integer("temp", 90, 120, 15)],
        constraints=[gp.Exclude({"base": ["KOPiv"], "temp": [120]})])


def brute_force(space):
    names = [p.name for p in space.parameters]
    levels = []
    for p in space.parameters:
        if isinstance(p, gp.Categorical):
            levels.append(p.labels)
        elif isinstance(p, gp.Integer):
            levels.append(list(range(p.lower, p.upper + 1, p.step)))
        else:
            levels.append(sorted(p.values))
    out = []
    for combo in itertools.product(*reversed(levels)):  # parameter 0 fastest
        out.append(dict(zip(names, reversed(combo))))
    return out


def test_len_getitem_iteration_and_index_match_a_brute_force_product():
    space = edbo_like()
    want = [r for r in brute_force(space) if not (r["base"] == "KOPiv" and r["temp"] == 120)]
    assert space.raw_size == 3 * 4 * 3 * 3
    assert len(space) == len(want)
    assert list(space) == want
    assert space[-1] == want[-1] and space[3:6] == want[3:6]
    for k in (0, 7, len(space) - 1):
        assert space.index(space[k]) == k
    assert isinstance(space[0]["temp"], int) and isinstance(space[0]["conc"], float)
    assert {"base": "KOPiv", "ligand": "L1", "conc": 0.1, "temp": 120} not in space
    with pytest.raises(ValueError, match="violates a constraint"):
        space.index({"base": "KOPiv", "ligand": "L1", "conc": 0.1, "temp": 120})
    with pytest.raises(ValueError, match="parameter 'ligand'"):
        space.index({"base": "KOAc", "ligand": "L9", "conc": 0.1, "temp": 90})


def test_encodings_follow_the_direct_formulas():
    space = edbo_like()
    x = space.encode(space.index({"base": "CsOAc", "ligand": "L3", "conc": 0.1, "temp": 105}))
    table = np.array(list(LIGANDS.values()))
    z = (table - table.mean(axis=0)) / table.std(axis=0)  # population sd, per column
    assert space.n_features == 3 + 2 + 1 + 1
    np.testing.assert_allclose(x[:3], [0, 1, 0])
    np.testing.assert_allclose(x[3:5], z[2])
    np.testing.assert_allclose(x[5], (0.1 - 0.057) / (0.153 - 0.057))
    np.testing.assert_allclose(x[6], 0.5)
    block = space.encode_range(5, 9)
    assert block.shape == (4, 7)
    np.testing.assert_array_equal(block[1], space.encode(6))


def test_bad_input_names_the_parameter_or_constraint():
    with pytest.raises(ValueError, match="'lig'"):
        gp.Categorical("lig", ["a", "b"], encoding={"a": [1.0]})
    with pytest.raises(TypeError, match="'n'"):
        gp.Integer("n", 1.5, 3)
    with pytest.raises(ValueError, match="no parameter named 'nope'"):
        gp.ParameterSpace([gp.Integer("n", 0, 3)], [gp.LinearInequality(["nope"], [1], 2)])
    with pytest.raises(ValueError, match=r"no combination .* constraints\[0\] \(linear"):
        gp.ParameterSpace([gp.Integer("a", 0, 3), gp.Integer("b", 0, 3)],
                          [gp.LinearInequality(["a", "b"], [1, 1], -1)])


def test_optimizer_asks_and_is_told_points_by_label():
    space = edbo_like()

    def yield_of(p):
        return (LIGANDS[p["ligand"]][0] + (p["base"] == "CsOAc") + p["conc"] * 3
                - abs(p["temp"] - 105) / 30)

    opt = g.Optimizer(space, seed=3)
    for _ in range(6):
        s = opt.ask(3)
        assert len(s.points) == 3
        for p in s.points:
            assert set(p) == {"base", "ligand", "conc", "temp"}
            assert p in space  # every proposal is feasible
        opt.tell(s.points, [yield_of(p) for p in s.points])
    best = opt.best
    assert best.x in space and best.y == max(yield_of(p) for p in opt.X)
    again = g.Optimizer.from_state_dict(json.loads(json.dumps(opt.state_dict())))
    assert again.X == opt.X and len(again.space) == len(space)


@pytest.mark.filterwarnings("ignore::gpbandit.ModelWarning")  # repeats once converged
def test_minimize_over_a_constrained_space_only_proposes_feasible_points():
    space = gp.ParameterSpace(
        [gp.Integer("a", 0, 9), gp.Integer("b", 0, 9), gp.Categorical("c", ["x", "y", "z"])],
        [gp.LinearInequality(["a", "b"], [1, 1], 10), gp.Exclude({"c": "z", "a": [0, 1, 2]})])
    seen = []

    def f(p):
        seen.append(p)
        return (p["a"] - 6) ** 2 + (p["b"] - 3) ** 2 + (p["c"] != "y")

    res = g.minimize(f, space, n_calls=30, random_state=0)
    assert len(seen) == 30
    for p in seen:
        assert isinstance(p["a"], int) and isinstance(p["b"], int)
        assert p["a"] + p["b"] <= 10 and not (p["c"] == "z" and p["a"] <= 2)
    evaluated = list(seen)
    assert res.fun == min(f(p) for p in evaluated)
    # The result reports points by name, as they were evaluated (not the names alone).
    assert res.x_iters == evaluated and res.x == evaluated[int(np.argmin(res.func_vals))]


@pytest.mark.filterwarnings("ignore::gpbandit.ModelWarning")
def test_minimize_with_integer_and_categorical_dimensions_never_proposes_non_integers():
    seen = []

    def f(x):
        seen.append(list(x))
        return (x[0] - 3) ** 2 + (x[1] != "b") + (x[2] + 4) ** 2

    g.minimize(f, [g.Integer(0, 8), g.Categorical(["a", "b", "c"]), (-6, 6)], n_calls=30,
               random_state=4)
    assert len(seen) == 30
    for a, c, b in seen:
        assert isinstance(a, int) and 0 <= a <= 8 and c in ("a", "b", "c")
        assert isinstance(b, int) and -6 <= b <= 6


def test_exclude_observed_never_asks_a_measured_combination_again():
    space = edbo_like()
    opt = g.Optimizer(space, acquisition="ucb", beta=1e-6, noise_variance=0.5, fit_every=0,
                      exclude_observed=True, seed=1)
    assert opt._core.exclude_observed
    seen = []
    for _ in range(len(space)):  # every feasible combination once, then none is left
        p = opt.ask(1).points[0]
        assert p not in seen
        seen.append(p)
        opt.tell(p, 1.0 if p["ligand"] == "L3" else 0.0)
    with pytest.raises(g.InvalidArgument, match="exclude_observed"):
        opt.ask(1)
    with pytest.raises(TypeError, match="exclude_observed"):
        g.Optimizer(space, exclude_observed="yes")


def test_a_space_too_big_for_memory_is_refused_before_it_is_built():
    # 8 one-hot slots of 14 labels: 14^8 combinations of 112 features, about 2.7 TB as an
    # Optimizer's domain and 48.7 GB even streamed; refused at once with a ValueError naming
    # the count.
    labels = [f"L{i}" for i in range(14)]
    space = gp.ParameterSpace([gp.Categorical(f"s{k}", labels) for k in range(8)])
    assert len(space) == 14 ** 8
    with pytest.raises(ValueError, match=r"domain.parameters: the space has 1475789056 feasible"):
        g.Optimizer(space)


def test_a_space_over_the_memory_budget_streams_and_asks_the_same():
    # Materialised, this space's Optimizer holds (16·d + 33) bytes per combination (~39 kB);
    # under a 1 kB memory budget it streams its encodings instead, and must ask exactly the
    # combinations the materialised one asks (the engine's arithmetic is the same).
    space = gp.ParameterSpace(
        [gp.Categorical("base", ["KOAc", "CsOAc", "KOPiv", "NaOAc"]),
         gp.Categorical("ligand", list(LIGANDS), encoding=LIGANDS),
         gp.NumericalDiscrete("conc", [0.057, 0.1, 0.153, 0.2]),
         gp.Integer("temp", 90, 135, 15)],
        constraints=[gp.Exclude({"base": ["KOPiv"], "temp": [120]})])
    need = len(space) * (16 * space.n_features + 33)

    def yield_of(p):
        return (LIGANDS[p["ligand"]][0] + (p["base"] == "CsOAc") + p["conc"] * 3
                - abs(p["temp"] - 105) / 30)

    def run(budget):
        opt = g.Optimizer(space, acquisition="ucb", seed=5, memory_budget_bytes=budget,
                          exclude_observed=True, initial_points=2)
        asked = []
        for _ in range(6):
            s = opt.ask(2)
            asked += [dict(p) for p in s.points]
            opt.tell(s.points, [yield_of(p) for p in s.points])
        return opt, asked

    held, held_asks = run(100 * need)
    streamed, streamed_asks = run(1024)
    assert not held.streams and streamed.streams
    assert streamed_asks == held_asks
    assert all(p in space for p in streamed_asks)
    with pytest.raises(ValueError, match="streamed"):
        streamed.candidates


@pytest.mark.parametrize("budget", [None, 1024])
def test_a_point_off_the_space_is_told_as_an_extra_observation(budget):
    # A reaction run at a concentration and a temperature off their lists: the Optimizer
    # (materialised, and streamed under a 1 kB budget) conditions on it, reports it by its own
    # values, and never proposes it; a label off its list has no encoding and stays refused.
    space = gp.ParameterSpace(
        [gp.Categorical("base", ["KOAc", "CsOAc", "KOPiv"]),
         gp.Categorical("ligand", list(LIGANDS), encoding=LIGANDS),
         gp.NumericalDiscrete("conc", [0.057, 0.1, 0.153, 0.2]),
         gp.Integer("temp", 90, 135, 15)])
    kw = {} if budget is None else {"memory_budget_bytes": budget}
    opt = g.Optimizer(space, acquisition="ucb", seed=3, initial_points=0, **kw)
    assert opt.streams == (budget is not None)
    off = {"base": "CsOAc", "ligand": "L3", "conc": 0.08, "temp": 97}
    assert off not in space
    on = {"base": "KOAc", "ligand": "L1", "conc": 0.2, "temp": 135}
    opt.tell([off, on], [5.0, 0.0])
    assert len(opt) == 2
    assert opt.best.x == off and opt.best.index == -1
    mean, _ = opt.predict([list(off.values()), list(on.values())])
    assert mean[0] > 4.0 and mean[1] < 1.0  # the posterior conditions on the told values
    for _ in range(4):
        s = opt.ask(2)
        assert all(p in space for p in s.points)  # an extra is never proposed
        opt.tell(s.points, [1.0, 0.0])
    with pytest.raises(ValueError, match="ligand"):
        opt.tell([dict(off, ligand="L9")], [1.0])
    with pytest.raises(ValueError, match="conc"):
        opt.tell([dict(off, conc="warm")], [1.0])


@pytest.mark.parametrize("budget", [None, 1024])
def test_continuous_parameters_are_refined_between_their_grid_values(budget):
    # T and p are continuous with 4 and 3 grid values; the optimum (cat b, T = 47.3, p = 0.61)
    # lies between them: the best grid combination has 0.594. The refinement moves T and p only
    # (cat stays a label), held and streamed alike, and goes well below the grid's best.
    space = gp.ParameterSpace([gp.Categorical("cat", ["a", "b", "c"]),
                               gp.Continuous("T", 20, 80, count=4),
                               gp.Continuous("p", 0, 1, count=3)])

    def f(x):
        return ((x["T"] - 47.3) ** 2 / 100 + 5 * (x["p"] - 0.61) ** 2
                + (0 if x["cat"] == "b" else 1))

    kw = {} if budget is None else {"memory_budget_bytes": budget}
    opt = g.Optimizer(space, minimize=True, seed=4, **kw)
    assert opt.streams == (budget is not None)
    off_grid = 0
    for _ in range(30):
        s = opt.ask()
        x = s.points[0]
        assert x["cat"] in ("a", "b", "c")
        assert 20 <= x["T"] <= 80 and 0 <= x["p"] <= 1
        off_grid += int(s.indices[0] < 0 and (x["T"] not in (20, 40, 60, 80)
                                              or x["p"] not in (0, 0.5, 1)))
        opt.tell([x], [f(x)])
    assert off_grid >= 10
    assert opt.best.y < 0.05 and opt.best.x["cat"] == "b"


def test_a_space_and_an_optimizer_over_it_pickle():
    # The space is rebuilt from its JSON form; the optimizer continues bit for bit, refined
    # continuous values and all.
    import pickle
    space = gp.ParameterSpace(
        [gp.Categorical("ligand", list(LIGANDS), encoding=LIGANDS), gp.Integer("n", 1, 4),
         gp.Continuous("T", 20, 80, count=4)],
        constraints=[gp.LinearInequality(["n", "T"], [10, 1], 100),
                     gp.Exclude({"ligand": ["L4"], "n": [1]})])
    copy = pickle.loads(pickle.dumps(space))
    assert copy.to_json() == space.to_json() and list(copy) == list(space)
    opt = g.Optimizer(space, minimize=True, seed=1)
    for _ in range(8):
        s = opt.ask()
        opt.tell(s.points, [abs(s.points[0]["T"] - 47.3) + s.points[0]["n"]])
    again = pickle.loads(pickle.dumps(opt))
    assert [opt.ask().points for _ in range(3)] == [again.ask().points for _ in range(3)]


def test_principal_components_shrink_a_descriptor_table():
    # The scores of the standardised descriptors against NumPy's eigen-decomposition of their
    # covariance: the same distances between labels in the kept components (the scores are
    # unique up to sign, shift and the one common scale), the variance share reached, the first
    # component spanning [0, 1]; a space takes the result as a Categorical's encoding.
    rng = np.random.default_rng(7)
    base = rng.normal(size=(6, 2))
    desc = np.hstack([base @ rng.normal(size=(2, 9)) + rng.normal(scale=0.05, size=(6, 9)),
                      np.ones((6, 1))])  # nearly rank 2, and a constant column
    table = {f"L{i}": desc[i].tolist() for i in range(6)}
    pcs = gp.principal_components(table, share=0.95)
    rows = np.array([pcs[f"L{i}"] for i in range(6)])
    z = desc[:, :-1]
    z = (z - z.mean(axis=0)) / z.std(axis=0)
    w, v = np.linalg.eigh(z.T @ z)
    w, v = w[::-1], v[:, ::-1]
    k = int(np.searchsorted(np.cumsum(w) / w.sum(), 0.95) + 1)
    assert rows.shape == (6, k) and k == 2
    ref = z @ v[:, :k]
    scale = np.ptp(ref[:, 0])
    d_got = np.linalg.norm(rows[:, None] - rows[None], axis=2)
    d_ref = np.linalg.norm(ref[:, None] - ref[None], axis=2) / scale
    np.testing.assert_allclose(d_got, d_ref, atol=1e-12)
    assert rows[:, 0].min() == 0 and abs(rows[:, 0].max() - 1) < 1e-12
    assert (rows.min(axis=0) == 0).all()
    assert len(gp.principal_components(table, share=1.0)["L0"]) == 5  # at most labels - 1
    space = gp.ParameterSpace([gp.Categorical("ligand", list(table), encoding=pcs)])
    assert space.n_features == k
    for bad, msg in (({"a": [1.0]}, "two labels"), ({"a": [1.0], "b": [1.0]}, "the same"),
                     (table, "share")):
        with pytest.raises(ValueError, match=msg):
            gp.principal_components(bad, share=0.0 if msg == "share" else 0.95)
