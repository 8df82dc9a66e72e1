#!/usr/bin/env python3
"""gpbandit.minimize beside scikit-optimize, Optuna (TPE and GP) and a standard BoTorch loop on
standard test functions (bench/peers/bo_problems.py): the same boxes and budgets for every
optimiser, 10 seeds, single-threaded. Reports the median and interquartile range of the final
simple regret (f at the best observed point − f*), the mean rank over the functions, the seconds
per call, and convergence plots; writes the tables into bench/RESULTS.md, docs/optimizer.md and
README.md (generated regions) with --update-docs.

Usage:
  python3 bench/peers/bo_suite.py --build build [--seeds 10] [--problems KEY ...]
      [--optimizers gpbandit skopt ...] [--jobs 1] [--results bench/peers/bo_suite_results.json]
      [--rerun NAME ...] [--ablation] [--update-docs] [--plot bench/plots/bo_suite.png]
  python3 bench/peers/bo_suite.py --check          # the docs' regions match the results file
  python3 bench/peers/bo_suite.py --smoke --build build   # 2 functions, 2 seeds, 12 calls (CTest)

Runs are cached in the results file by (optimiser, problem, seed, calls): a run is repeated only
with --rerun (e.g. after changing gpbandit). Each run is its own process (OMP, MKL, OpenBLAS and
torch limited to one thread). An optimiser whose package is missing is reported and skipped. The
ablation (--ablation) runs gpbandit with one default changed at a time (ABLATION below).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import bo_problems as bp  # noqa: E402

RESULTS = os.path.join(HERE, "bo_suite_results.json")
DOCS = {"bench/RESULTS.md": "bo-suite", "docs/optimizer.md": "bo-suite", "README.md": "bo-suite-lines"}
# gpbandit with one default changed (name: minimize keywords); the ablation of bench/RESULTS.md.
# Each row is compared with the defaults unless BASE names the row it differs from in one setting.
SOBOL_ROW = "Sobol initial design (the default until 2026-11-27)"
# The output warp (fit.warp, knee at fit.warp_knee = 0.75) became minimize's default on
# 2026-11-27 (seventh round); the rows run before keep what they ran with explicitly (the warp
# off, or its knee at the median), so every row still means what it was run as.
NO_WARP_ROW = "no output warp (fit.warp false: minimize's default until 2026-11-27)"
MEDIAN_KNEE_ROW = "output warp, knee at the median (fit.warp_knee 0.5, its knee until 2026-11-27)"
NO_SELECT_ROW = ("product kernel only (fit.kernel_select false: the default until the tenth "
                 "round, the structure chosen by the data since)")
NO_EXPLOIT_ROW = ("no final exploitation (exploit_last 0: the default until the ninth round; "
                  "the last 5 % of the calls on the posterior mean since)")
KNEE_075_ROW = ("output warp, knee at 0.75 (fit.warp_knee 0.75, its knee from the seventh to the "
                "eighth round)")


def _no_warp(options):
    """options with the output warp off (merged into its fit keys)."""
    return {**options, "fit": {**options.get("fit", {}), "warp": False}}


def _median_knee(options):
    """options with the output warp on, its knee at the median (merged into its fit keys)."""
    return {**options, "fit": {**options.get("fit", {}), "warp": True, "warp_knee": 0.5}}


_SOBOL = {"initial_point_generator": "sobol"}
ABLATION = {
    NO_WARP_ROW: _no_warp({}),
    MEDIAN_KNEE_ROW: _median_knee({}),
    SOBOL_ROW: _no_warp(_SOBOL),
    # Rows run while the Sobol design was the default: they keep it, and are compared with the
    # Sobol row (SOBOL_BASED), so each still differs from its baseline in one setting.
    "no refinement": _no_warp({"refine": False, **_SOBOL}),
    "inputs standardised by their sd (not the unit box)": _no_warp(
        {"fit": {"unit_inputs": False}, **_SOBOL}),
    "y not standardised": _no_warp({"fit": {"normalize": False}, **_SOBOL}),
    "maximum likelihood (no priors)": _no_warp({"fit": {"prior": False}, **_SOBOL}),
    "noise floor 1e-4 (BoTorch's)": _no_warp({"fit": {"noise_floor": 1e-4}, **_SOBOL}),
    "SE kernel": _no_warp({"kernel": "se", **_SOBOL}),
    "UCB (Srinivas schedule)": _no_warp({"acq_func": "LCB", **_SOBOL}),
    "PI": _no_warp({"acq_func": "PI", **_SOBOL}),
    "output warp (fit.warp: the bad tail Box-Cox compressed)": _median_knee(_SOBOL),
    "lengthscale prior loc sqrt(2) + ln(d)/2, sd sqrt(3) (BoTorch's; the default before)": _no_warp({
        "fit": {"lengthscale_prior_loc": 2 ** 0.5, "lengthscale_prior_log_d": 0.5,
                "lengthscale_prior_scale": 3 ** 0.5}, **_SOBOL}),
    "lengthscale prior loc 0, sd 1.1 (no ln(d) term; near Optuna's)": _no_warp({
        "fit": {"lengthscale_prior_loc": 0.0, "lengthscale_prior_log_d": 0.0}, **_SOBOL}),
    "coordinate candidates (512 per ask: the incumbent with 1-3 axes moved anywhere)": _no_warp({
        "refine": {"coordinate_points": 512}, **_SOBOL}),
    # Rows run while the random design without the warp was the default (compared with the
    # no-warp row).
    "initial design of 2(d + 1) points (BoTorch's; default max(5, d + 1))": _no_warp({
        "initial_points_per_dim": 2}),
    # The pull to the box's faces (bench/peers/st8_faces.py): coordinates of a refined ask on a
    # face moved back towards the incumbent's while log EI loses at most the tolerance.
    "faces: refine.face_tolerance 0.1 (log EI may lose 0.1 pulling a face coordinate back)": _no_warp({
        "refine": {"face_tolerance": 0.1}}),
    "faces: refine.face_tolerance 1 (log EI may lose 1 pulling a face coordinate back)": _no_warp({
        "refine": {"face_tolerance": 1.0}}),
    # A pessimistic prior mean: far from the observations (the faces, where σ grows) the GP
    # expects values 3 sd of y worse than their mean, not average ones.
    "prior mean 3 sd of y worse than the mean (fit.mean_shift 3)": _no_warp(
        {"fit": {"mean_shift": 3.0}}),
    # Sixth round (2026-11-27): the lengthscale prior's location chosen by the data; every fit is
    # also made without the prior's ln(d) term (location 0) and the fit whose MAP has the higher
    # log marginal likelihood is kept (bench/peers/prior_select_screens.py: the rules screened).
    "lengthscale prior location ln(d)/2 or 0, the fit of higher marginal likelihood kept "
    "(fit.lengthscale_prior_select)": _no_warp({"fit": {"lengthscale_prior_select": True}}),
    # With the warp at its median knee (compared with that row): the pull-back with the warp,
    # which compresses the huge face values (fourth round, a test of the guess in
    # bench/RESULTS.md), and the warp kept at a fit only where the warped model's marginal
    # likelihood, Jacobian included, beats the plain model's (fit.warp_select; fifth round).
    "faces + output warp: refine.face_tolerance 1 and fit.warp together": _median_knee({
        "refine": {"face_tolerance": 1.0}}),
    "output warp kept by marginal likelihood (fit.warp and fit.warp_select)": _median_knee({
        "fit": {"warp_select": True}}),
    # Seventh round (2026-11-27): the knee screened (0.5 is the row MEDIAN_KNEE_ROW, 0.75 the
    # defaults).
    "output warp, knee at 0.9 (fit.warp_knee 0.9)": {"fit": {"warp_knee": 0.9}},
    # Eighth round (2026-11-27): the knee at 0.6 became the default; the runs of the defaults
    # until then (knee 0.75) are this row.
    KNEE_075_ROW: {"fit": {"warp_knee": 0.75}},
    # Ninth round (2026-11-27): the end of the budget on the posterior mean. 0.05 became the
    # default; the runs of the defaults until then (no exploitation) are NO_EXPLOIT_ROW.
    "last 10 % of the calls on the posterior mean (exploit_last 0.1)": {"exploit_last": 0.1},
    NO_EXPLOIT_ROW: {"exploit_last": 0.0},
    # Tenth round (2026-11-27): the kernel's structure chosen at every fit, the product (ARD) or
    # the additive kernel of 1-d parts, by BIC-penalised marginal likelihood, became the default;
    # the runs of the defaults until then are NO_SELECT_ROW.
    NO_SELECT_ROW: {"fit": {"kernel_select": False}},
    # Known noise (2026-11-27): every evaluation told with the problem's true noise variance
    # (minimize's noise=; 0.01 on noisy Hartmann-6, 0 on the noise-free ones, floored at the fit's
    # noise floor) instead of a fitted noise.
    "known noise (noise = the true variance: 0.01 on noisy Hartmann-6, 0 elsewhere)": {
        "noise": "true"},
    # Known noise with the lengthscale prior's location chosen by marginal likelihood (ln(d)/2 or
    # 0): told the noise, a flat start leaves the lengthscales to the prior, whose ln(d)/2 location
    # made noisy Hartmann-6's posterior near-linear (bench/RESULTS.md, "Known noise").
    "known noise with the lengthscale prior's location chosen (noise true, "
    "fit.lengthscale_prior_select)": {"noise": "true", "fit": {"lengthscale_prior_select": True}},
}
SOBOL_BASED = {n for n, o in ABLATION.items() if n != SOBOL_ROW and o.get(
    "initial_point_generator") == "sobol"}
# The baseline of each row that is not compared with the defaults (marks in the table).
BASE = {n: SOBOL_ROW for n in SOBOL_BASED}
BASE.update({n: NO_WARP_ROW for n, o in ABLATION.items()
             if n not in SOBOL_BASED | {NO_WARP_ROW, MEDIAN_KNEE_ROW}
             and o.get("fit", {}).get("warp") is False})
BASE.update({n: MEDIAN_KNEE_ROW for n, o in ABLATION.items()
             if n not in SOBOL_BASED | {MEDIAN_KNEE_ROW}
             and o.get("fit", {}).get("warp_knee") == 0.5})
MARK = {SOBOL_ROW: " †", NO_WARP_ROW: " ‡", MEDIAN_KNEE_ROW: " §"}


def worker(tasks):
    """Runs the tasks in this process, printing each result as one JSON line (its key first)."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    for key, task in tasks:
        values, seconds, rec = bp.run(task["optimizer"], bp.BY_KEY[task["problem"]], task["seed"],
                                      task["calls"], task.get("options"))
        print(json.dumps({"key": key, "values": values, "seconds": seconds, "recommended": rec}),
              flush=True)


