#!/usr/bin/env python3
"""gpbandit beside BayBE on the constrained product space of bench/space_scale.py, at the sizes
BayBE builds ([spaces] issue #32, item 5: "timed beside BayBE at the largest size it builds").

The space (space_scale.build_space): 6 categorical slots sharing `labels` labels, each label
described by 3 seeded numbers, a concentration (6 values), a temperature (5 integers) and an
equivalents count (2); no label twice across the slots, 100·conc + temp ≤ 150, one forbidden
pair.
BayBE 0.15 states the same space: a CustomDiscreteParameter per slot (the same descriptor table),
NumericalDiscreteParameter for the rest, DiscreteNoLabelDuplicatesConstraint,
DiscreteCustomConstraint (the inequality) and DiscreteExcludeConstraint, built by
SearchSpace.from_product.

Per tool and size, in a child process of its own (so that its peak memory is its own and a
failure to build is recorded, not fatal; BayBE's address space limited to --memory-gb): build
the space, tell the same t = 20 measured combinations (seeded, the synthetic function of space_scale.py on
gpbandit's encoding), and time one recommendation of a batch of 5 by each tool's defaults
(gpbandit.Optimizer: exact EI over every feasible combination; BayBE: its Campaign's default
recommender, already-measured combinations excluded). The feasible counts of both must agree.

Usage: space_baybe.py --build build --baybe-python /work/venv-peers/bin/python
           [--labels 6 7 8 9] [--timeout 900] [--memory-gb 16] [--out bench/space_baybe.json]
           [--results bench/RESULTS.md] [--merge] [--render] [--tools gpbandit baybe]
           [--backend auto|cpu|cuda ...] [--device-out RUN.json]

On a GPU machine (the GPU kit's spaces stage): `--tools gpbandit --backend cuda cpu` runs
gpbandit's Optimizer on each backend at each size (its picks recorded, so that the table says
whether both chose the same batch); `--render --device-out RUN.json` adds that run's table to
the section.
"""
import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
T, Q = 20, 5


def observations(gp, space):
    """The t seeded feasible combinations (dicts) and their values, as space_scale.py's f."""
    n, d = len(space), space.n_features
    rng = np.random.default_rng(11)
    w = rng.normal(size=d)
    idx = np.sort(rng.choice(n, size=T, replace=False))
    X = np.stack([space.encode(int(k)) for k in idx])
    y = np.tanh(X @ w / np.sqrt(d)) + 0.1 * np.sin(3 * X).sum(axis=-1)
    return [space[int(k)] for k in idx], y


def peak_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20


def built(out):
    """The child's first line: the space built (what a parent keeps if the recommendation
    then runs out of time)."""
    print(json.dumps({**out, "peak_gib": peak_gib(), "stage": "built"}), flush=True)


def child_gpbandit(labels, build, backend="auto"):
    sys.path.insert(0, os.path.join(build, "python"))
    sys.path.insert(0, HERE)
    import gpbandit
    from gpbandit import params as gp
    from space_scale import build_space

    t0 = time.perf_counter()
    space = build_space(gp, labels)
    opt = gpbandit.Optimizer(space, seed=0, exclude_observed=True, backend=backend)
    t_build = time.perf_counter() - t0
    built({"feasible": len(space), "raw": space.raw_size, "build_s": t_build})
    points, y = observations(gp, space)
    t0 = time.perf_counter()
    opt.tell(points, y)
    t_tell = time.perf_counter() - t0
    got = opt.ask(Q)
    t_ask = time.perf_counter() - t0
    assert len(got.points) == Q and all(p in space for p in got.points)
    return {"feasible": len(space), "raw": space.raw_size, "build_s": t_build,
            "recommend_s": t_ask, "tell_s": t_tell, "streams": bool(opt.streams),
            "backend": opt.backend,
            "picks": [int(i) for i in got.indices]}


