#!/usr/bin/env python3
"""The README's "where LDP-MoMA wins" statement, generated from the summary.json files present
(make_readme.py, placeholder {{REGIME}}). A policy *beats* another when it is lower under the rule
of examples/verdict_rule.py: paired over the trials (same run id = same f and instance), mean
difference below zero by more than two standard errors."""
import ldp_stats as st
from ldp_stats import vr

INSTANCES = ("synthetic", "matern", "light", "stock")
PRIVATE_PANELS = ("L1", "L2", "L3", "L7", "L8", "L9")


def wins(a, b):
    """Number of paired trials in which policy a's R_T is below policy b's, and the trial count."""
    x, y = a["cumulative_regret_per_run"], b["cumulative_regret_per_run"]
    return sum(u < v for u, v in zip(x, y)), len(x)


def cmp(a, b):
    """The rule's paired comparison of policy a against policy b."""
    return vr.paired(a["cumulative_regret_per_run"], b["cumulative_regret_per_run"])


def beats(a, b):
    return cmp(a, b).lower


def by_param(s, family, key):
    """{params[key]: policy} of the LDP policies of one family in a why-* summary."""
    return {p["params"][key]: p for p in s["policies"]
            if p["type"].startswith(f"ldp_{family}_") and key in p.get("params", {})}


def ratio(p, rnd):
    return p["cumulative_regret"]["mean"] / rnd["cumulative_regret"]["mean"]


def eps_line(inst, s):
    """Against random play and against LDP-TGP / LDP-ATA at the same ϵ, one why-eps config."""
    rnd = st.policy(s, st.RANDOM)
    scale = {r["eps"]: r for r in st.scales(s)}
    moma = by_param(s, "moma", "epsilon")
    won = [e for e in sorted(moma) if beats(moma[e], rnd)]
    paper = ", ".join(f"{ratio(moma[e], rnd):.2f} at ϵ = {e:g}" for e in (0.5, 1.0) if e in moma)
    if won:
        e = won[0]
        r = scale[e]
        head = (f"LDP-MoMA beats uniform random play from ϵ = {e:g} (𝓛 = {st.fmt(r['L'])}, "
                f"{r['L'] / r['gap']:.2f}× the mean gap {st.fmt(r['gap'])} of random play; "
                f"R_T / random {ratio(moma[e], rnd):.2f}); beating ϵ values: "
                f"{', '.join(f'{x:g}' for x in won)}")
    else:
        head = "LDP-MoMA beats uniform random play at no ϵ of the sweep"
    head += f"; R_T / random at the paper's levels: {paper}"
    rivals = []
    for fam, name in (("tgp", "LDP-TGP"), ("ata", "LDP-ATA")):
        other = by_param(s, fam, "epsilon")
        common = sorted(set(other) & set(moma))
        if not common:
            continue
        cells = []
        for e in common:
            c = cmp(moma[e], other[e])
            m = moma[e]["cumulative_regret"]["mean"] / other[e]["cumulative_regret"]["mean"]
            tag = {-1: "MoMA lower", 0: "tied", 1: "MoMA higher"}[c.sign]
            cells.append(f"ϵ = {e:g}: {m:.2f}, {c.wins}/{c.n}, t = {c.t:.1f} ({tag})")
        rivals.append(f"Against {name} at the same ϵ (MoMA/{name} mean R_T, MoMA's paired "
                      f"wins, paired t = d̄/se; rule: |t| > 2): {'; '.join(cells)}")
    return f"* **{inst}** (`why-eps-{inst}`): {head}." + (
        " " + "; ".join(rivals) + "." if rivals else "")


