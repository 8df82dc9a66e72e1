#!/usr/bin/env python3
"""Reaction-optimisation campaigns on EDBO's data (issue #32, item 4): gpbandit beside random
search and BayBE, run on the same lookup table from the same seeded start.

Per (data set, method, seed): 5 random reactions (edbo.start, shared by every method of the
seed), then batches of 5 chosen by the method, up to 50 experiments; a reaction is never
measured twice. Each run is cached as results/<data set>/<method>/seed<k>.json (the yields in
experiment order, the metrics of edbo.metrics, seconds per batch), so an interrupted run resumes.

Usage: run_campaigns.py [--datasets a,b] [--methods m,n] [--seeds 0-19] [--data DIR]
                        [--out DIR] [--budget 50] [--smoke]
  --smoke: 2 seeds of direct_arylation, 20 experiments, into a temporary folder: random,
           gpbandit-ohe, its -pdim and -oracle diagnostics and the encoding chosen by the data
           between one-hot and DFT; checks the runs and exits 0 (77 when the data is absent).
Needs PYTHONPATH holding the gpbandit module (build/python); the baybe-* methods need BayBE
(pip install 'baybe[chem]').
"""

import argparse
import functools
import json
import os
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import edbo  # noqa: E402

INIT, BATCH, BUDGET = 5, 5, 50

