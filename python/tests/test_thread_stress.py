"""Every public object may be shared between threads: 8 threads × 1000 mixed calls on one
instance of each public class. The objects that release the GIL (Optimizer, run_experiment)
are serialised by a lock in the C++ core; the others hold the GIL for their whole call. A crash
here is a segfault of the interpreter (issue #29, N1); a lost update shows in the counts."""
import json
import threading

import numpy as np
import pytest

import gpbandit as g

THREADS = 8
CALLS = 1000


def on_threads(body):
    """Runs body(thread_index, rng) on THREADS threads started together; re-raises the first
    exception a thread raised."""
    barrier = threading.Barrier(THREADS)
    errors = []

    def run(t):
        rng = np.random.default_rng(100 + t)
        barrier.wait()
        try:
            body(t, rng)
        except BaseException as e:  # noqa: B902 - reported below, with its thread
            errors.append((t, e))

    threads = [threading.Thread(target=run, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise AssertionError(f"thread {errors[0][0]}: {errors[0][1]!r}") from errors[0][1]


def test_one_optimizer_shared_by_eight_threads(tmp_path):
    opt = g.Optimizer({"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [20, 10]},
                      lengthscale=0.3, backend="cpu", threads=1, fit={"restarts": 0,
                                                                      "max_rows": 40})
    lock = threading.Lock()
    counts = {"told": 0, "refused": 0}

    def body(t, rng):
        path = str(tmp_path / f"s{t}.json")
        for _ in range(CALLS):
            pick = rng.uniform()
            try:
                if pick < 0.30:
                    points, index = opt.ask(int(rng.integers(1, 3)))
                    y = np.sin(3 * points[:, 0]) + points[:, 1]
                    if len(opt) >= 250:
                        opt.forget(index)
                    else:
                        opt.tell(index if rng.uniform() < 0.5 else points, y)
                        with lock:
                            counts["told"] += len(y)
                elif pick < 0.35:
                    if len(opt) < 250:
                        opt.tell(rng.uniform(size=2), [0.5])
                        with lock:
                            counts["told"] += 1
                elif pick < 0.50:
                    mean, var = opt.predict(rng.uniform(size=(3, 2)))
                    assert mean.shape == (3,) and (var >= 0).all()
                elif pick < 0.58:
                    assert opt.predict()[0].shape == (200,)
                elif pick < 0.66:
                    assert opt.best.observation >= 0
                elif pick < 0.80:
                    opt.pending, opt.X, opt.y, opt.observed_indices, opt.kernel
                    assert opt.noise_variance > 0 and opt.fits >= 0
                    repr(opt)
                elif pick < 0.86:
                    state = opt.state_dict()
                    assert g.Optimizer.from_state_dict(state).state_dict() == state
                elif pick < 0.90:
                    opt.save(path)
                    assert len(g.Optimizer.load(path)) >= 0
                elif pick < 0.97:
                    opt.forget()
                elif len(opt) >= 5 and pick < 0.975:
                    opt.fit_hyperparameters()
            except g.InvalidArgument:
                with lock:
                    counts["refused"] += 1  # every candidate outstanding, an ask told by another

    on_threads(body)
    assert len(opt) == counts["told"]  # every tell recorded exactly once
    assert counts["told"] > 50 and counts["refused"] < THREADS * CALLS / 2
    state = opt.state_dict()
    assert g.Optimizer.from_state_dict(state).state_dict() == state


def test_one_experiment_run_from_eight_threads(tmp_path):
    cfg = g.parse_experiment(json.dumps({
        "domain": {"type": "grid", "lower": [0], "upper": [1], "counts": [30]},
        "objective": {"type": "rkhs", "support": 5}, "policies": [{"type": "gp_ucb"}],
        "runs": 2, "T": 5, "backend": "cpu", "threads": 1}))
    outputs = [None] * THREADS

    def body(t, rng):
        for i in range(4):
            res = g.run_experiment(cfg, str(tmp_path / f"r{t}-{i}"), progress=False)
            text = open(res.runs_csv).read()
            outputs[t] = outputs[t] or text
            assert text == outputs[t]

    on_threads(body)
    assert all(o == outputs[0] for o in outputs)


def instances(ctx, tmp_path):
    """One instance of each public class, and the calls a thread makes on it."""
    d = g.Domain.grid([0.0, 0.0], [1.0, 1.0], [6, 6])
    k = g.Kernel.se(0.3)
    post = g.FinitePosterior(ctx, k, d)
    pol = g.make_policy("random", context=ctx, domain=d, kernel=k)
    spec = g.DomainSpec.grid([0, 0], [1, 1], [3, 3])
    cfg = g.parse_config('{"domain": {"type": "grid", "lower": [0], "upper": [1], "counts": [5]},'
                         '"objective": {"type": "rkhs"}, "policies": [{"type": "random"}],'
                         '"runs": 1, "T": 2}')
    res = g.run_experiment(cfg, str(tmp_path / "e"), progress=False)
    reg = g.registry()[0]
    opt = g.Optimizer(spec)
    opt.tell([0, 4, 8], [0.5, 1.0, 0.2])
    return {
        "Context": lambda rng: (ctx.backend, ctx.describe()),
        "Domain": lambda rng: (d.size, d.dim, d.points[0, int(rng.integers(36))]),
        "Kernel": lambda rng: (k.describe(), k(rng.uniform(size=2), rng.uniform(size=2))),
        "FinitePosterior": lambda rng: (post.observe(int(rng.integers(36)), rng.normal())
                                        if post.rows < 200 else post.mean().sum()),
        "Policy": lambda rng: (pol.name, pol.runs, pol.batch_size, pol.select(1, 0)),
        "DomainSpec": lambda rng: (spec.kind, spec.dim, repr(spec)),
        "ExperimentConfig": lambda rng: (cfg.name, cfg.config_json),
        "ExperimentResult": lambda rng: (res.out_dir, repr(res)),
        "RegistryEntry": lambda rng: (reg.name, [p.name for p in reg.params]),
        "NoiseSource": lambda rng: g.seeded_source(int(rng.integers(9))),
        "Best": lambda rng: opt.best,
        "HyperFit": lambda rng: repr(opt.fit_hyperparameters()) if rng.uniform() < 0.01 else None,
    }


def test_every_public_class_shared_by_eight_threads(ctx, tmp_path):
    calls = instances(ctx, tmp_path)
    done = {name: 0 for name in calls}
    lock = threading.Lock()

    def body(t, rng):
        for i in range(CALLS):
            name = list(calls)[(t + i) % len(calls)]
            calls[name](rng)
            with lock:
                done[name] += 1

    on_threads(body)
    assert sum(done.values()) == THREADS * CALLS
    assert all(n > 0 for n in done.values())
