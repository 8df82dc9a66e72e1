#!/usr/bin/env python3
"""Regenerates README.md (from README.template.md) and plots/ from the committed summary.json files
in results/<config>/ (run_all.sh copies them there from real runs). Nothing else is read: every
table and plot of the README can be redrawn from the repository alone.

Usage: make_readme.py [--check]   (--check: exit 1 if README.md would change; writes nothing)
"""
import math
import os
import re
import sys
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from readme_io import check_or_write, load_summary  # noqa: E402
import verdict_rule as vr  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import verdicts  # noqa: E402
RES = os.path.join(HERE, "results")
FED_TYPES = ("fed-pne", "dp-fed-pne", "fed1-ucb")
GRID_M = (10, 20, 50, 100)
GRID_T = (1000, 10000, 100000)
GRID_METHODS = ("Fed-PNE", "HCT", "HCT-keep", "GP-UCB (substitute)", "Fed1-UCB", "random")


def summary(name):
    return load_summary(RES, name)


def pm(m):
    return f"{m['regret_mean']:.1f} ± {m['regret_sd']:.1f}"


def method_table(names):
    rows = ["| experiment | method | regret at T (mean ± sd) | communication rounds | HCT rebuilds / expansions | runs |",
            "|---|---|---|---|---|---|"]
    for n in names:
        s = summary(n)
        if s is None:
            rows.append(f"| {n} | (not run) | | | | |")
            continue
        for m in s["methods"]:
            rounds = f"{m['rounds_mean']:.1f}" if m["type"] in FED_TYPES else "—"
            reb = (f"{m['rebuilds_mean']:.0f} / {m['expansions_mean']:.0f}"
                   if "rebuilds_mean" in m else "—")
            rows.append(f"| {n} | {m['label']} | {pm(m)} | {rounds} | {reb} | {s['runs']} |")
    return "\n".join(rows)


def m_table():
    rows = ["| objective | M = 1 | M = 10 | M = 50 | M = 100 |", "|---|---|---|---|---|"]
    data = {}
    for obj in ("garland", "doublesine", "seir"):
        cells = []
        for M in (1, 10, 50, 100):
            s = summary(f"x7-{obj}-M{M}")
            if s is None:
                cells.append("(not run)")
                continue
            m = s["methods"][0]
            data.setdefault(obj, []).append((M, m["regret_mean"], m["regret_sd"]))
            cells.append(pm(m))
        rows.append(f"| {obj} | " + " | ".join(cells) + " |")
    return "\n".join(rows), data


def t_table():
    rows = ["| objective | T | rounds P (mean) | Eq. 37 bound | info per client | logical bytes up per client |",
            "|---|---|---|---|---|---|"]
    data = {}
    for obj in ("garland", "doublesine"):
        for T in GRID_T:
            s = summary(f"x8-{obj}-T{T}")
            if s is None:
                continue
            m = s["methods"][0]
            bound = math.log(10 * T / (2 * 0.01)) / math.log(4)
            data.setdefault(obj, []).append((T, m["rounds_mean"], m["info_per_client_mean"]))
            rows.append(f"| {obj} | {T} | {m['rounds_mean']:.1f} | {bound:.2f} | "
                        f"{m['info_per_client_mean']:.1f} | {m['bytes_up_logical_mean'] / 10:.0f} |")
    return "\n".join(rows), data


def grid_cells():
    """{(obj, M, T): {label: method dict}} for every grid config present."""
    out = {}
    for obj in ("garland", "doublesine"):
        for M in GRID_M:
            for T in GRID_T:
                s = summary(f"grid-{obj}-M{M}-T{T}")
                if s is not None:
                    out[(obj, M, T)] = ({m["label"]: m for m in s["methods"]}, s["runs"])
    return out


def compare(a, b, runs):
    """'<' / '>' when a's regret is below / above b's under the rule of examples/verdict_rule.py
    (paired over the runs, which share seeds; two standard errors), '≈' otherwise."""
    c = vr.paired(a["regret_per_run"], b["regret_per_run"])
    return {-1: "<", 0: "≈", 1: ">"}[c.sign]