def winning_cells(inst, s):
    """(instance, ϵ, 𝓛 / mean gap) where LDP-MoMA beats random play and every rival run at ϵ."""
    rnd = st.policy(s, st.RANDOM)
    scale = {r["eps"]: r for r in st.scales(s)}
    moma = by_param(s, "moma", "epsilon")
    rivals = [by_param(s, fam, "epsilon") for fam in ("tgp", "ata")]
    out = []
    for e in sorted(moma):
        others = [r[e] for r in rivals if e in r]
        if len(others) == len(rivals) and beats(moma[e], rnd) and all(
                beats(moma[e], o) for o in others):  # only where both rivals ran at this ϵ
            out.append((inst, e, scale[e]["L"] / scale[e]["gap"]))
    return out


def knob_line(inst, s, kind, key, label):
    """The smallest knob change (width scale, B/R factor) at ϵ = 1 with which MoMA beats random."""
    rnd = st.policy(s, st.RANDOM)
    moma = by_param(s, "moma", key) if key else {
        float(p["label"].rsplit("x", 1)[1].rstrip(")")): p for p in s["policies"]
        if p["type"] == "ldp_moma_gp_ucb"}
    cells = [f"×{v:g}: {ratio(moma[v], rnd):.2f}, {wins(moma[v], rnd)[0]}/"
             f"{wins(moma[v], rnd)[1]}" for v in sorted(moma, reverse=True)]
    won = [v for v in sorted(moma, reverse=True) if beats(moma[v], rnd)]
    verdict = (f"beats random play from ×{won[0]:g}" if won else "beats random play at no value")
    return (f"* **{inst}**, {label} (`why-{kind}-{inst}`, ϵ = 1): LDP-MoMA {verdict} "
            f"(R_T / random, paired wins vs random: {'; '.join(cells)}).")


def panels_line(data):
    """How often LDP-MoMA beats random play and both rivals in the paper's private panels."""
    present = [pid for pid in PRIVATE_PANELS if pid in data]
    if not present:
        return "* Paper panels (ϵ = 0.5, 1): none run."
    cells, n_rand, n_best = [], 0, 0
    for pid in present:
        s = data[pid]
        rnd = st.policy(s, st.RANDOM)
        for preset in ("practical", "theory"):
            g = st.paper_group(s, preset)
            moma = g["moma"]
            r = beats(moma, rnd)
            b = all(beats(moma, g[f]) for f in ("tgp", "ata"))
            n_rand += r
            n_best += b
            cells.append(f"{pid} {preset[0]} {ratio(moma, rnd):.2f}")
    n = 2 * len(present)
    return (f"* **Paper panels** ({', '.join(present)}; ϵ = 0.5 or 1, both presets): LDP-MoMA "
            f"beats random play in {n_rand}/{n} panel-presets and both LDP rivals in {n_best}/{n} "
            f"(R_T / random, p = practical, t = theory: {'; '.join(cells)}).")


def regime_text(data):
    """Markdown bullets: where LDP-MoMA wins, instance by instance, from the runs present."""
    out = [panels_line(data)]
    cells = []
    for inst in INSTANCES:
        s = data.get(f"why-eps-{inst}")
        out.append(eps_line(inst, s) if s else f"* **{inst}**: `why-eps-{inst}` not run.")
        cells += winning_cells(inst, s) if s else []
    for kind, key, label in (("width", "width_scale", "width scale"), ("clip", None, "B and R")):
        for inst in INSTANCES:
            s = data.get(f"why-{kind}-{inst}")
            if s:
                out.append(knob_line(inst, s, kind, key, label))
    if cells:
        where = "; ".join(f"{i} at ϵ = {e:g} (𝓛 = {g:.2f}× the mean gap)" for i, e, g in cells)
        out.append(f"* **Regime where LDP-MoMA wins** (lower than random play and than both LDP "
                   f"rivals, run at the same ϵ): {where}."
                   + ("" if any(e in (0.5, 1) for _, e, _ in cells) else
                      " Nowhere at the paper's ϵ = 0.5 or 1 in these sweeps."))
    else:
        out.append("* **Regime where LDP-MoMA wins**: none among the runs present.")
    return "\n".join(out)
