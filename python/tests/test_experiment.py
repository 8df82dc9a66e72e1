"""Running an experiment from Python: outputs, summary.json's version, config errors."""
import json
import os

import pytest

import gpbandit as g

CONFIG = {
    "name": "py-test",
    "seed": 3,
    "runs": 2,
    "T": 15,
    "backend": "cpu",
    "domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [8, 8]},
    "kernel": {"type": "se", "lengthscale": 0.3},
    "objective": {"type": "rkhs", "support": 20},
    "noise": {"type": "gaussian", "sd": 0.1},
    "policies": [{"type": "gp_ucb", "label": "GP-UCB"}, {"type": "random", "label": "random"}],
}


def test_run_from_dict(tmp_path):
    res = g.run(CONFIG, out_dir=str(tmp_path))
    assert [p.label for p in res.policies] == ["GP-UCB", "random"]
    assert os.path.exists(res.runs_csv) and not res.plotted
    with open(res.summary_json) as f:
        summary = json.load(f)
    assert summary["version"] == g.__version__
    gp, rnd = res.policies
    assert gp.cumulative_mean >= 0 and rnd.cumulative_mean >= 0
    # Same seed, same results.
    again = g.run(CONFIG, out_dir=str(tmp_path / "again"))
    assert again.policies[0].cumulative_mean == gp.cumulative_mean


def test_config_file_and_overrides(tmp_path):
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(CONFIG))
    cfg = g.load_config(str(path))
    assert (cfg.name, cfg.runs, cfg.horizon) == ("py-test", 2, 15)
    assert [p.type for p in cfg.policies] == ["gp_ucb", "random"]
    res = g.run(path, out_dir=str(tmp_path / "out"), runs=1)
    with open(res.summary_json) as f:
        assert json.load(f)["runs"] == 1


def test_bad_config_names_the_field(tmp_path):
    bad = dict(CONFIG, runs=0)
    with pytest.raises(g.InvalidArgument, match="runs"):
        g.run(bad, out_dir=str(tmp_path))


def test_registry_lists_policies():
    names = {e.name for e in g.registry() if e.kind == "policy"}
    assert {"gp_ucb", "batch_gp_ucb", "random"} <= names