# method → (kind, encoding[, gpbandit.Optimizer options beyond its defaults])
METHODS = {
    "random": ("random", None),
    "gpbandit-ohe": ("gpbandit", "ohe"),
    "gpbandit-dft": ("gpbandit", "dft"),
    "gpbandit-mordred": ("gpbandit", "baybe:MORDRED"),  # on BayBE's Mordred features
    # Ablations of gpbandit-ohe, one setting each (the same for every data set):
    "gpbandit-ohe-ucb": ("gpbandit", "ohe", {"acquisition": "ucb"}),      # GP-UCB, Srinivas' β
    "gpbandit-ohe-ucb1": ("gpbandit", "ohe", {"acquisition": "ucb", "beta": 1.0}),  # β = 1
    "gpbandit-ohe-q1": ("gpbandit", "ohe", {"q": 1}),  # one at a time: no batch policy
    "gpbandit-md-q1": ("gpbandit", "mordred", {"q": 1}),
    "gpbandit-dft-q1": ("gpbandit", "dft", {"q": 1}),
    "gpbandit-ohe-chen": ("gpbandit", "ohe", {"fixed_chen": True}),  # BayBE-like fixed GP
    "gpbandit-mordred-chen": ("gpbandit", "baybe:MORDRED", {"fixed_chen": True}),
    "gpbandit-ohe-iso": ("gpbandit", "ohe", {"fit": {"ard": False}}),     # one lengthscale
    "gpbandit-ohe-ml": ("gpbandit", "ohe", {"fit": {"prior": False}}),    # maximum likelihood
    "gpbandit-ohe-noise": ("gpbandit", "ohe", {"fit": {"noise_floor": 0.05}}),  # noisy model
    # Categorical kernels: SE on the one-hot features is a product over parameters of Hamming
    # factors, exp(−1/(2ℓ_a²) − 1/(2ℓ_b²)) between labels a ≠ b of a parameter (ARD: one weight
    # per label), exp(−H/ℓ²) with one lengthscale (H: the labels that differ). The numeric
    # conditions (direct arylation only) then get SE too, not Matérn.
    "gpbandit-ohe-hamming": ("gpbandit", "ohe", {"kernel": "se"}),
    "gpbandit-ohe-hamming-iso": ("gpbandit", "ohe", {"kernel": "se", "fit": {"ard": False}}),
    # Per-parameter kernels (docs/spaces.md): Matérn 5/2 ARD on the numeric conditions × a
    # Matérn 5/2 on each component's encoding (one lengthscale per one-hot block, ARD within a
    # DFT block), against the one kernel on the concatenated encodings of the same encoding.
    "gpbandit-ohe-parts": ("gpbandit", "ohe", {"parts": True}),
    "gpbandit-dft-parts": ("gpbandit", "dft", {"parts": True}),
    "gpbandit-fp": ("gpbandit", "fp"),  # the molecules' Morgan fingerprints (gpbandit.chem)
    # The molecules' 2D descriptors (gpbandit.chem.label_descriptors), reduced as the DFT tables:
    # RDKit's, and Mordred's (BayBE's default SubstanceParameter encoding, computed by gpbandit).
    "gpbandit-rdkit": ("gpbandit", "rdkit"),
    "gpbandit-md": ("gpbandit", "mordred"),
    # Each reaction one count fingerprint (its components' Morgan counts side by side, numeric
    # conditions as thermometers; edbo.count_fingerprints) under the MinMax kernel: the
    # Optimizer over a fingerprint domain, its output scale and noise refitted.
    "gpbandit-minmax": ("gpbandit", "minmax"),
    # Several encodings of the same reactions at once ("views"): side by side under one
    # Matérn 5/2 ARD kernel (-concat), or one such kernel per encoding, summed (each view its
    # own variance: a mixture the fit weighs) or multiplied.
    "gpbandit-views-concat": ("gpbandit", "ohe,dft,mordred"),
    "gpbandit-views-sum": ("gpbandit", "ohe,dft,mordred", {"views": "sum"}),
    "gpbandit-views-product": ("gpbandit", "ohe,dft,mordred", {"views": "product"}),
    "gpbandit-fp-parts": ("gpbandit", "fp", {"parts": True}),
    # The sum of the per-parameter parts: a main effect per parameter, no interactions.
    "gpbandit-ohe-parts-sum": ("gpbandit", "ohe", {"parts": True, "combine": "sum"}),
    "gpbandit-dft-parts-sum": ("gpbandit", "dft", {"parts": True, "combine": "sum"}),
    # The lengthscale prior's location chosen by marginal likelihood at every fit (ln(d)/2 or 0;
    # fit.lengthscale_prior_select): with d = 20-60 encoded features the default ln(d)/2 holds
    # every lengthscale near e^{ln(d)/2} unless the data insist.
    "gpbandit-ohe-lps": ("gpbandit", "ohe", {"fit": {"lengthscale_prior_select": True}}),
    "gpbandit-dft-lps": ("gpbandit", "dft", {"fit": {"lengthscale_prior_select": True}}),
    # A reference, not a method: the hyperparameters fitted once on 400 rows of the whole table
    # (the answers) and held fixed, y standardised by the whole table.
    "gpbandit-ohe-oracle": ("gpbandit", "ohe", {"oracle": True}),
    "gpbandit-dft-oracle": ("gpbandit", "dft", {"oracle": True}),
    "gpbandit-mordred-oracle": ("gpbandit", "baybe:MORDRED", {"oracle": True}),
    # The encoding chosen by the data at every batch: one model per encoding, each refitted
    # (MAP, the defaults), and the batch asked of the one whose fit has the largest log marginal
    # likelihood of the same standardised yields.
    "gpbandit-select": ("select", ["ohe", "dft", "fp"]),
    "gpbandit-select-parts": ("select", ["ohe+parts", "dft+parts", "fp+parts"]),
    "gpbandit-select-ohe-dft": ("select", ["ohe", "dft"]),  # the smoke's: no RDKit needed
    # The lengthscale prior's location ln(P)/2 with P the number of parameters (components and
    # conditions) instead of ln(d)/2 with d the encoded columns: two reactions differ in at most
    # P parameters, whatever the number of columns that encode them.
    "gpbandit-ohe-pdim": ("gpbandit", "ohe", {"prior_params": True}),
    "gpbandit-dft-pdim": ("gpbandit", "dft", {"prior_params": True}),
    "gpbandit-fp-pdim": ("gpbandit", "fp", {"prior_params": True}),
    # minimize's model defaults on the Optimizer (bench/RESULTS.md, issue #30): the output warp
    # that compresses the bad tail of y (most reactions yield little), the additive kernel kept
    # where its marginal likelihood wins (main effects of the components), and both; and
    # Thompson sampling's batches.
    "gpbandit-ohe-warp": ("gpbandit", "ohe", {"fit": {"warp": True}}),
    "gpbandit-ohe-add": ("gpbandit", "ohe", {"fit": {"kernel_select": True}}),
    "gpbandit-ohe-mindef": ("gpbandit", "ohe", {"fit": {"warp": True, "kernel_select": True}}),
    "gpbandit-ohe-ts": ("gpbandit", "ohe", {"acquisition": "ts"}),
    "gpbandit-dft-warp": ("gpbandit", "dft", {"fit": {"warp": True}}),
    "gpbandit-dft-add": ("gpbandit", "dft", {"fit": {"kernel_select": True}}),
    "gpbandit-dft-mindef": ("gpbandit", "dft", {"fit": {"warp": True, "kernel_select": True}}),
    "gpbandit-dft-ts": ("gpbandit", "dft", {"acquisition": "ts"}),
    "gpbandit-mordred-warp": ("gpbandit", "baybe:MORDRED", {"fit": {"warp": True}}),
    "gpbandit-mordred-add": ("gpbandit", "baybe:MORDRED", {"fit": {"kernel_select": True}}),
    "gpbandit-mordred-mindef": ("gpbandit", "baybe:MORDRED",
                                {"fit": {"warp": True, "kernel_select": True}}),
    "gpbandit-mordred-ts": ("gpbandit", "baybe:MORDRED", {"acquisition": "ts"}),
    "baybe-ohe": ("baybe", "ohe"),          # CategoricalParameter (one-hot)
    "baybe-mordred": ("baybe", "MORDRED"),  # SubstanceParameter, BayBE's default encoding
    "baybe-ecfp": ("baybe", "ECFP"),        # SubstanceParameter, Morgan/ECFP fingerprints
}