def child_baybe(labels, build):
    sys.path.insert(0, os.path.join(build, "python"))
    sys.path.insert(0, HERE)
    import pandas as pd
    import torch
    from baybe import Campaign
    from baybe.constraints import (DiscreteCustomConstraint, DiscreteExcludeConstraint,
                                   DiscreteNoLabelDuplicatesConstraint, SubSelectionCondition)
    from baybe.objectives import SingleTargetObjective
    from baybe.parameters import CustomDiscreteParameter, NumericalDiscreteParameter
    from baybe.searchspace import SearchSpace
    from baybe.targets import NumericalTarget
    from gpbandit import params as gp
    from space_scale import build_space

    torch.set_num_threads(os.cpu_count())
    ours = build_space(gp, labels)  # the descriptor tables, the measured points and their y
    slots = [p for p in ours.parameters if isinstance(p, gp.Categorical)]
    params = [NumericalDiscreteParameter("conc", [0.05, 0.1, 0.2, 0.4, 0.8, 1.6]),
              NumericalDiscreteParameter("temp", [20, 40, 60, 80, 100]),
              NumericalDiscreteParameter("eq", [1, 2])]
    for p in slots:
        frame = pd.DataFrame({lab: row for lab, row in p.descriptors.items()},
                             index=["a", "b", "c"]).T
        frame.columns = [f"{p.name}_{c}" for c in frame.columns]
        params.append(CustomDiscreteParameter(name=p.name, data=frame, decorrelate=False))
    cons = [DiscreteNoLabelDuplicatesConstraint(parameters=[p.name for p in slots]),
            DiscreteCustomConstraint(parameters=["conc", "temp"],
                                     validator=lambda df: 100 * df["conc"] + df["temp"] <= 150),
            DiscreteExcludeConstraint(parameters=["slot0", "slot1"], combiner="AND",
                                      conditions=[SubSelectionCondition(selection=["L0"]),
                                                  SubSelectionCondition(selection=["L1", "L2"])])]
    t0 = time.perf_counter()
    space = SearchSpace.from_product(params, cons)
    campaign = Campaign(searchspace=space,
                        objective=SingleTargetObjective(NumericalTarget(name="y")),
                        allow_recommending_already_measured=False)
    t_build = time.perf_counter() - t0
    built({"feasible": len(space.discrete.exp_rep), "build_s": t_build})
    points, y = observations(gp, ours)
    df = pd.DataFrame(points)
    df["y"] = y
    t0 = time.perf_counter()
    campaign.add_measurements(df)
    rec = campaign.recommend(batch_size=Q)
    t_ask = time.perf_counter() - t0
    assert len(rec) == Q
    return {"feasible": len(space.discrete.exp_rep), "build_s": t_build, "recommend_s": t_ask}


def run_child(tool, labels, args, backend="auto"):
    """One measurement in a child process; its result, or why it failed. `backend`: the
    gpbandit Optimizer's (BayBE runs on the CPU)."""
    def limit():
        # An address-space cap, for BayBE only: gpbandit's posterior reserves capacity × N
        # doubles of address space up front and touches them as rows arrive (its resident
        # peak is what the table shows), so a cap on address space would refuse what the
        # memory holds.
        if args.memory_gb > 0 and tool == "baybe":
            cap = int(args.memory_gb * 2 ** 30)
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    py = args.baybe_python if tool == "baybe" else sys.executable
    cmd = [py, os.path.abspath(__file__), "--child", tool, "--labels", str(labels),
           "--build", args.build, "--backend", backend]
    asked = {"tool": tool, "labels": labels} | ({"asked_backend": backend}
                                                  if tool == "gpbandit" else {})
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                           preexec_fn=limit)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        lines = [x for x in out.splitlines() if x.startswith("{")]
        res = json.loads(lines[-1]) if lines else {}
        res.update(asked, timeout_s=args.timeout,
                   error=f"over {args.timeout} s" + (" (after the build)" if lines else ""))
        return res
    wall = time.perf_counter() - t0
    lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
    if p.returncode != 0 or not lines:
        tail = (p.stderr.strip().splitlines() or ["exit code %d" % p.returncode])[-1]
        return asked | {"error": tail[:300], "wall_s": round(wall, 1)}
    out = json.loads(lines[-1])
    out.update(asked, wall_s=round(wall, 1))
    return out


def stopped_after(r):
    """How long a recommendation had run when its child reached the time limit timeout_s after
    building in build_s: a lower bound on its time."""
    return r["timeout_s"] - r["build_s"]


