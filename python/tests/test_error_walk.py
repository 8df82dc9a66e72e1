"""One line for every error (issue #29, item 5): the Python entry points with a table of bad
inputs (directories for files, missing, empty and corrupt files, empty arrays, unknown keys,
misspelt types, wrong shapes). Each must raise a gpbandit.Error (InvalidArgument, IoError, ...)
or a TypeError with one line of text, never an internal message (a C++ exception's, NumPy's, a
lambda's signature, pybind11's overload listing)."""
import json
import os
import re

import numpy as np
import pytest

import gpbandit as g

INTERNAL = re.compile(
    r"basic_string|json\.exception|bad_alloc|std::|_M_|zero-size array|reduction operation|"
    r"<lambda>|Invoked with|incompatible function arguments|got an unexpected keyword|"
    r"positional argument|NoneType|unsupported operand|ufunc|could not convert|invalid literal for|"
    r"object is not subscriptable|object is not iterable|has no attribute|list index out of range")

GRID = {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [4, 4]}


@pytest.fixture
def files(tmp_path):
    """Bad files of every kind, by name."""
    d = tmp_path
    (d / "adir").mkdir()
    (d / "empty.csv").write_text("")
    (d / "comments.csv").write_text("# nothing here\n")
    (d / "garbage.csv").write_text("a,b\n1,x\n")
    (d / "garbage.json").write_text("not json")
    (d / "array.json").write_text("[1, 2]")
    (d / "typo.json").write_text(json.dumps({"domain": GRID, "acquisition": {"type": "ucbb"}}))
    (d / "opt.json").write_text(json.dumps({"domain": GRID}))
    opt = g.Optimizer(GRID, backend="cpu")
    opt.save(str(d / "state.json"))
    state = json.loads((d / "state.json").read_text())
    state["model"]["y_offset"] = "abc"
    (d / "corrupt.json").write_text(json.dumps(state))
    (d / "truncated.json").write_text((d / "state.json").read_text()[:100])
    return {name: str(d / name) for name in (
        "adir", "empty.csv", "comments.csv", "garbage.csv", "garbage.json", "array.json",
        "typo.json", "opt.json", "state.json", "corrupt.json", "truncated.json")} | {
        "missing": str(d / "missing.json"), "root": str(d)}


