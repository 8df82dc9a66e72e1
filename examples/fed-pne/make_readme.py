#!/usr/bin/env python3
"""Writes README.md (from README.template.md) and plots/ from the summary.json files of a run of
run_all.sh.  Usage: make_readme.py RESULTS_DIR   (default results/fed-pne)
       make_readme.py RESULTS_DIR --section SUBST   (prints one table only, e.g. after a partial run)"""
import filecmp
import json
import math
import os
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))
res = sys.argv[1] if len(sys.argv) > 1 else "results/fed-pne"


def summary(name):
    with open(os.path.join(res, name, "summary.json")) as f:
        return json.load(f)


def pm(m, key="regret"):
    return f"{m[key + '_mean']:.1f} ± {m[key + '_sd']:.1f}"


def method_table(names):
    rows = ["| experiment | method | regret at T (mean ± sd) | communication rounds | runs |",
            "|---|---|---|---|---|"]
    for n in names:
        s = summary(n)
        for m in s["methods"]:
            rounds = f"{m['rounds_mean']:.1f}" if m["type"] in ("fed-pne", "dp-fed-pne", "fed1-ucb") else "—"
            rows.append(f"| {n} | {m['label']} | {pm(m)} | {rounds} | {s['runs']} |")
    return "\n".join(rows)


def m_table():
    rows = ["| objective | M = 1 | M = 10 | M = 50 | M = 100 |", "|---|---|---|---|---|"]
    data = {}
    for obj in ("garland", "doublesine", "seir"):
        cells = []
        for M in (1, 10, 50, 100):
            m = summary(f"x7-{obj}-M{M}")["methods"][0]
            data.setdefault(obj, []).append((M, m["regret_mean"], m["regret_sd"]))
            cells.append(pm(m))
        rows.append(f"| {obj} | " + " | ".join(cells) + " |")
    return "\n".join(rows), data


def t_table():
    rows = ["| objective | T | rounds P (mean) | Eq. 37 bound | info per client | logical bytes up per client |",
            "|---|---|---|---|---|---|"]
    data = {}
    for obj in ("garland", "doublesine"):
        for T in (1000, 10000, 100000):
            s = summary(f"x8-{obj}-T{T}")
            m = s["methods"][0]
            bound = math.log(10 * T / (2 * 0.01)) / math.log(4)
            data.setdefault(obj, []).append((T, m["rounds_mean"], m["info_per_client_mean"]))
            rows.append(f"| {obj} | {T} | {m['rounds_mean']:.1f} | {bound:.2f} | "
                        f"{m['info_per_client_mean']:.1f} | {m['bytes_up_logical_mean'] / 10:.0f} |")
    return "\n".join(rows), data


def plots(mdata, tdata):
    os.makedirs(os.path.join(here, "plots"), exist_ok=True)
    for n in ("x1-garland", "x2-doublesine", "x3-himmelblau", "x5-seir", "x4-landmine-like", "x6-digits-like"):
        src = os.path.join(res, n, "regret.png")
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(here, "plots", n + ".png"))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for obj, pts in mdata.items():
        ax[0].errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts], marker="o", label=obj)
    ax[0].set_xscale("log")
    ax[0].set_xlabel("clients M")
    ax[0].set_ylabel("per-client cumulative regret at T = 1000")
    ax[0].legend()
    for obj, pts in tdata.items():
        ax[1].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{obj}: rounds")
        ax[1].plot([p[0] for p in pts], [p[2] / 8 for p in pts], marker="x", ls="--", label=f"{obj}: info/8")
    ax[1].set_xscale("log")
    ax[1].set_xlabel("horizon T")
    ax[1].set_ylabel("count")
    ax[1].legend()
    fig.tight_layout()
    fig.savefig(os.path.join(here, "plots", "regret_vs_M_rounds_vs_T.png"), dpi=90)


def mpi_block():
    a, b = os.path.join(res, "x1-garland"), os.path.join(res, "x1-garland-mpi")
    if not os.path.exists(os.path.join(b, "summary.json")):
        return "(MPI run missing)"
    same = all(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False)
               for f in ("runs.csv", "phases.csv"))
    s = summary("x1-garland-mpi")
    m = s["methods"][0]
    return (f"runtime `{s['runtime']}`; runs.csv and phases.csv identical to the in-process run: "
            f"**{'yes' if same else 'NO'}**. Fed-PNE over 10 runs: logical bytes per run "
            f"{m['bytes_down_logical_mean']:.0f} down / {m['bytes_up_logical_mean']:.0f} up "
            f"(all 10 clients); measured MPI payload for all 10 runs {m['bytes_mpi_measured_total']} bytes.")


if len(sys.argv) > 3 and sys.argv[2] == "--section" and sys.argv[3] == "SUBST":
    print(method_table(["x4-landmine-like", "x6-digits-like"]))
    for n in ("x4-landmine-like", "x6-digits-like"):
        src = os.path.join(res, n, "regret.png")
        if os.path.exists(src):
            os.makedirs(os.path.join(here, "plots"), exist_ok=True)
            shutil.copyfile(src, os.path.join(here, "plots", n + ".png"))
    sys.exit(0)
mt, mdata = m_table()
tt, tdata = t_table()
plots(mdata, tdata)
text = open(os.path.join(here, "README.template.md")).read()
for key, val in {"MAIN": method_table(["x1-garland", "x2-doublesine", "x3-himmelblau", "x5-seir", "x5-seir-hct-random"]),
                 "SUBST": method_table(["x4-landmine-like", "x6-digits-like"]),
                 "M": mt, "T": tt,
                 "MESH": method_table(["x9-garland-mesh", "x9-doublesine-mesh"]),
                 "C": method_table(["x10-garland-c", "x10-doublesine-c"]),
                 "DP": method_table(["x11-seir-dp"]), "MPI": mpi_block()}.items():
    text = text.replace("{{" + key + "}}", val)
open(os.path.join(here, "README.md"), "w").write(text)
