"""LDP-BO rows of the examples/README.md overview (make_overview.py), from the committed
ldp-bo/results/*/summary.json files, with the suite's own verdict rule (ldp-bo/ldp_stats.py)."""
import os

import util as ou

README = ou.module("ldp-bo", "make_readme")
ST = README.st
DATA = ST.load(os.path.join(ou.EXAMPLES, "ldp-bo", "results"))


def ratios(s, preset):
    """'TGP a, ATA b, MoMA c' = mean R_T / random play's, for one preset."""
    g = ST.paper_group(s, preset)
    rnd = ST.random_mean(s)
    name = {"tgp": "TGP", "ata": "ATA", "moma": "MoMA"}
    return ", ".join(f"{name[f]} {g[f]['cumulative_regret']['mean'] / rnd:.2f}" for f in name)


def reason(s, verdicts):
    """Why a panel's claim fails, from its numbers."""
    if all(v.startswith("reproduced") for v in verdicts.values()):
        return "—"
    rnd = ST.policy(s, ST.RANDOM)
    out = []
    for preset, v in verdicts.items():
        if v.startswith("reproduced"):
            continue
        g = ST.paper_group(s, preset)
        best = min(p["cumulative_regret"]["mean"] for p in g.values())
        ratio = best / rnd["cumulative_regret"]["mean"]
        if not any(README.regime.beats(p, rnd) for p in g.values()):
            out.append(f"{preset}: none of the three beats random play in ≥ 9/10 paired trials "
                       f"(best mean R_T / random {ratio:.2f})")
        else:
            out.append(f"{preset}: the algorithms learn, MoMA not the lowest")
    private = any("epsilon" in p.get("params", {}) for p in s["policies"])
    tail = "; see 'Where LDP-MoMA wins' in ldp-bo/README.md" if private else ""
    return "; ".join(out) + tail


def panel_row(pid):
    fig, setting, kind = README.CLAIMS[pid]
    claim = "MoMA tends to outperform" if kind == "outperform" else "MoMA better or competitive"
    s = DATA.get(pid)
    if s is None:
        return ou.not_run(f"{fig} ({pid}: {setting})", claim, f"ldp-bo/{pid}.json")
    verdicts = {pr: ST.moma_verdict(s, pr, kind)["verdict"] for pr in ("practical", "theory")}
    ours = "; ".join(f"{pr}: {ratios(s, pr)}" for pr in ("practical", "theory"))
    verdict = "; ".join(f"{pr}: {v.split(' (')[0]}" for pr, v in verdicts.items())
    return (f"| {fig} ({pid}: {setting}) | {claim} | R_T / random, T = {s['T']}, {s['runs']} "
            f"trials — {ours} | {verdict} | {reason(s, verdicts)} |")


def claims_rows():
    """The suite's 'other claims' table (error bar of Fig 2(d), complexity) as overview rows."""
    out = []
    for line in README.other_claims(DATA).splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        out.append(f"| {cells[0].split(':')[0]} | {cells[0].split(': ', 1)[-1]} | {cells[1]} "
                   f"| {cells[2].strip('*')} | — |")
    return out


def eps_row():
    pairs = []
    for inst, lo, hi in (("light", "L2", "L8"), ("stock", "L9", "L3")):
        if lo in DATA and hi in DATA:
            a = {p["label"]: p["cumulative_regret"]["mean"] for p in DATA[lo]["policies"]}
            b = {p["label"]: p["cumulative_regret"]["mean"] for p in DATA[hi]["policies"]}
            r = [a[k] / b[k] for k in a if k in b and k != ST.RANDOM]
            pairs.append(f"{inst}: R_T(ϵ = 0.5) / R_T(ϵ = 1) = {min(r):.2f}–{max(r):.2f}")
    if not pairs:
        return ou.not_run("ϵ 0.5 vs 1 (bounds)", "halving ϵ doubles the regret", "ldp-bo/L2, L8")
    return (f"| ϵ 0.5 vs 1 (from the bounds, not a claim) | halving ϵ roughly doubles R_T (2–2.65) "
            f"| {'; '.join(pairs)} | not seen | the Laplace noise swamps the signal at both ϵ |")


def regime_row():
    text = README.regime.regime_text(DATA).splitlines()[-1]
    return (f"| Issue #16: where LDP-MoMA wins | — | {text.split(':', 1)[1].strip().rstrip('.')} "
            "| project finding | `why-eps-*`, `why-width-*` configs |")


def rows():
    return [panel_row(pid) for pid in README.CLAIMS] + claims_rows() + [eps_row(), regime_row()]