def key_of(name, problem, seed, calls):
    return f"{name}|{problem}|{seed}|{calls}"


def launch(group, build, timeout):
    """Runs a group of tasks (one optimiser, one problem: its imports paid once) in one process.
    Returns ({key: result}, the error text or None)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join(filter(None, [os.path.join(build, "python"), HERE,
                                                       os.environ.get("PYTHONPATH")])))
    try:
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker",
                               json.dumps(group)], env=env, capture_output=True, text=True,
                              timeout=timeout)
        out, err, rc = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as e:
        out, err, rc = e.stdout or "", "timed out", -1
        out = out.decode() if isinstance(out, bytes) else out
    done = {}
    for line in out.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            done[r.pop("key")] = r
    if rc != 0:
        return done, (err.strip().splitlines() or [f"exit {rc}"])[-1]
    return done, None


def available(name):
    module = {"gpbandit": "gpbandit", "skopt": "skopt", "optuna-gp": "optuna",
              "optuna-tpe": "optuna", "botorch": "botorch", "random": "numpy"}[name]
    code = f"import {module}" + ("; import scipy, torch" if name == "optuna-gp" else "")
    return subprocess.run([sys.executable, "-c", code], capture_output=True,
                          env=dict(os.environ, PYTHONPATH=os.path.join(ARGS.build, "python"))
                          ).returncode == 0


def run_all(results, names, problems, seeds, calls_of, options_of, rerun, jobs, timeout):
    tasks = []
    for name in names:
        for p in problems:
            for seed in seeds:
                k = key_of(name, p.key, seed, calls_of(p))
                if k in results and name not in rerun:
                    continue
                tasks.append((k, {"optimizer": name.split(":")[0], "problem": p.key,
                                  "seed": seed, "calls": calls_of(p),
                                  "options": options_of(name)}))
    groups = {}
    for k, task in tasks:
        groups.setdefault((task["optimizer"], task["problem"], k.split("|")[0],
                           task["seed"] // ARGS.chunk), []).append((k, task))
    print(f"bo_suite: {len(tasks)} runs to do in {len(groups)} processes", file=sys.stderr)
    done = 0
    started = time.monotonic()
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(jobs) as pool:
        for group, (out, err) in zip(groups.values(), pool.map(
                lambda g: launch(g, ARGS.build, timeout * len(g)), groups.values())):
            for k, r in out.items():
                results[k] = {"values": [float(f"{v:.10g}") for v in r["values"]],
                              "recommended": r["recommended"], "seconds": round(r["seconds"], 4)}
                WRITTEN.add(k)
            done += len(group)
            if err is not None:
                print(f"bo_suite: {group[0][0]} ...: {err}", file=sys.stderr)
            print(f"bo_suite: {done}/{len(tasks)} runs ({time.monotonic() - started:.0f} s)",
                  file=sys.stderr)
            save(results)


WRITTEN = set()  # the keys this process ran: the only ones it writes over what is on disk


def save(results):
    """Writes the results file, merged with what is on disk now (several runs of this script,
    e.g. one per optimiser, may share the file; a run never drops another's results, nor writes
    its stale copy of a run another process repeated since: only the runs it made itself go over
    the file's). Atomic: a temporary file, synced, renamed over the old one, so a kill leaves
    the old file or the new one, never a torn one."""
    if ARGS.smoke:
        return
    import fcntl

    with open(ARGS.results + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merged = {}
        if os.path.exists(ARGS.results):
            with open(ARGS.results) as f:
                merged = json.load(f)
        merged.update({k: results[k] for k in WRITTEN})
        results.update(merged)
        tmp = ARGS.results + f".{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(merged, f, sort_keys=True, separators=(",", ":"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, ARGS.results)


def final_regret(run, problem):
    """Regret of the recommended point after the last call (its noise-free value − f*)."""
    return run["values"][run["recommended"][-1]] - problem.optimum


def trace(run, problem):
    return np.array([run["values"][i] - problem.optimum for i in run["recommended"]])


# ---------------------------------------------------------------- tables

def fmt(v):
    return "0" if v == 0 else f"{v:.2g}" if abs(v) < 1e-3 else f"{v:.3g}"


def regrets(results, name, problem, seeds, calls):
    return [final_regret(results[k], problem) for k in
            (key_of(name, problem.key, s, calls) for s in seeds) if k in results]


def seconds_per_call(results, name, problem, seeds, calls):
    return [results[k]["seconds"] / calls for k in
            (key_of(name, problem.key, s, calls) for s in seeds) if k in results]


def ranks(medians):
    """Ranks (1 = lowest) with ties averaged, for a dict name -> median."""
    order = sorted(medians, key=lambda n: medians[n])
    out = {}
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and medians[order[j + 1]] == medians[order[i]]:
            j += 1
        for n in order[i:j + 1]:
            out[n] = (i + j) / 2 + 1
        i = j + 1
    return out


def summary(results, names, problems, seeds):
    """{problem key: {name: (median, q1, q3, n, seconds per call)}}, names that have runs."""
    out = {}
    for p in problems:
        row = {}
        for n in names:
            r = regrets(results, n, p, seeds, p.calls)
            if r:
                q1, med, q3 = np.percentile(r, [25, 50, 75])
                sec = float(np.median(seconds_per_call(results, n, p, seeds, p.calls)))
                row[n] = (float(med), float(q1), float(q3), len(r), sec)
        out[p.key] = row
    return out


def main_table(results, names, problems, seeds, label=bp.LABELS.get):
    s = summary(results, names, problems, seeds)
    names = [n for n in names if any(n in s[p.key] for p in problems)]
    lines = ["| function (d, calls) | " + " | ".join(label(n) for n in names) + " |",
             "|---|" + "---|" * len(names)]
    rank_sum = {n: 0.0 for n in names}
    for p in problems:
        row = s[p.key]
        best = min(v[0] for v in row.values()) if row else None
        cells = []
        for n in names:
            if n not in row:
                cells.append("—")
                continue
            med, q1, q3, k, _ = row[n]
            cell = f"{fmt(med)} [{fmt(q1)}, {fmt(q3)}]"
            cells.append(f"**{cell}**" if med == best else cell)
        for n, r in ranks({n: row[n][0] for n in names if n in row}).items():
            rank_sum[n] += r
        lines.append(f"| {p.label} ({p.dim}, {p.calls}) | " + " | ".join(cells) + " |")
    ran = {n: sum(n in s[p.key] for p in problems) for n in names}
    lines.append("| mean rank (over the functions it ran) | " + " | ".join(
        f"{rank_sum[n] / max(ran[n], 1):.2f}" for n in names) + " |")
    secs = {n: [row[n][4] for row in s.values() if n in row] for n in names}
    lines.append("| seconds per call (median over functions) | " +
                 " | ".join(f"{np.median(secs[n]):.3g}" for n in names) + " |")
    return lines, s


def goal_lines(s, problems, peers):
    """Where gpbandit stands against the peers, function by function."""
    lowest, behind = [], []
    for p in problems:
        row = s[p.key]
        if "gpbandit" not in row:
            continue
        others = sorted((row[n][0], n) for n in peers if n in row)
        if not others:
            continue
        if row["gpbandit"][0] <= others[0][0]:
            lowest.append(p.label)
        second = others[1] if len(others) > 1 else others[0]
        iqr = row[second[1]][2] - row[second[1]][1]
        if row["gpbandit"][0] > second[0] + iqr:
            behind.append(f"{p.label} (second-best peer {bp.LABELS[second[1]]})")
    out = [f"gpbandit has the lowest median final regret on {len(lowest)} of "
           f"{len(problems)} functions ({', '.join(lowest) or 'none'})."]
    out.append("Its median is above the second-best peer's by more than that peer's interquartile "
               f"range on: {', '.join(behind) if behind else 'none'}.")
    return out


def readme_lines(s, problems, peers):
    lines = []
    for p in problems:
        row = s[p.key]
        if "gpbandit" not in row:
            continue
        others = sorted((row[n][0], n) for n in peers if n in row)
        full = row["gpbandit"][3]  # runs per optimiser: a peer with fewer is marked with its count
        ran = ", ".join(bp.LABELS[n] + (f" {row[n][3]} seeds" if row[n][3] < full else "")
                        for n in peers if n in row)
        peer = (f", best peer {bp.LABELS[others[0][1]]} {fmt(others[0][0])} (of those run: {ran})"
                if others else "")
        lines.append(f"- {p.label} ({p.dim}-d, {p.calls} calls): gpbandit {fmt(row['gpbandit'][0])}"
                     f"{peer}")
    return lines


def paired(results, a, b, problem, seeds):
    """log10 regret of a minus b over the seeds both ran (regrets floored at 1e-12)."""
    keys = [(key_of(a, problem.key, sd, problem.calls), key_of(b, problem.key, sd, problem.calls))
            for sd in seeds]
    return np.array([np.log10(max(final_regret(results[ka], problem), 1e-12))
                     - np.log10(max(final_regret(results[kb], problem), 1e-12))
                     for ka, kb in keys if ka in results and kb in results])


def verdict(d):
    """(mean ± standard error text, verdict) of paired differences d (a − b, lower: a better),
    by the two-standard-error rule."""
    if len(d) < 2:
        return "—", "too few shared seeds"
    m, se = float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))
    word = "a lower" if m < -2 * se else "a higher" if m > 2 * se else "no difference"
    return f"{m:+.2f} ± {se:.2f}", word


def paired_table(results, s, problems, seeds, peers):
    """gpbandit against the best peer (lowest median) of each function, on their shared seeds."""
    lines = ["| function | best peer | shared seeds | mean Δlog10 regret ± SE | gpbandit lower / "
             "higher | verdict (2 SE) |", "|---|---|---|---|---|---|"]
    for p in problems:
        row = s[p.key]
        others = sorted((row[n][0], n) for n in peers if n in row)
        if "gpbandit" not in row or not others:
            continue
        peer = others[0][1]
        d = paired(results, "gpbandit", peer, p, seeds)
        text, word = verdict(d)
        word = {"a lower": "gpbandit better",
                "a higher": f"{bp.LABELS[peer]} better"}.get(word, word)
        lines.append(f"| {p.label} | {bp.LABELS[peer]} | {len(d)} | {text} | "
                     f"{int((d < 0).sum())} / {int((d > 0).sum())} | {word} |")
    return lines


def ablation_table(results, problems, seeds):
    names = ["gpbandit"] + [f"gpbandit:{v}" for v in ABLATION]
    s = summary(results, names, problems, seeds)
    head = ("| gpbandit with | " + " | ".join(p.label for p in problems)
            + " | mean rank (where run) | paired Δlog10 regret vs the defaults, rows marked † vs "
            "the Sobol-design row, ‡ vs the no-warp row, § vs the median-knee row (mean ± SE; "
            "lower / higher at 2 SE) |")
    lines = [head, "|---|" + "---|" * (len(problems) + 2)]
    rank_sum = {n: 0.0 for n in names}
    for p in problems:
        for n, r in ranks({n: s[p.key][n][0] for n in names if n in s[p.key]}).items():
            rank_sum[n] += r
    def mean_rank(n):
        ran = sum(n in s[p.key] for p in problems)
        return f"{rank_sum[n] / ran:.2f}" if ran else "—"

    for n in names:
        cells = [fmt(s[p.key][n][0]) if n in s[p.key] else "—" for p in problems]
        label = "the defaults" if n == "gpbandit" else n.split(":", 1)[1]
        base = "gpbandit"
        if label in BASE:
            base, label = f"gpbandit:{BASE[label]}", label + MARK[BASE[label]]
        pairs = []
        for p in problems:
            d = paired(results, n, base, p, seeds) if n != "gpbandit" else []
            if len(d) >= 2:
                text, word = verdict(d)
                mark = {"a lower": " lower", "a higher": " higher"}.get(word, "")
                pairs.append(f"{p.label} {text}{mark}")
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {mean_rank(n)} | "
                     + ("; ".join(pairs) or "—") + " |")
    return lines


def region(text, name, body):
    begin = f"<!-- {name}:begin (generated by bench/peers/bo_suite.py) -->"
    end = f"<!-- {name}:end -->"
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise SystemExit(f"bo_suite: no region {name} in the file")
    return text[:i + len(begin)] + "\n" + body + text[j:]


def run_problems(results, seeds):
    """The problems gpbandit has runs for (in PROBLEMS' order): the docs show what was run."""
    return [p for p in bp.PROBLEMS
            if any(key_of("gpbandit", p.key, s, p.calls) in results for s in seeds)]


def doc_bodies(results, seeds):
    problems = run_problems(results, seeds)
    names = ["gpbandit"] + bp.PEERS + ["random"]
    table, s = main_table(results, names, problems, seeds)
    n_runs = {n: sum(key_of(n, p.key, sd, p.calls) in results for p in problems for sd in seeds)
              for n in names}
    command = ("python3 bench/peers/bo_suite.py --build build --seeds " + str(len(seeds))
               + " --problems " + " ".join(p.key for p in problems) + " --update-docs")
    body = ("Median final simple regret [interquartile range] over seeds " + f"0..{len(seeds) - 1}"
            + " (fewer where a cell's runs did not finish: "
            + ", ".join(f"{bp.LABELS.get(n, n)} {n_runs[n]}" for n in names)
            + f" runs of {len(problems) * len(seeds)}); lower is better, the best median in bold. "
            "Seconds per call: CPU time of the whole run over its calls, single-threaded. "
            "Generated by `" + command + "`.\n\n"
            + "\n".join(table) + "\n\n" + " ".join(goal_lines(s, problems, bp.PEERS)) + "\n\n"
            "Paired against the best peer of each function (the lowest median above): the mean "
            "over the seeds both ran of log10(gpbandit's final regret) − log10(the peer's) "
            "(regrets floored at 1e-12) ± its standard error, the seeds where gpbandit ended "
            "lower / higher, and the verdict when the mean is more than two standard errors from "
            "0.\n\n" + "\n".join(paired_table(results, s, problems, seeds, bp.PEERS)) + "\n")
    abl = ablation_table(results, problems, seeds)  # (only where a file has the region)
    return {"bo-suite": body, "bo-suite-lines": "\n".join(readme_lines(s, problems, bp.PEERS)) + "\n",
            "bo-suite-ablation": "\n".join(abl) + "\n"}


def update_docs(results, seeds, check):
    bodies = doc_bodies(results, seeds)
    stale = []
    for rel, names in {"bench/RESULTS.md": ["bo-suite", "bo-suite-ablation"],
                       "docs/optimizer.md": ["bo-suite"], "README.md": ["bo-suite-lines"]}.items():
        path = os.path.join(ROOT, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = text
        for name in names:
            if name == "bo-suite-ablation" and f"<!-- {name}:begin" not in text:
                continue  # the ablation is shown only where its region was placed
            new = region(new, name, bodies[name])
        if new != text:
            stale.append(rel)
            if not check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
    return stale


def plot(results, names, seeds, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    problems = bp.PROBLEMS
    cols = 3
    fig, axes = plt.subplots((len(problems) + cols - 1) // cols, cols, figsize=(15, 12))
    for ax, p in zip(axes.flat, problems):
        for n in names:
            runs = [results[k] for k in (key_of(n, p.key, s, p.calls) for s in seeds) if k in results]
            if not runs:
                continue
            tr = np.array([np.maximum(trace(r, p), 1e-12) for r in runs])
            q1, med, q3 = np.percentile(tr, [25, 50, 75], axis=0)
            x = np.arange(1, tr.shape[1] + 1)
            ax.plot(x, med, label=bp.LABELS.get(n, n), lw=2 if n == "gpbandit" else 1.2)
            ax.fill_between(x, q1, q3, alpha=0.12)
        ax.set_yscale("log")
        ax.set_title(f"{p.label} (d = {p.dim})")
        ax.set_xlabel("calls")
        ax.set_ylabel("simple regret")
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(problems):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=8)
    fig.suptitle(f"Median simple regret and interquartile range over {len(seeds)} seeds")
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--problems", nargs="*")
    ap.add_argument("--optimizers", nargs="*")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=10,
                    help="seeds per process (each process's results are saved when it ends)")
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--results", default=RESULTS)
    ap.add_argument("--rerun", nargs="*", default=[])
    ap.add_argument("--ablation", action="store_true")
    ap.add_argument("--variants", nargs="*",
                    help="with --ablation: only the ABLATION entries whose name starts so")
    ap.add_argument("--update-docs", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--plot")
    ap.add_argument("--smoke", action="store_true")
    ARGS = ap.parse_args()
    if ARGS.worker:
        worker(json.loads(ARGS.worker))
        return 0
    results = {}
    if os.path.exists(ARGS.results) and not ARGS.smoke:
        with open(ARGS.results) as f:
            results = json.load(f)
    seeds = list(range(ARGS.seeds))
    if ARGS.check:
        stale = update_docs(results, seeds, check=True)
        if stale:
            print("bo_suite: out of date (run bo_suite.py --update-docs): " + ", ".join(stale))
            return 1
        return 0
    problems = [bp.BY_KEY[k] for k in ARGS.problems] if ARGS.problems else bp.PROBLEMS
    calls_of = lambda p: p.calls  # noqa: E731
    names = ARGS.optimizers or ["gpbandit"] + bp.PEERS + ["random"]
    if ARGS.smoke:
        problems, seeds = [bp.BY_KEY["branin"], bp.BY_KEY["hartmann6"]], [0, 1]
        calls_of = lambda p: 12  # noqa: E731
        names = ARGS.optimizers or ["gpbandit", "random"]
    missing = [n for n in names if not available(n)]
    for n in missing:
        print(f"bo_suite: {n} is not installed: skipped", file=sys.stderr)
    names = [n for n in names if n not in missing]
    options_of = lambda name: {}  # noqa: E731
    if ARGS.ablation:
        names = ["gpbandit"] + [f"gpbandit:{v}" for v in ABLATION if not ARGS.variants
                                or any(v.startswith(w) for w in ARGS.variants)]
        options_of = lambda name: ABLATION.get(name.split(":", 1)[1], {}) if ":" in name else {}  # noqa: E731,E501
    worst = bp.check_twins()
    if worst is not None and worst > 1e-6:  # BoTorch keeps Hartmann's constants in float32
        raise SystemExit(f"bo_suite: the NumPy twins differ from BoTorch's functions by {worst}")
    run_all(results, names, problems, seeds, calls_of, options_of, set(ARGS.rerun), ARGS.jobs,
            ARGS.timeout)
    save(results)
    if ARGS.smoke:
        for p in problems:
            for n in names:
                r = [final_regret(results[key_of(n, p.key, s, 12)], p) for s in seeds]
                assert all(np.isfinite(r)) and min(r) >= -1e-9, (n, p.key, r)
                print(f"{p.label}: {bp.LABELS.get(n, n)} final regret after 12 calls: "
                      + ", ".join(fmt(v) for v in r))
        return 0
    table, s = main_table(results, names, problems, seeds,
                          label=lambda n: bp.LABELS.get(n, n.replace("gpbandit:", "gpbandit, ")))
    print("\n".join(table))
    print(" ".join(goal_lines(s, problems, [n for n in bp.PEERS if n in names])))
    if ARGS.plot:
        plot(results, [n for n in names if ":" not in n], seeds, ARGS.plot)
    if ARGS.update_docs:
        print("bo_suite: updated " + (", ".join(update_docs(results, seeds, False)) or "nothing"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
