"""Policies built by name and driven from Python."""
import numpy as np
import pytest

import gpbandit as g


def play(policy, f, rounds, noise=None):
    done = 0
    for t in range(1, rounds + 1):
        chosen = policy.select(t, done)
        y = f[chosen]
        if noise is not None:
            y = noise(policy, y)
        policy.observe(chosen, y)
        done += chosen.shape[1]
    return done


def test_gp_ucb_finds_the_maximiser(ctx):
    d = g.Domain.grid([0.0], [1.0], [51])
    x = np.array(d.points)[0]
    f = -((x - 0.7) ** 2)
    pol = g.make_policy("gp_ucb", context=ctx, domain=d, kernel=g.Kernel.se(0.2), runs=3,
                        horizon=25, seed=1, noise_variance=1e-3,
                        beta={"type": "constant", "value": 4.0})
    assert pol.name and pol.runs == 3 and pol.batch_size == 1
    chosen = []
    done = 0
    for t in range(1, 26):
        c = pol.select(t, done)
        assert c.shape == (3, 1) and c.dtype == np.int32
        pol.observe(c, f[c])
        chosen.append(c[:, 0])
        done += 1
    # Noise-free, deterministic objective: every run must have sampled within a grid step of 0.7.
    best = np.abs(x[np.array(chosen)] - 0.7).min(axis=0)
    assert np.all(best <= 0.02 + 1e-12)
    assert pol.ldp_request(0) is None


def test_batch_policy_and_random(ctx):
    d = g.Domain.grid([0.0], [1.0], [30])
    f = np.sin(6 * np.array(d.points)[0])
    bat = g.make_policy("batch_gp_ucb", context=ctx, domain=d, kernel=g.Kernel.se(0.2), runs=2,
                        horizon=12, q=4)
    assert bat.batch_size == 4
    c = bat.select(1, 0)
    assert c.shape == (2, 4)
    assert all(len(set(row)) == 4 for row in c)  # distinct within a batch by default
    bat.observe(c, f[c])
    rnd = g.make_policy("random", context=ctx, domain=d, kernel=g.Kernel.se(0.2), runs=2,
                        horizon=10, seed=3)
    assert play(rnd, f, 10) == 10


def test_ldp_policy_reports_its_ctl_parameters(ctx):
    d = g.Domain.grid([0.0], [1.0], [20])
    pol = g.make_policy("gp_ucb", context=ctx, domain=d, kernel=g.Kernel.se(0.2), runs=2,
                        horizon=5, ldp={"epsilon": 2.0, "B": 1.0, "R": 0.5})
    req = pol.ldp_request(1)
    assert req == {"B": 1.0, "R": 0.5, "epsilon": 2.0, "clip": True}
    ctl = g.CtlMechanism(req["B"], req["R"], req["epsilon"])
    src = g.seeded_source(7)
    f = np.zeros(20)
    play(pol, f, 5, noise=lambda p, y: ctl.privatize(y, src))


def test_bad_policy_parameters(ctx):
    d = g.Domain.grid([0.0], [1.0], [5])
    kw = dict(context=ctx, domain=d, kernel=g.Kernel.se(0.2))
    with pytest.raises(g.InvalidArgument, match="gp_ucb.q"):
        g.make_policy("gp_ucb", q=2, **kw)
    with pytest.raises(g.InvalidArgument, match="unknown policy"):
        g.make_policy("no_such_policy", **kw)
    with pytest.raises(g.InvalidArgument, match="epsilon"):
        g.make_policy("ldp_tgp_ucb", B=1.0, R=1.0, **kw)
    with pytest.raises(g.InvalidArgument, match="runs"):
        g.make_policy("random", runs=0, **kw)