def run_random(table, seed, init, budget):
    rng = np.random.default_rng([seed, 1])
    rest = np.setdiff1d(np.arange(len(table)), init)
    order = list(init) + [int(i) for i in rng.permutation(rest)[:budget - len(init)]]
    return order, []


class GpbanditRunner:
    """gpbandit.Optimizer on the encoded reactions (a finite candidate set) with its defaults:
    Matérn-5/2 ARD, y standardised, refitted after every tell, log EI, batches by GP-BUCB
    hallucination of the pending points; exclude_observed=True: a measured reaction is never
    asked for again (as BayBE's allow_recommending_already_measured=False)."""

    def __init__(self, encoding, options=None):
        self.encoding, self.options = encoding, dict(options or {})
        self.q = self.options.pop("q", BATCH)  # a diagnostic may choose one at a time
        self.cache = {}

    def model(self, table, seed, init):
        """The campaign's Optimizer on the encoded table and the yields it is told (the table's,
        or standardised where a diagnostic fixes the model)."""
        import gpbandit

        if table.name not in self.cache:
            if self.encoding.startswith("baybe:"):  # the features BayBE's GP sees
                self.cache[table.name] = baybe_features(table, self.encoding[6:])
            elif self.encoding == "minmax":  # a fingerprint domain: MinMax by default
                self.cache[table.name] = gpbandit.Domain.from_fingerprints(
                    edbo.count_fingerprints(table), kind="counts")
            elif "," in self.encoding:  # several encodings side by side ("views")
                views = [edbo.encode(table, e) for e in self.encoding.split(",")]
                self.cache[table.name] = np.hstack(views)
                self.cache[("widths", table.name)] = [v.shape[1] for v in views]
            else:
                self.cache[table.name] = edbo.encode(table, self.encoding)
        X = self.cache[table.name]
        options = dict(self.options)
        y = table.y
        if options.pop("parts", False):
            options["kernel"] = edbo.parts_kernel(table, self.encoding,
                                                  options.pop("combine", "product"))
        if options.pop("fixed_chen", False):
            # No fit: Matérn-5/2 with lengthscale and variance at the centre of the priors of
            # BayBE's Chen preset (0.4·√d + 4), noise 0.1, on inputs scaled to [0, 1] and y
            # standardised by the start.
            span = np.ptp(X, axis=0)
            X = (X - X.min(axis=0)) / np.where(span > 0, span, 1.0)
            ell = 0.4 * np.sqrt(X.shape[1]) + 4.0
            options.update(kernel=gpbandit.Kernel.matern(2.5, ell, ell), noise_variance=0.1,
                           fit_every=0)
            y = (y - y[init].mean()) / (y[init].std() or 1.0)
        views = options.pop("views", None)
        if views:  # one Matérn 5/2 ARD part per encoding, summed or multiplied
            parts, at = [], 0
            for width in self.cache[("widths", table.name)]:
                parts.append({"features": (at, at + width), "type": "matern52", "ard": True})
                at += width
            options["kernel"] = (gpbandit.Kernel.sum(parts) if views == "sum"
                                 else gpbandit.Kernel.product(parts))
        if options.pop("prior_params", False):
            n_params = len(table.components) + len(table.numeric)
            options["fit"] = {"lengthscale_prior_loc": 0.5 * np.log(n_params),
                              "lengthscale_prior_log_d": 0.0}
        if options.pop("oracle", False):
            options.update(self.oracle(table, X))
            y = (y - y.mean()) / y.std()
        return gpbandit.Optimizer(X, seed=seed, threads=1, exclude_observed=True, **options), y

    def __call__(self, table, seed, init, budget):
        opt, y = self.model(table, seed, init)
        order, seconds = list(init), []
        batch = np.asarray(init, dtype=np.int64)
        while True:
            t0 = time.perf_counter()
            opt.tell(batch, y[batch])
            if len(order) >= budget:
                break
            _, batch = opt.ask(min(self.q, budget - len(order)))
            seconds.append(time.perf_counter() - t0)
            order += [int(i) for i in batch]
        return order, seconds

    def oracle(self, table, X):
        """Optimizer options of the ceiling diagnostic: the kernel and noise fitted (MAP, the
        defaults) on 400 seeded rows of the whole table, then never refitted."""
        import gpbandit

        key = ("oracle", table.name)
        if key not in self.cache:
            full = gpbandit.Optimizer(X, seed=0, threads=1, fit={"max_rows": 400})
            full.tell(np.arange(len(table)), table.y)
            self.cache[key] = {"kernel": full.kernel, "noise_variance": full.noise_variance,
                               "fit_every": 0, "fit": {"normalize": False}}
        return dict(self.cache[key])