def markdown(res, command, load=None):
    """The section's text: the commands, then one table row per size. `load`: the load
    average recorded after the last run (None where it was not recorded)."""
    after = "" if load is None else f", load average {load:.1f} after the last run"
    lines = [f"Commands: `{command}` ({platform.machine()}, {os.cpu_count()} CPUs{after}; a "
             "shared machine: times are upper bounds). Each cell one child process: build = the space (and, for gpbandit, the "
             f"Optimizer over it); recommend = tell t = {T} measurements and choose a batch of "
             f"{Q}; peak = the child's peak resident memory. A BayBE recommendation stopped at the "
             "time limit is bounded below by the limit less its build. The cells come from the "
             "runs listed (a tool's rerun replaces its cells), not one run: on this shared "
             "machine a ratio is good to about a factor of 2.", "",
             "| labels per slot | raw combinations | feasible | gpbandit: build s | recommend s | "
             "peak GiB | BayBE: build s | recommend s | peak GiB | recommend, BayBE / gpbandit |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    by = {(r["tool"], r["labels"]): r for r in res}
    for labels in sorted({r["labels"] for r in res}):
        g, b = by.get(("gpbandit", labels), {}), by.get(("baybe", labels), {})
        raw = g.get("raw")
        cells = []
        for r in (g, b):
            if "build_s" not in r:
                cells += [f"failed: {r.get('error', 'not run')}", "—", "—"]
            else:
                done = "recommend_s" in r
                # stopped: the time limit less the build bounds the recommendation from below
                rec = (f"{r['recommend_s']:.2f}" if done else
                       f"> {stopped_after(r):.0f} (stopped)")
                cells += [f"{r['build_s']:.2f}" + (" (streamed)" if r.get("streams") else ""),
                          rec, f"{r['peak_gib']:.2f}" + ("" if done else " (the build)")]
        if "recommend_s" in g and "recommend_s" in b:
            cells.append(f"{b['recommend_s'] / g['recommend_s']:.0f}")
        elif "recommend_s" in g and "build_s" in b and stopped_after(b) > g["recommend_s"]:
            cells.append(f"> {stopped_after(b) / g['recommend_s']:.0f}")
        else:
            cells.append("—")
        feas = g.get("feasible", b.get("feasible"))
        lines.append(f"| {labels} | {raw:,} | {feas:,} | " + " | ".join(cells) + " |"
                     if raw and feas else f"| {labels} | — | — | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cell(r):
    """A result's place: tool, size and, for gpbandit, the backend asked for."""
    return r["tool"], r["labels"], r.get("asked_backend", "auto")


def device_markdown(run):
    """The table of a run on a GPU machine: gpbandit's Optimizer on its CPU and on its GPU, the
    same sizes, one machine (so the ratio is a same-machine one)."""
    res = run["results"]
    by = {(r["labels"], r.get("asked_backend")): r for r in res if r["tool"] == "gpbandit"}
    dev = next((r["backend"] for r in res if str(r.get("backend", "")).startswith("cuda")),
               "cuda: not reached")
    host = next((r["host"] for r in res if "host" in r), "?")
    load = f", load average {run['load_after']} after the last run" if "load_after" in run else ""
    when = f", {run['date']}" if "date" in run else ""
    lines = [f"On a GPU machine ({dev}; host {host}{load}{when}), commands "
             f"`{'`, then `'.join(run['commands'])}`: the same "
             "space and measurements, gpbandit's Optimizer asked for each backend (materialised "
             "on the device where it fits the device's memory budget; the encodings are "
             "computed on the host, as the build column shows). One run per cell.", "",
             "| labels per slot | raw combinations | feasible | CPU: build s | recommend s | "
             "CUDA: build s | recommend s | peak host GiB (CUDA run) | recommend, CPU / CUDA | "
             "same batch |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for labels in sorted({k[0] for k in by}):
        c, g = by.get((labels, "cpu"), {}), by.get((labels, "cuda"), {})
        cells = []
        for r in (c, g):
            if "recommend_s" in r:
                cells += [f"{r['build_s']:.2f}" + (" (streamed)" if r.get("streams") else ""),
                          f"{r['recommend_s']:.3f}"]
            else:
                cells += [f"failed: {r.get('error', 'not run')}" if r else "not run", "—"]
        cells.append(f"{g['peak_gib']:.2f}" if "peak_gib" in g else "—")
        cells.append(f"{c['recommend_s'] / g['recommend_s']:.1f}"
                     if "recommend_s" in c and "recommend_s" in g else "—")
        cells.append(("yes" if c["picks"] == g["picks"] else "no")
                     if "picks" in c and "picks" in g else "—")
        first = g if "raw" in g else c
        lines.append(f"| {labels} | {first.get('raw', 0):,} | {first.get('feasible', 0):,} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_results(path, text):
    begin, end = "<!-- space-baybe:begin (generated by bench/space_baybe.py) -->", \
        "<!-- space-baybe:end -->"
    with open(path) as f:
        doc = f.read()
    block = f"{begin}\n\n{text}\n\n{end}"
    if begin in doc:
        doc = doc[:doc.index(begin)] + block + doc[doc.index(end) + len(end):]
    else:
        doc += ("\n## Constrained product spaces beside BayBE at the sizes it builds "
                "([spaces] #32, item 5)\n\n" + block + "\n")
    with open(path + ".tmp", "w") as f:
        f.write(doc)
    os.replace(path + ".tmp", path)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--baybe-python", default=sys.executable)
    ap.add_argument("--labels", type=int, nargs="+", default=[6, 7, 8, 9])
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--memory-gb", type=float, default=16,
                    help="BayBE's address-space cap (0: none)")
    ap.add_argument("--tools", nargs="+", choices=["gpbandit", "baybe"],
                    default=["gpbandit", "baybe"])
    ap.add_argument("--out", default=os.path.join(HERE, "space_baybe.json"))
    ap.add_argument("--results", default=None)
    ap.add_argument("--render", action="store_true",
                    help="only write the --results section from --out")
    ap.add_argument("--merge", action="store_true",
                    help="keep the other sizes already in --out (and their commands)")
    ap.add_argument("--backend", nargs="+", choices=["auto", "cpu", "cuda"], default=["auto"],
                    help="the gpbandit Optimizer's backends, each size run on each")
    ap.add_argument("--device-out", default=None,
                    help="with --render: a run on a GPU machine (--backend cuda cpu) whose "
                         "table is added to the section")
    ap.add_argument("--child", choices=["gpbandit", "baybe"])
    args = ap.parse_args(argv)
    if args.render:  # the section again from --out, nothing run
        with open(args.out) as f:
            old = json.load(f)
        text = markdown(old["results"], "`, then `".join(old["commands"]), old.get("load_after"))
        if args.device_out:
            with open(args.device_out) as f:
                text += "\n\n" + device_markdown(json.load(f))
        write_results(args.results, text)
        return 0
    if args.child:
        out = (child_gpbandit(args.labels[0], args.build, args.backend[0])
               if args.child == "gpbandit" else child_baybe(args.labels[0], args.build))
        out["host"] = f"{platform.machine()}, {os.cpu_count()} CPUs"
        out["peak_gib"] = peak_gib()
        print(json.dumps(out))
        return 0
    res = []
    for labels in args.labels:
        for tool in args.tools:
            for backend in args.backend if tool == "gpbandit" else ["auto"]:
                r = run_child(tool, labels, args, backend)
                print(json.dumps(r), flush=True)
                res.append(r)
        g = [r for r in res if r["labels"] == labels]
        if all("feasible" in r for r in g) and len({r["feasible"] for r in g}) != 1:
            raise SystemExit(f"labels {labels}: the feasible counts differ: {g}")
    commands = ["python3 bench/space_baybe.py " + " ".join(argv)]
    if args.merge and os.path.exists(args.out):  # keep the other sizes of an earlier run
        with open(args.out) as f:
            old = json.load(f)
        done = {cell(r) for r in res}
        res = [r for r in old["results"] if cell(r) not in done] + res
        commands = old["commands"] + commands
    load = round(os.getloadavg()[0], 2)  # recorded now, not when the section is rendered
    with open(args.out + ".tmp", "w") as f:
        json.dump({"commands": commands, "results": res, "load_after": load}, f, indent=2)
    os.replace(args.out + ".tmp", args.out)
    if args.results:
        write_results(args.results, markdown(res, "`, then `".join(commands), load))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