def grid_table(cells):
    head = ["objective", "M", "T"] + list(GRID_METHODS) + ["Fed-PNE vs HCT / HCT-keep / GP-UCB"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (obj, M, T), (ms, runs) in sorted(cells.items()):
        vals = [pm(ms[lab]) if lab in ms else "—" for lab in GRID_METHODS]
        f = ms["Fed-PNE"]
        cmp = " / ".join(compare(f, ms[lab], runs) if lab in ms else "—"
                         for lab in ("HCT", "HCT-keep", "GP-UCB (substitute)"))
        rows.append(f"| {obj} | {M} | {T} | " + " | ".join(vals) + f" | {cmp} |")
    return "\n".join(rows)


def regime(cells):
    """The regime statement: where Fed-PNE has the smallest regret, ties, or loses, per baseline."""
    if not cells:
        return "(grid not run)"
    lines = []
    for lab in ("HCT", "HCT-keep", "GP-UCB (substitute)"):
        win, tie, lose = [], [], []
        for (obj, M, T), (ms, runs) in sorted(cells.items()):
            if lab not in ms:
                continue
            c = compare(ms["Fed-PNE"], ms[lab], runs)
            ratio = ms["Fed-PNE"]["regret_mean"] / ms[lab]["regret_mean"]
            tag = f"{obj} M={M} T={T:.0e} ({ratio:.2f}×)".replace("+0", "")
            (win if c == "<" else tie if c == "≈" else lose).append(tag)
        lines.append(f"* **vs {lab}** — Fed-PNE lower in {len(win)}, tied in {len(tie)}, higher in "
                     f"{len(lose)} of {len(win) + len(tie) + len(lose)} cells "
                     "(ratio = Fed-PNE's regret / the baseline's).")
        for name, lst in (("lower", win), ("tied", tie), ("higher", lose)):
            if lst:
                lines.append(f"  * {name}: " + ", ".join(lst))
    best = []
    for (obj, M, T), (ms, runs) in sorted(cells.items()):
        others = [ms[lab] for lab in GRID_METHODS[1:] if lab in ms]
        if all(compare(ms["Fed-PNE"], o, runs) == "<" for o in others):
            best.append(f"{obj} M={M} T={T:.0e}".replace("+0", ""))
    lines.append("* **Fed-PNE significantly lowest of all methods** in: "
                 + (", ".join(best) if best else "no cell") + ".")
    return "\n".join(lines)


def plt_module():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None


def regret_plot(plt, name):
    s = summary(name)
    if s is None or not all("curve" in m for m in s["methods"]):
        return
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for m in s["methods"]:
        c = m["curve"]
        ax.plot(c["rounds"], c["mean"], label=m["label"])
        ax.fill_between(c["rounds"], [a - b for a, b in zip(c["mean"], c["sd"])],
                        [a + b for a, b in zip(c["mean"], c["sd"])], alpha=0.2)
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative regret (per client for federated)")
    ax.set_title(f"{name} (M = {s['clients']}, {s['runs']} runs)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "plots", name + ".png"), dpi=80)
    plt.close(fig)


def grid_plot(plt, cells):
    if not cells:
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, obj in zip(axes, ("garland", "doublesine")):
        for T in GRID_T:
            for lab, ls in (("HCT", "-"), ("HCT-keep", ":")):
                pts = [(M, cells[(obj, M, T)][0]["Fed-PNE"]["regret_mean"] /
                        cells[(obj, M, T)][0][lab]["regret_mean"])
                       for M in GRID_M if (obj, M, T) in cells]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], ls, marker="o",
                            label=f"T={T:.0e} / {lab}".replace("+0", ""))
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("clients M")
        ax.set_title(obj)
    axes[0].set_ylabel("Fed-PNE regret / HCT regret")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "plots", "grid_fedpne_over_hct.png"), dpi=80)
    plt.close(fig)


def m_t_plot(plt, mdata, tdata):
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for obj, pts in mdata.items():
        ax[0].errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts],
                       marker="o", label=obj)
    ax[0].set_xscale("log")
    ax[0].set_xlabel("clients M")
    ax[0].set_ylabel("per-client cumulative regret at T = 1000")
    ax[0].legend()
    for obj, pts in tdata.items():
        ax[1].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{obj}: rounds")
        ax[1].plot([p[0] for p in pts], [p[2] / 8 for p in pts], marker="x", ls="--",
                   label=f"{obj}: info/8")
    ax[1].set_xscale("log")
    ax[1].set_xlabel("horizon T")
    ax[1].set_ylabel("count")
    ax[1].legend()
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "plots", "regret_vs_M_rounds_vs_T.png"), dpi=90)
    plt.close(fig)


def mpi_block():
    s = summary("x1-garland-mpi")
    if s is None:
        return "(MPI run missing)"
    flag = os.path.join(RES, "x1-garland-mpi", "identical")
    same = open(flag).read().strip() if os.path.exists(flag) else "not compared"
    m = s["methods"][0]
    return (f"runtime `{s['runtime']}`; runs.csv identical to the in-process run: **{same}**. "
            f"Fed-PNE over {s['runs']} runs: logical bytes per run "
            f"{m['bytes_down_logical_mean']:.0f} down / {m['bytes_up_logical_mean']:.0f} up "
            f"(all {s['clients']} clients); measured MPI payload for all runs "
            f"{m.get('bytes_mpi_measured_total', '–')} bytes.")


def render(plots=True):
    mt, mdata = m_table()
    tt, tdata = t_table()
    cells = grid_cells()
    plt = plt_module() if plots else None
    if plt is not None:
        os.makedirs(os.path.join(HERE, "plots"), exist_ok=True)
        for n in ("x1-garland", "x2-doublesine", "x3-himmelblau", "x4-landmine-like", "x5-seir",
                  "x6-digits-like"):
            regret_plot(plt, n)
        grid_plot(plt, cells)
        m_t_plot(plt, mdata, tdata)
    with open(os.path.join(HERE, "README.template.md")) as f:
        text = f.read()
    blocks = {"MAIN": method_table(["x1-garland", "x2-doublesine", "x3-himmelblau", "x5-seir",
                                    "x5-seir-hct-random"]),
              "SUBST": method_table(["x4-landmine-like", "x6-digits-like"]),
              "GRID": grid_table(cells), "REGIME": regime(cells),
              "M": mt, "T": tt,
              "MESH": method_table(["x9-garland-mesh", "x9-doublesine-mesh"]),
              "C": method_table(["x10-garland-c", "x10-doublesine-c", "x10-garland-c-n100",
                                  "x10-doublesine-c-n100"]),
              "DP": method_table(["x11-seir-dp"]), "MPI": mpi_block(),
              "VERDICTS": vr.table(verdicts.units())}
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: blocks[m.group(1)], text)


def main(argv):
    check = bool(argv) and argv[0] == "--check"
    out = render(plots=not check)  # --check compares the text only and writes nothing
    return check_or_write(os.path.join(HERE, "README.md"), out, argv)[0]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