class BaybeRunner:
    """BayBE's Campaign with its default recommender (random until data, then BoTorch with its
    default surrogate and acquisition) on the same table: components as CategoricalParameter
    (one-hot) or SubstanceParameter (`encoding`), numeric conditions as
    NumericalDiscreteParameter; allow_recommending_already_measured=False."""

    def __init__(self, encoding):
        self.encoding = encoding
        self.spaces = {}

    def space(self, table):
        import pandas as pd
        from baybe.parameters import (CategoricalParameter, NumericalDiscreteParameter,
                                      SubstanceParameter)
        from baybe.searchspace import SearchSpace

        if table.name in self.spaces:
            return self.spaces[table.name]
        params = []
        for c in table.components:
            names = sorted(set(table.labels[c]))
            if self.encoding == "ohe":
                params.append(CategoricalParameter(name=c, values=names, encoding="OHE"))
            else:
                params.append(SubstanceParameter(
                    name=c, data={f"{c}{i}": s for i, s in enumerate(names)},
                    encoding=self.encoding))
        for k, v in table.numeric.items():
            params.append(NumericalDiscreteParameter(name=k, values=sorted(set(v.tolist()))))
        df = self.frame(table, range(len(table)))
        t0 = time.perf_counter()
        space = SearchSpace.from_dataframe(df, params)
        self.spaces[table.name] = (space, time.perf_counter() - t0)
        return self.spaces[table.name]

    def frame(self, table, rows):
        """The reactions `rows` as BayBE's parameter columns (labels or substance names)."""
        import pandas as pd

        rows = list(rows)
        cols = {}
        for c in table.components:
            names = sorted(set(table.labels[c]))
            if self.encoding == "ohe":
                cols[c] = [table.labels[c][i] for i in rows]
            else:
                pos = {s: f"{c}{j}" for j, s in enumerate(names)}
                cols[c] = [pos[table.labels[c][i]] for i in rows]
        for k, v in table.numeric.items():
            cols[k] = [float(v[i]) for i in rows]
        return pd.DataFrame(cols)

    def __call__(self, table, seed, init, budget):
        import random

        import torch
        from baybe import Campaign
        from baybe.objectives import SingleTargetObjective
        from baybe.targets import NumericalTarget

        torch.set_num_threads(1)
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
        space, _ = self.space(table)
        campaign = Campaign(searchspace=space,
                            objective=SingleTargetObjective(NumericalTarget(name="yield")),
                            allow_recommending_already_measured=False)
        key = self.frame(table, range(len(table)))
        lookup = {tuple(r): i for i, r in enumerate(key.itertuples(index=False))}
        order, seconds = list(init), []
        batch = list(init)
        while True:
            t0 = time.perf_counter()
            df = self.frame(table, batch)
            df["yield"] = table.y[batch]
            campaign.add_measurements(df)
            if len(order) >= budget:
                break
            rec = campaign.recommend(batch_size=min(BATCH, budget - len(order)))
            seconds.append(time.perf_counter() - t0)
            batch = [lookup[tuple(r)] for r in rec[list(key.columns)].itertuples(index=False)]
            order += batch
        return order, seconds


