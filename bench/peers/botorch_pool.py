#!/usr/bin/env python3
"""BoTorch beside gpbandit on bench/pool_scale.py's synthetic fingerprint pools: one ask of a 1 %
batch after t observations, single-threaded ([pools] issue #31 item 3, "BoTorch's
optimize_acqf_discrete on the same N where it runs at all").

The pool and the observations are pool_scale.py's (its generator and seed: N random fingerprints
of `--bits` bits at `--density`; t seeded distinct candidates with standard-normal rewards). Both
models are the same exact GP: Tanimoto kernel with output scale 1, noise variance 0.05, zero prior
mean, hyperparameters fixed (no fitting). BoTorch's side is a SingleTaskGP whose covar_module is a
ScaleKernel around the Tanimoto (Jaccard) kernel written below as a GPyTorch Kernel (the formula
GAUCHE uses, which is not installed here), on the fingerprints unpacked to an N × bits float64
tensor, as a BoTorch user holds them; GPyTorch solves by Cholesky at every t measured here
(max_cholesky_size raised: its default of 800 would switch to conjugate gradients at t = 1000),
so both posteriors are exact.

What is timed, per (N, t), each in its own child process (CPU seconds of that process; wall
seconds in the JSON):
  gpbandit  FinitePosterior.observe_batch of the t observations from scratch (one block update),
            then pool_scale.py's ask: greedy = the q largest means, UCB = the q largest μ + 2σ;
  gpbandit_mean  the greedy batch from scratch with a recompute-mode FinitePosterior: observe_batch
            appends only the factor (O(t³), nothing N-sized), mean() is K(D, X_t)·β (O(N·t)
            kernel values, no V), then the q largest means; its batch is compared with the
            incremental one wherever that finishes;
  posterior BoTorch by hand: model.posterior of 2048 candidates at a time, μ and σ², then the
            same two batches (the cheapest exact route);
  greedy, ucb  BoTorch's scoring of every candidate as optimize_acqf_discrete does it (the
            acquisition on choices.unsqueeze(-2) in batches), then the q best: PosteriorMean for
            greedy, UpperConfidenceBound(beta=4) (μ + 2σ) for UCB, each on a fresh model;
  qucb      what BoTorch offers for q > 1: optimize_acqf_discrete(qUpperConfidenceBound(beta=4,
            512 seeded Sobol samples), q, choices): q sequential passes over every candidate, each
            conditioning on the picks so far (a batch-aware choice like GP-BUCB, not the top q of
            a fixed score, so not comparable pick by pick). Stopped after `--cap-s` CPU seconds
            and reported with the picks it had made.
q = N/100. A cell that cannot fit (the choices tensor, 9·N·bits bytes with a batch, or
gpbandit's V, 8·N·t bytes, above half the memory available) is reported as not run; a BoTorch
cell is not started once a smaller one of its kind did not finish, or when scaling a smaller one
that finished predicts more than 3 caps. The greedy and UCB batches are compared between gpbandit
and every BoTorch cell that ran, as sets (both rules are deterministic), with the largest |Δμ|
and |Δσ²| over all N against BoTorch's posterior.

Usage: botorch_pool.py --build build-cpu [--n 1000 10000 100000 1000000] [--t 100 1000]
           [--cap-s 60] [--kinds posterior greedy ucb qucb] [--out bench/peers/botorch_pool.json]
           [--results bench/RESULTS.md]
       botorch_pool.py --build build-cpu --n 100000 --t 100 1000 --kinds posterior --cap-s 300 \
           --out bench/peers/botorch_pool-posterior.json      (a rerun of some cells)
       botorch_pool.py --from-json bench/peers/botorch_pool.json \
           [--also bench/peers/botorch_pool-posterior.json] --results bench/RESULTS.md
       botorch_pool.py --build build-cpu --merge bench/peers/botorch_pool.json \
           [--n ...] [--t ...] [--also bench/peers/botorch_pool-posterior.json] \
           --results bench/RESULTS.md
           (only gpbandit's cells: the mean-only greedy and, for the comparison, the incremental
           one where it finished in FILE; written into FILE's matching cells, BoTorch's kept)
       botorch_pool.py --build build-cpu --smoke        (CTest: tiny N; exit 77 without torch)
Run it with a Python that has torch, gpytorch and botorch and can import the build's module.
Exits 1 when a greedy or UCB batch differs between the two.
"""
import argparse
import json
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # every measurement here is single-threaded, children included

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import pool_scale  # noqa: E402
import results_section  # noqa: E402