def cases(files, ctx):
    opt = g.Optimizer(GRID, backend="cpu")
    opt.tell(np.array([[0.0, 0.0]]), [1.0])
    f = files
    return [
        # Optimizer(): the domain in every form, and the options
        ("empty array domain", lambda: g.Optimizer(np.zeros((0, 2)))),
        ("no-column array", lambda: g.Optimizer(np.zeros((3, 0)))),
        ("dict domain, misspelt key", lambda: g.Optimizer({"type": "grid", "lowr": [0],
                                                           "upper": [1], "counts": [3]})),
        ("dict domain, missing key", lambda: g.Optimizer({"type": "grid", "lower": [0]})),
        ("dict domain, misspelt type", lambda: g.Optimizer({"type": "gird"})),
        ("directory as domain file", lambda: g.Optimizer(f["adir"])),
        ("missing domain file", lambda: g.Optimizer(f["missing"])),
        ("empty domain file", lambda: g.Optimizer(f["empty.csv"])),
        ("comments-only domain file", lambda: g.Optimizer(f["comments.csv"])),
        ("garbage domain file", lambda: g.Optimizer(f["garbage.csv"])),
        ("empty list domain", lambda: g.Optimizer([])),
        ("misspelt kernel", lambda: g.Optimizer(GRID, kernel="matern")),
        ("misspelt acquisition", lambda: g.Optimizer(GRID, acquisition="ucbb")),
        ("misspelt beta", lambda: g.Optimizer(GRID, beta={"type": "srinivass"})),
        ("unknown fit key", lambda: g.Optimizer(GRID, fit={"evry": 2})),
        ("bad fit value", lambda: g.Optimizer(GRID, fit={"every": -1})),
        ("bad lengthscale prior", lambda: g.Optimizer(GRID, fit={"lengthscale_prior_scale": 0})),
        ("negative noise", lambda: g.Optimizer(GRID, noise_variance=-1.0)),
        ("bad match tolerance", lambda: g.Optimizer(GRID, match_tolerance=2.0)),
        # loading
        ("load a directory", lambda: g.Optimizer.load(f["adir"])),
        ("load a missing file", lambda: g.Optimizer.load(f["missing"])),
        ("load garbage", lambda: g.Optimizer.load(f["garbage.json"])),
        ("load a corrupt field", lambda: g.Optimizer.load(f["corrupt.json"])),
        ("load a truncated state", lambda: g.Optimizer.load(f["truncated.json"])),
        ("load an array", lambda: g.Optimizer.load(f["array.json"])),
        ("state dict {}", lambda: g.Optimizer.from_state_dict({})),
        ("from_config a directory", lambda: g.Optimizer.from_config(f["adir"])),
        ("from_config missing", lambda: g.Optimizer.from_config(f["missing"])),
        ("from_config misspelt type", lambda: g.Optimizer.from_config(f["typo.json"])),
        # ask / tell / predict / forget / save
        ("ask 0", lambda: opt.ask(0)),
        ("ask more than N", lambda: opt.ask(10**6)),
        ("ask a string", lambda: opt.ask("2")),
        ("tell wrong dimension", lambda: opt.tell(np.array([[0.1, 0.2, 0.3]]), [1.0])),
        ("tell sizes differ", lambda: opt.tell(np.array([[0.1, 0.2]]), [1.0, 2.0])),
        ("tell NaN point", lambda: opt.tell(np.array([[np.nan, 0.2]]), [1.0])),
        ("tell infinite y", lambda: opt.tell([1], [np.inf])),
        ("tell index out of range", lambda: opt.tell([99], [1.0])),
        ("tell strings", lambda: opt.tell("abc", 1.0)),
        ("tell outside the box", lambda: opt.tell(np.array([[5.0, 0.2]]), [1.0])),
        ("predict wrong dimension", lambda: opt.predict(np.zeros((2, 3)))),
        ("predict strings", lambda: opt.predict("x")),
        ("forget an index never asked", lambda: opt.forget([3])),
        ("forget a point never asked", lambda: opt.forget(np.array([[0.5, 0.5]]))),
        ("save to a directory", lambda: opt.save(f["adir"])),
        ("save into a missing folder", lambda: opt.save(os.path.join(f["missing"], "s.json"))),
        # the pipeline
        ("run a directory", lambda: g.run(f["adir"])),
        ("run a missing file", lambda: g.run(f["missing"])),
        ("run garbage", lambda: g.run(f["garbage.json"])),
        ("run an optimizer config", lambda: g.run(f["opt.json"])),
        ("run a number", lambda: g.run(12)),
        ("run an empty dict", lambda: g.run({})),
        ("run a misspelt policy", lambda: g.run({"domain": {"type": "grid", "lower": [0],
                                                            "upper": [1], "counts": [3]},
                                                 "objective": {"type": "rkhs"},
                                                 "policies": [{"type": "gp_ucbb"}]})),
        ("run a command config without T", lambda: g.run(
            {"domain": GRID, "objective": {"type": "command", "cmd": ["true"]}},
            out_dir=os.path.join(f["root"], "c1"))),
        ("run a command config with a misspelt key", lambda: g.run(
            {"domain": GRID, "T": 2, "objective": {"type": "command", "cmd": ["true"],
                                                   "timeout": 5}},
            out_dir=os.path.join(f["root"], "c2"))),
        ("run a command that prints nothing", lambda: g.run(
            {"domain": GRID, "T": 2, "objective": {"type": "command", "cmd": ["true"]}},
            out_dir=os.path.join(f["root"], "c3"))),
        ("run a command config into a file", lambda: g.run(
            {"domain": GRID, "T": 2, "objective": {"type": "command", "cmd": ["true"]}},
            out_dir=f["garbage.json"])),
        ("run a command config with runs", lambda: g.run(
            {"domain": GRID, "T": 2, "objective": {"type": "command", "cmd": ["true"]}},
            out_dir=os.path.join(f["root"], "c4"), runs=2)),
        ("parse_experiment syntax", lambda: g.parse_experiment("{")),
        ("parse_config array", lambda: g.parse_config("[]")),
        ("load_experiment a directory", lambda: g.load_experiment(f["adir"])),
        ("load_config missing", lambda: g.load_config(f["missing"])),
        # the engine
        ("empty Domain.from_rows", lambda: g.Domain.from_rows(np.zeros((0, 2)))),
        ("grid with 0 points", lambda: g.Domain.grid([0.0], [1.0], [0])),
        ("negative lengthscale", lambda: g.Kernel.se(-1.0)),
        ("non-PSD precomputed", lambda: g.Kernel.precomputed(np.array([[1.0, 2], [2, 1]]))),
        ("misspelt policy", lambda: g.make_policy("gp_ucbb", context=ctx,
                                                  domain=g.Domain.indices(3),
                                                  kernel=g.Kernel.se(1.0))),
        ("minimize on a bad box", lambda: g.minimize(lambda x: 0.0, [(0.0,)], n_calls=2)),
    ]


def test_every_entry_point_gives_one_clean_line(files, ctx):
    failures = []
    for label, call in cases(files, ctx):
        try:
            call()
        except (g.Error, TypeError) as e:
            text = str(e)
            if "\n" in text or not text or INTERNAL.search(text):
                failures.append(f"{label}: {type(e).__name__}: {text!r}")
        except Exception as e:  # noqa: BLE001 - the point of the test
            failures.append(f"{label}: {type(e).__name__} (not a gpbandit error): {e!r}")
        else:
            failures.append(f"{label}: did not raise")
    assert not failures, "\n".join(failures)


def test_a_corrupt_state_names_the_field(files):
    with pytest.raises(g.InvalidArgument, match=r"state: model\.y_offset: expected a number, "
                                                r"got \"abc\""):
        g.Optimizer.load(files["corrupt.json"])