class SelectRunner:
    """One gpbandit.Optimizer per encoding ("ohe", "dft", "fp", "baybe:MORDRED"; "+parts": the
    per-parameter kernel), all told every result; after each tell every model is refitted and
    the batch is asked of the model of the largest log marginal likelihood at its fit: the
    data choose the encoding. Records which encoding chose each batch."""

    def __init__(self, encodings):
        self.runners = [GpbanditRunner(e.split("+")[0], {"parts": True} if "+parts" in e else {})
                        for e in encodings]
        self.names = encodings
        self.chosen = []

    def __call__(self, table, seed, init, budget):
        opts = [r.model(table, seed, init)[0] for r in self.runners]
        order, seconds, chosen = list(init), [], []
        batch = np.asarray(init, dtype=np.int64)
        while True:
            t0 = time.perf_counter()
            for o in opts:
                o.tell(batch, table.y[batch])
            if len(order) >= budget:
                break
            ll = [o.fit_hyperparameters().log_likelihood for o in opts]
            k = int(np.argmax(ll))
            chosen.append(self.names[k])
            _, batch = opts[k].ask(min(BATCH, budget - len(order)))
            seconds.append(time.perf_counter() - t0)
            order += [int(i) for i in batch]
        self.chosen = chosen
        return order, seconds


def baybe_features(table, encoding):
    """BayBE's computational representation of every reaction (its SubstanceParameter
    `encoding`, decorrelated as by default), in the table's row order: gpbandit on exactly the
    inputs of BayBE's GP separates the encoding from the model and acquisition."""
    space, _ = BaybeRunner(encoding).space(table)
    comp = space.discrete.comp_rep.to_numpy(dtype=float)
    if len(comp) != len(table):
        raise RuntimeError(f"{table.name}: BayBE's space has {len(comp)} rows, the table "
                           f"{len(table)}")
    return comp


def runner(method):
    kind, encoding, *options = METHODS[method]
    if kind == "random":
        return run_random
    if kind == "gpbandit":
        return GpbanditRunner(encoding, *options)
    if kind == "select":
        return SelectRunner(encoding)
    return BaybeRunner(encoding)


def run_one(table, method, seed, fn, budget):
    init = edbo.start(table, seed, INIT)
    t0 = time.perf_counter()
    order, seconds = fn(table, seed, init, budget)
    wall = time.perf_counter() - t0
    if len(set(order)) != len(order) or len(order) != budget:
        raise RuntimeError(f"{table.name}/{method}/seed {seed}: {len(order)} experiments, "
                           f"{len(order) - len(set(order))} repeated")
    yields = [float(table.y[i]) for i in order]
    out = {"dataset": table.name, "method": method, "seed": seed, "init": INIT, "batch": BATCH,
            "order": order, "yields": yields, "metrics": edbo.metrics(yields, table),
            "seconds_per_batch": [round(s, 4) for s in seconds], "wall_seconds": round(wall, 3),
            "top1_target": table.top1, "best_yield": table.best, "versions": versions()}
    if isinstance(fn, SelectRunner):
        out["chosen_encodings"] = fn.chosen  # the encoding that chose each batch
    return out