from botorch_pool_table import BEGIN, END, NOISE, TITLE, section  # noqa: E402

BETA = 4.0  # BoTorch's beta multiplies σ²: μ + 2σ, pool_scale.py's UCB
BATCH = 2048  # optimize_acqf_discrete's default max_batch_size


def observations(n, t, seed):
    """pool_scale.py's observations: t distinct seeded candidates, standard-normal rewards."""
    rng = np.random.default_rng(seed + 1)
    order = rng.choice(n, size=t, replace=False).astype(np.int64)
    return order, rng.standard_normal(t)


def batch_set(values, q):
    """The q largest values as a sorted index array, and the gap between the q-th and the
    (q+1)-th value (a tie there would make the set ambiguous)."""
    idx = pool_scale.top(values, q)
    rest = np.delete(values, idx)
    gap = float(values[idx].min() - rest.max()) if rest.size else float("inf")
    return np.sort(idx), gap


def usage():
    return {"cpu_s": time.process_time(), "wall_s": time.perf_counter()}


def since(u):
    return {"cpu_s": time.process_time() - u["cpu_s"], "wall_s": time.perf_counter() - u["wall_s"]}


# ---- children: one cell each ------------------------------------------------------------------

def observed_posterior(words, bits, t, seed, build, mode):
    """gpbandit's posterior over the pool after the t observations from scratch (one
    observe_batch), with the seconds it took, its context, the batch size q and the greedy batch
    (the q largest μ) with its seconds."""
    sys.path.insert(0, os.path.join(build, "python"))
    import gpbandit as gb
    n = len(words)
    q = max(1, n // 100)
    order, y = observations(n, t, seed)
    dom = gb.Domain.from_fingerprints(words, bits)
    ctx = gb.Context("cpu", threads=1)
    u = usage()
    post = gb.FinitePosterior(ctx, gb.Kernel.tanimoto(), dom, 1, noise_variance=NOISE,
                              capacity=t, mode=mode)
    post.observe_batch(order, y)
    observe = since(u)
    u = usage()
    greedy, greedy_gap = batch_set(post.mean(0, copy=False), q)
    return post, ctx, q, observe, (greedy, greedy_gap, since(u))


def cell_gpbandit(words, bits, t, seed, build, save):
    post, ctx, q, observe, (greedy, greedy_gap, ask_greedy) = observed_posterior(
        words, bits, t, seed, build, "incremental")
    u = usage()
    score = post.mean(0, copy=False) + 2.0 * np.sqrt(post.variance(0, copy=False))
    ucb, ucb_gap = batch_set(score, q)
    ask_ucb = since(u)
    np.savez(save, greedy=greedy, ucb=ucb, mu=post.mean(0), var=post.variance(0))
    return {"observe": observe, "ask_greedy": ask_greedy, "ask_ucb": ask_ucb,
            "greedy_gap": greedy_gap, "ucb_gap": ucb_gap, "threads": ctx.threads}


def cell_gpbandit_mean(words, bits, t, seed, build, save):
    """The greedy batch from scratch reading only μ: a recompute-mode posterior keeps the factor
    (observe_batch: O(t³), nothing N-sized) and its mean() is K(D, X_t)·β, O(N·t), no V."""
    post, ctx, _, observe, (greedy, greedy_gap, ask_greedy) = observed_posterior(
        words, bits, t, seed, build, "recompute")
    np.savez(save, greedy=greedy, mu=post.mean(0))
    return {"observe": observe, "ask_greedy": ask_greedy, "greedy_gap": greedy_gap,
            "threads": ctx.threads, "recompute_mode": "recompute" in repr(post)}


def botorch_model(X, order, y):
    import gpytorch
    import torch
    from botorch.models import SingleTaskGP

    class Tanimoto(gpytorch.kernels.Kernel):
        """k(x, x') = ⟨x, x'⟩ / (|x|² + |x'|² − ⟨x, x'⟩) on 0/1 vectors (Jaccard similarity)."""
        has_lengthscale = False

        def forward(self, x1, x2, diag=False, **params):
            if diag:
                return torch.ones(x1.shape[:-1], dtype=x1.dtype, device=x1.device)
            dot = x1 @ x2.transpose(-2, -1)
            n1 = x1.square().sum(-1, keepdim=True)
            n2 = x2.square().sum(-1, keepdim=True).transpose(-2, -1)
            return dot / (n1 + n2 - dot).clamp_min(1e-12)

    kernel = gpytorch.kernels.ScaleKernel(Tanimoto())
    kernel.outputscale = 1.0
    likelihood = gpytorch.likelihoods.GaussianLikelihood()
    likelihood.noise = NOISE
    train_y = torch.from_numpy(y).to(torch.float64).unsqueeze(-1)
    model = SingleTaskGP(X[torch.from_numpy(order)], train_y, covar_module=kernel,
                         likelihood=likelihood, outcome_transform=None, input_transform=None)
    model.mean_module.constant.data.fill_(0.0)
    model.eval()
    return model


def dense_choices(words):
    """The fingerprints as a BoTorch user holds them: N × bits float64 of 0/1."""
    import torch
    bits = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")
    return torch.from_numpy(bits).to(torch.float64)


def batch_size(t, bits):
    """optimize_acqf_discrete's max_batch_size: its default 2048, lowered so that one batch's
    inputs with the training points copied in (batch × (t + 1) × bits doubles: GPyTorch
    concatenates the training inputs to every candidate of a t-batch) stay under 1 GiB, as its
    docstring tells a user with a large training set to do."""
    return int(max(1, min(BATCH, 2**30 // (8 * (t + 1) * bits))))


def cell_score(kind, words, t, seed, save):
    """greedy (PosteriorMean) or ucb (UpperConfidenceBound): every candidate scored as
    optimize_acqf_discrete scores them (choices.unsqueeze(-2) in batches), then the q best."""
    import gpytorch
    import torch
    from botorch.acquisition import PosteriorMean, UpperConfidenceBound
    n, bits = words.shape[0], 64 * words.shape[1]
    q = max(1, n // 100)
    order, y = observations(n, t, seed)
    X = dense_choices(words)
    choices = X.unsqueeze(-2)
    size = batch_size(t, bits)
    with torch.no_grad(), gpytorch.settings.max_cholesky_size(10**7):
        model = botorch_model(X, order, y)
        u = usage()
        acq = PosteriorMean(model) if kind == "greedy" else UpperConfidenceBound(model, beta=BETA)
        values = torch.cat([acq(choices[s:s + size]) for s in range(0, n, size)])
        best = torch.topk(values, q).indices.numpy()
        r = {"ask": since(u), "batch_size": size}
    values = values.numpy()
    r["gap"] = batch_set(values, q)[1]
    np.savez(save, **{kind: np.sort(best)})
    return r


def cell_posterior(words, t, seed, save):
    """The cheapest exact way by hand: model.posterior of 2048 candidates at a time (one joint
    posterior, no per-candidate copy of the training inputs), its mean and variance, then the q
    largest μ and the q largest μ + 2σ."""
    import gpytorch
    import torch
    n = len(words)
    q = max(1, n // 100)
    order, y = observations(n, t, seed)
    X = dense_choices(words)
    with torch.no_grad(), gpytorch.settings.max_cholesky_size(10**7):
        model = botorch_model(X, order, y)
        u = usage()
        mu, var = [], []
        for s in range(0, n, BATCH):
            p = model.posterior(X[s:s + BATCH])
            mu.append(p.mean.squeeze(-1))
            var.append(p.variance.squeeze(-1))
        mu, var = torch.cat(mu).numpy(), torch.cat(var).numpy()
        greedy = torch.topk(torch.from_numpy(mu), q).indices.numpy()
        ucb = torch.topk(torch.from_numpy(mu + 2.0 * np.sqrt(var)), q).indices.numpy()
        r = {"ask": since(u)}
    np.savez(save, greedy=np.sort(greedy), ucb=np.sort(ucb), mu=mu, var=var)
    return r


def cell_qucb(words, t, seed):
    import gpytorch
    import torch
    from botorch.acquisition import qUpperConfidenceBound
    from botorch.optim import optimize_acqf_discrete
    from botorch.sampling import SobolQMCNormalSampler
    n = len(words)
    q = max(1, n // 100)
    order, y = observations(n, t, seed)
    X = dense_choices(words)
    start = time.process_time()

    class Counted(qUpperConfidenceBound):
        """qUCB that reports each pick of optimize_acqf_discrete (it sets X_pending after each)."""

        def set_X_pending(self, X_pending=None):
            super().set_X_pending(X_pending)
            if X_pending is not None:
                print(f"pick {len(X_pending)} {time.process_time() - start:.3f}",
                      file=sys.stderr, flush=True)

    with gpytorch.settings.max_cholesky_size(10**7):
        model = botorch_model(X, order, y)
        u = usage()
        sampler = SobolQMCNormalSampler(sample_shape=torch.Size([512]), seed=0)
        acq = Counted(model, beta=BETA, sampler=sampler)
        size = batch_size(t + q, 64 * words.shape[1])
        cand, _ = optimize_acqf_discrete(acq, q=q, choices=X, max_batch_size=size)
        r = since(u)
    return {"ask": r, "picks": int(cand.shape[0]), "batch_size": size}


def run_cell(args):
    words = np.load(args.pool)
    if args.cell in GPBANDIT_KINDS:  # torch is not imported here
        cell = cell_gpbandit if args.cell == "gpbandit" else cell_gpbandit_mean
        r = cell(words, args.bits, args.t[0], args.seed, args.build, args.save)
        r["max_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        print(json.dumps(r))
        return 0
    import torch
    torch.set_num_threads(1)
    if args.cell in ("greedy", "ucb"):
        r = cell_score(args.cell, words, args.t[0], args.seed, args.save)
    elif args.cell == "posterior":
        r = cell_posterior(words, args.t[0], args.seed, args.save)
    else:
        r = cell_qucb(words, args.t[0], args.seed)
    r["max_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    r["torch_threads"] = torch.get_num_threads()
    print(json.dumps(r))
    return 0


# ---- parent: the ladder ------------------------------------------------------------------------

def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def child(args, kind, pool, t, save=None):
    """One cell in its own process, stopped after args.cap_s seconds of its CPU time (RLIMIT_CPU:
    on a shared machine wall time measures the neighbours), or 8 times that in wall time."""
    cmd = [sys.executable, os.path.abspath(__file__), "--cell", kind, "--pool", pool,
           "--t", str(t), "--bits", str(args.bits), "--seed", str(args.seed)]
    if args.build:
        cmd += ["--build", args.build]
    if save:
        cmd += ["--save", save]
    cap = int(args.cap_s)

    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 10))

    print(f"  {kind} t = {t} ...", file=sys.stderr, flush=True)
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=8 * cap + 60, preexec_fn=limit)
        err, capped = p.stderr.decode(), p.returncode in (-signal.SIGXCPU, -signal.SIGKILL)
    except subprocess.TimeoutExpired as e:
        err, capped = (e.stderr or b"").decode(), True
    if capped:
        picks = [ln.split() for ln in err.splitlines() if ln.startswith("pick ")]
        r = {"status": "cap"}
        if picks:
            r.update(picks_done=int(picks[-1][1]), last_pick_cpu_s=float(picks[-1][2]))
        print(f"  {kind} t = {t}: did not finish in {cap} CPU s {r}", file=sys.stderr)
        return r
    if p.returncode != 0:
        raise SystemExit(f"botorch_pool.py: the {kind} cell (t = {t}) failed:\n" + err[-3000:])
    r = json.loads(p.stdout.decode().splitlines()[-1])
    r["status"] = "ok"
    print(f"  {kind} t = {t}: {json.dumps(r)}", file=sys.stderr, flush=True)
    return r


def compare(files, ran):
    """gpbandit's greedy and UCB batches against every BoTorch cell that ran, and the largest
    differences of μ and σ² against BoTorch's posterior."""
    mine = np.load(files["gpbandit"])
    r = {"same_greedy": True, "same_ucb": True, "against": []}
    for kind in ran:
        theirs = np.load(files[kind])
        r["against"].append(kind)
        for name in ("greedy", "ucb"):
            if name in theirs.files:
                r["same_" + name] &= bool(np.array_equal(mine[name], theirs[name]))
        if "mu" in theirs.files:
            r["max_abs_dmu"] = float(np.abs(mine["mu"] - theirs["mu"]).max())
            r["max_abs_dvar"] = float(np.abs(mine["var"] - theirs["var"]).max())
    return r


def compare_mean_only(files):
    """The mean-only greedy batch against the incremental one: same set, largest |Δμ|."""
    inc, mean = np.load(files["gpbandit"]), np.load(files["gpbandit_mean"])
    return {"same_greedy": bool(np.array_equal(inc["greedy"], mean["greedy"])),
            "max_abs_dmu": float(np.abs(inc["mu"] - mean["mu"]).max())}


def blocked(failed, n, t):
    """A smaller (or equal) cell of the same kind that did not finish or fit."""
    return next(((fn, ft) for fn, ft in failed if fn <= n and ft <= t), None)


def predicted(done, kind, n, t):
    """The CPU seconds of a BoTorch cell scaled from the largest smaller one of its kind that
    finished: N·t for the scoring cells (K(N, X_t) and its solves), N²·t for qUCB (q = N/100
    passes over N candidates); None when there is none."""
    prior = [(fn, ft, s) for fn, ft, s in done[kind] if fn <= n and ft <= t]
    if not prior:
        return None
    fn, ft, s = max(prior, key=lambda p: p[0] * p[1])
    grow = (n / fn) * (t / ft) * (n / fn if kind == "qucb" else 1.0)
    return {"from": (fn, ft), "seconds": s * grow}


BOTORCH_KINDS = ("posterior", "greedy", "ucb", "qucb")
GPBANDIT_KINDS = ("gpbandit", "gpbandit_mean")


def needs(kind, n, t, bits):
    """Bytes a BoTorch cell holds: the choices (float64 and the unpacked bits), plus a 1 GiB
    batch for the acquisition cells, plus the 2048 × t cross-covariance for posterior."""
    x = 9 * n * bits
    return x + (2**30 if kind != "posterior" else 8 * BATCH * (t + BATCH))


def ladder(args, skip_incremental=()):
    """Every (N, t) cell of args; `skip_incremental`: the (N, t) whose incremental gpbandit cell
    is not run (--merge: it did not finish in the run merged into)."""
    load_before = os.getloadavg()[0]
    avail = mem_available()
    cells, failed, done = [], {k: [] for k in BOTORCH_KINDS}, {k: [] for k in BOTORCH_KINDS}
    tmp = tempfile.mkdtemp(prefix="botorch_pool-")
    started = time.perf_counter()
    for n in args.n:
        print(f"N = {n:,}: generating the pool", file=sys.stderr, flush=True)
        words = pool_scale.random_fingerprints(n, args.bits, args.density, args.seed)
        pool = os.path.join(tmp, f"pool-{n}.npy")
        np.save(pool, words)
        del words
        for t in args.t:
            if t >= n:
                continue
            c = {"n": n, "t": t, "q": max(1, n // 100)}
            files = {k: os.path.join(tmp, f"{k}-{n}-{t}.npz")
                     for k in GPBANDIT_KINDS + BOTORCH_KINDS}
            v_bytes = 8 * n * t
            if (n, t) in skip_incremental:
                c["gpbandit"] = {"status": "skipped"}
            else:
                c["gpbandit"] = (child(args, "gpbandit", pool, t, files["gpbandit"])
                                 if v_bytes < 0.5 * avail
                                 else {"status": "memory", "bytes": v_bytes})
            c["gpbandit_mean"] = child(args, "gpbandit_mean", pool, t, files["gpbandit_mean"])
            if c["gpbandit"]["status"] == "ok" and c["gpbandit_mean"]["status"] == "ok":
                c["mean_only"] = compare_mean_only(files)
            for kind in BOTORCH_KINDS:
                if kind not in args.kinds:
                    c[kind] = {"status": "skipped"}
                elif needs(kind, n, t, args.bits) >= 0.5 * avail:
                    c[kind] = {"status": "memory", "bytes": needs(kind, n, t, args.bits)}
                elif blocked(failed[kind], n, t):
                    c[kind] = {"status": "after", "at": blocked(failed[kind], n, t)}
                elif kind == "ucb" and c["greedy"]["status"] != "ok":
                    c[kind] = {"status": "after", "at": (n, t), "because": "greedy"}
                elif (predicted(done, kind, n, t) or {"seconds": 0})["seconds"] > 3 * args.cap_s:
                    c[kind] = {"status": "predicted", **predicted(done, kind, n, t)}
                else:
                    save = files.get(kind) if kind != "qucb" else None
                    c[kind] = child(args, kind, pool, t, save)
                if c[kind]["status"] == "ok":
                    done[kind].append((n, t, c[kind]["ask"]["cpu_s"]))
                elif c[kind]["status"] == "cap":
                    failed[kind].append((n, t))
            ran = [k for k in BOTORCH_KINDS[:3] if c[k]["status"] == "ok"]
            if c["gpbandit"]["status"] == "ok" and ran:
                c["compare"] = compare(files, ran)
            cells.append(c)
            for f in files.values():
                if os.path.exists(f):
                    os.remove(f)
        os.remove(pool)
    os.rmdir(tmp)
    versions = {}
    if args.kinds:
        import botorch
        import gpytorch
        import torch
        versions = {"torch": torch.__version__, "gpytorch": gpytorch.__version__,
                    "botorch": botorch.__version__}
    return {"command": "python bench/peers/botorch_pool.py " + " ".join(sys.argv[1:]),
            "python": sys.executable, "host": f"{os.cpu_count()} cores, {platform.machine()}",
            "threads": 1, "load_before": load_before, "load_after": os.getloadavg()[0],
            "memory_available_bytes": avail,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "total_s": time.perf_counter() - started, "cap_s": args.cap_s,
            "versions": versions,
            "bits": args.bits, "density": args.density, "seed": args.seed, "cells": cells}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", help="build folder (its python/ is imported)")
    ap.add_argument("--n", type=int, nargs="+", default=[1000, 10_000, 100_000, 1_000_000])
    ap.add_argument("--t", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--bits", type=int, default=2048)
    ap.add_argument("--density", type=float, default=0.04)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cap-s", type=float, default=60.0,
                    help="CPU seconds per cell; a BoTorch cell predicted above 3 times this from "
                    "a smaller one is not started")
    ap.add_argument("--out", help="JSON output (default bench/peers/botorch_pool.json)")
    ap.add_argument("--results", help="RESULTS.md whose pool-botorch section to rewrite")
    ap.add_argument("--from-json", metavar="FILE", help="only rewrite --results from FILE")
    ap.add_argument("--also", metavar="FILE",
                    help="with --from-json: a supplementary run's JSON, shown after the table")
    ap.add_argument("--kinds", nargs="+", choices=BOTORCH_KINDS, default=list(BOTORCH_KINDS),
                    help="the BoTorch cells to run (gpbandit's always runs)")
    ap.add_argument("--smoke", action="store_true",
                    help="N = 600, t = 40, 256 bits; no files written (CTest)")
    ap.add_argument("--merge", metavar="FILE",
                    help="run only gpbandit's cells (incremental where it finished in FILE, and "
                    "the mean-only greedy) for FILE's (N, t) cells, or those of --n/--t, and write "
                    "them into FILE, keeping its BoTorch cells")
    ap.add_argument("--cell", choices=GPBANDIT_KINDS + BOTORCH_KINDS, help=argparse.SUPPRESS)
    ap.add_argument("--pool", help=argparse.SUPPRESS)
    ap.add_argument("--save", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cell:
        return run_cell(args)
    if args.from_json:
        if not args.results:
            raise SystemExit("botorch_pool.py: --from-json needs --results")
        with open(args.from_json) as f:
            r = json.load(f)
        also = None
        if args.also:
            with open(args.also) as f:
                also = json.load(f)
        results_section.write_section(args.results, section(r, also), BEGIN, END, TITLE)
        return 0
    if args.merge:
        return merge(args)
    try:
        import botorch  # noqa: F401
        import gpytorch  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        print(f"SKIP: botorch_pool.py needs torch, gpytorch and botorch ({e}); run it with a "
              "Python that has them", file=sys.stderr)
        return 77
    if not args.build:
        raise SystemExit("botorch_pool.py: --build is required (the folder whose python/ holds "
                         "the gpbandit module)")
    if args.smoke:
        args.n, args.t, args.bits, args.cap_s = [600], [40], 256, 120.0
    for name in ("bits", "seed"):
        if getattr(args, name) < (1 if name == "bits" else 0):
            raise SystemExit(f"botorch_pool.py: --{name} must be >= {1 if name == 'bits' else 0}")
    if args.bits % 64:
        raise SystemExit("botorch_pool.py: --bits must be a multiple of 64")
    if min(args.n) < 100 or min(args.t) < 1:
        raise SystemExit("botorch_pool.py: --n must be >= 100 and --t >= 1")
    if not 0 < args.density < 1:
        raise SystemExit("botorch_pool.py: --density must lie in (0, 1)")
    r = ladder(args)
    same = all(c["compare"]["same_greedy"] and c["compare"]["same_ucb"]
               for c in r["cells"] if "compare" in c)
    same &= all(c["mean_only"]["same_greedy"] for c in r["cells"] if "mean_only" in c)
    print(json.dumps(r, indent=1))
    if args.smoke:
        c = r["cells"][0]
        k = c.get("compare", {})
        ok = (k.get("against") == ["posterior", "greedy", "ucb"] and c["qucb"]["status"] == "ok"
              and c["qucb"]["picks"] == c["q"] and k["max_abs_dmu"] < 1e-8
              and k["max_abs_dvar"] < 1e-8 and c["mean_only"]["max_abs_dmu"] < 1e-12
              and c["gpbandit_mean"]["recompute_mode"])
        print(f"botorch_pool.py --smoke: same greedy batch {k.get('same_greedy')}, same UCB "
              f"batch {k.get('same_ucb')}, max |dmu| {k.get('max_abs_dmu')}, max |dvar| "
              f"{k.get('max_abs_dvar')}, qUCB picks {c['qucb'].get('picks')} of {c['q']}; "
              f"mean-only greedy: same batch {c['mean_only']['same_greedy']}, max |dmu| "
              f"{c['mean_only']['max_abs_dmu']}",
              file=sys.stderr)
        return 0 if same and ok else 1
    with open(args.out or os.path.join(HERE, "botorch_pool.json"), "w") as f:
        json.dump(r, f, indent=1)
    if args.results:
        results_section.write_section(args.results, section(r), BEGIN, END, TITLE)
    return 0 if same else 1


def merge(args):
    """--merge FILE: gpbandit's cells only, written into FILE's matching (N, t) cells (the
    mean-only greedy, and its comparison with a fresh incremental run where that finished in
    FILE); FILE's own cells, BoTorch's included, are kept, and the run is recorded in
    FILE["mean_only_run"]."""
    with open(args.merge) as f:
        base = json.load(f)
    for key in ("bits", "density", "seed"):  # the same pools as FILE's
        setattr(args, key, base[key])
    cells = {(c["n"], c["t"]): c for c in base["cells"]}
    want = [(n, t) for n in args.n for t in args.t if (n, t) in cells]
    if not want:
        raise SystemExit(f"botorch_pool.py: no (N, t) of --n/--t is a cell of {args.merge}")
    args.n = sorted({n for n, _ in want})
    args.t = sorted({t for _, t in want})
    args.kinds = []
    skip = {k for k, c in cells.items() if c["gpbandit"]["status"] != "ok"}
    r = ladder(args, skip)
    for c in r["cells"]:
        key = (c["n"], c["t"])
        if key not in want:
            continue
        cells[key]["gpbandit_mean"] = c["gpbandit_mean"]
        cells[key].pop("mean_only", None)
        if "mean_only" in c:
            cells[key]["mean_only"] = {**c["mean_only"], "incremental_rerun": c["gpbandit"]}
    base["mean_only_run"] = {k: r[k] for k in ("command", "python", "host", "load_before",
                                                "load_after", "date", "total_s", "cap_s")}
    with open(args.merge, "w") as f:
        json.dump(base, f, indent=1)
    if args.results:
        also = None
        if args.also:
            with open(args.also) as f:
                also = json.load(f)
        results_section.write_section(args.results, section(base, also), BEGIN, END, TITLE)
    same = all(c["mean_only"]["same_greedy"] for c in base["cells"] if "mean_only" in c)
    print(json.dumps(base["mean_only_run"], indent=1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