@functools.lru_cache(maxsize=None)
def versions():
    """The versions a run's choices depend on (NumPy's LAPACK shapes the DFT and fingerprint
    blocks' principal components), recorded so that a rerun that differs can say why. Looked up
    once per process; callers get the same dict, which they only serialise."""
    import importlib.metadata as md

    out = {"numpy": np.__version__}
    for pkg in ("gpbandit", "baybe", "rdkit", "torch"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            pass
    if "gpbandit" not in out and "gpbandit" in sys.modules:
        out["gpbandit"] = getattr(sys.modules["gpbandit"], "__version__", "?")
    return out


def seeds_arg(text):
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b) + 1)) if b else [int(a)]
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=",".join(edbo.DATASETS))
    ap.add_argument("--methods", default="random,gpbandit-ohe,gpbandit-dft")
    ap.add_argument("--seeds", type=seeds_arg, default=seeds_arg("0-19"))
    ap.add_argument("--data", default=None)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--budget", type=int, default=BUDGET,
                    help="experiments per campaign (the README's runs: 50; longer ones into "
                         "another --out)")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    if args.budget < INIT + BATCH:
        ap.error(f"--budget must be at least {INIT + BATCH}, got {args.budget}")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if not edbo.available(args.data):
        print(f"SKIP: EDBO data not found in {edbo.data_dir(args.data)} (see "
              f"../shared/data/README.md, section edbo/)")
        return 77
    budget = args.budget
    tmp = None
    if args.smoke:
        args.datasets, args.seeds = "direct_arylation", [0, 1]
        args.methods = ("gpbandit-ohe,random,gpbandit-ohe-pdim,gpbandit-ohe-oracle,"
                        "gpbandit-select-ohe-dft")
        tmp = tempfile.TemporaryDirectory()
        args.out, budget = tmp.name, 20
    datasets = args.datasets.split(",")
    methods = args.methods.split(",")
    for m in methods:
        if m not in METHODS:
            raise SystemExit(f"--methods: unknown method {m!r} ({', '.join(METHODS)})")
    tables = {d: edbo.Table(d, args.data) for d in datasets}
    fns = {m: runner(m) for m in methods}
    runs = []
    for seed in args.seeds:
        for d in datasets:
            for m in methods:
                path = os.path.join(args.out, d, m, f"seed{seed}.json")
                if os.path.exists(path):
                    continue
                res = run_one(tables[d], m, seed, fns[m], budget)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path + ".tmp", "w") as f:
                    json.dump(res, f)
                os.replace(path + ".tmp", path)
                runs.append(res)
                s = res["seconds_per_batch"]
                print(f"{d} {m} seed {seed}: best@10/25/50 "
                      f"{'/'.join(f'{v:.1f}' for v in res['metrics']['best_after'].values())}, "
                      f"to top-1 % {res['metrics']['to_top1']}, to best "
                      f"{res['metrics']['to_best']}, {np.mean(s) if s else 0:.3f} s per batch",
                      flush=True)
    if args.smoke:
        starts = {}
        for r in runs:  # the same start for every method of a seed; metrics as recomputed
            starts.setdefault(r["seed"], r["order"][:INIT])
            assert r["order"][:INIT] == starts[r["seed"]], r["method"]
            assert r["metrics"] == edbo.metrics(r["yields"], tables[r["dataset"]])
            if r["method"] == "gpbandit-select-ohe-dft":  # one encoding per batch asked, each a model's
                assert len(r["chosen_encodings"]) == (budget - INIT) // BATCH, r
                assert set(r["chosen_encodings"]) <= {"ohe", "dft"}, r["chosen_encodings"]
        assert len(runs) == 10, len(runs)
        tmp.cleanup()
        print("smoke: 10 campaigns, shared starts, no repeated reaction, one encoding per batch")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
