"""DP-GIBO verdicts, one per figure of the paper (E-DP0 … E-DP7), computed from the committed
results/*/summary.json with the rule of examples/verdict_rule.py. Methods of one config share
seeds (run i of every method: same data and θ⁽⁰⁾), and split runs (results/NAME-s<seed>/) are
paired by seed, so every comparison is paired. make_readme.py prints the rows in README.md (and
each section's row under it), make_overview.py in examples/README.md.

Paper scale (specs/dp-gibo.md §8): GP-LS with 1000 training points and n = 1000 users, inputs
U[0, √(15/d)]^d, 10 runs, θ⁽⁰⁾ ~ U(Θ); E-DP5: d = 103 (p = 100), 1000/9000, θ⁽⁰⁾ ~ U(Θ), 5 runs;
E-DP6, E-DP7: 10 runs."""
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import verdict_rule as vr  # noqa: E402
from readme_io import load_summary  # noqa: E402

RES = os.path.join(HERE, "results")
EQUIV = 0.05  # "≈" claims: within ±5 % of the reference mean at two standard errors


def load(name):
    return load_summary(RES, name)


def seed_dirs(name):
    if not os.path.isdir(RES):
        return []
    return sorted((d for d in os.listdir(RES) if re.fullmatch(re.escape(name) + r"-s\d+", d)),
                  key=lambda d: int(d.rsplit("-s", 1)[1]))


def arms(name):
    """{label: final loss per run} of a config, or pooled over its split runs (paired by seed);
    with the number of runs, the task string and the configs used. None when nothing is
    committed."""
    s = load(name)
    if s is not None:
        return ({m["label"]: m["final_loss_per_run"] for m in s["methods"]}, s["runs"], s,
                f"`{name}`")
    parts = seed_dirs(name)
    if not parts:
        return None
    out = {}
    for d in parts:
        for m in load(d)["methods"]:
            out.setdefault(m["label"], []).extend(m["final_loss_per_run"])
    seeds = [d.rsplit("-s", 1)[1] for d in parts]
    return out, len(parts), load(parts[0]), f"`{name}-s{{{','.join(seeds)}}}`"


def mean(x):
    return sum(x) / len(x)


def sd(x):
    m = mean(x)
    return math.sqrt(sum((v - m) ** 2 for v in x) / (len(x) - 1))


def cmp_text(a, b, c):
    return f"{a} − {b} = {c.text()}: {c.word}"


def equivalent(c, ref_mean):
    return vr.equivalent(c, ref_mean, EQUIV)


def full_size(s, runs, runs_paper=10):
    task = s["config"]["task"] if "config" in s else {}
    ok = runs >= runs_paper
    if task.get("type") == "gp_lengthscale":
        ok = ok and task.get("n_train", 1000) >= 1000 and task.get("n", 0) >= 1000
    return ok


def unit_range(s):
    """The GP-LS input range of a run: 'scaled' unless the config echo says otherwise (runs made
    before the option existed were on the unit cube)."""
    task = s.get("config", {}).get("task", {})
    if task.get("type") != "gp_lengthscale":
        return None
    r = task.get("input_range")
    if r is None:
        return "unit cube" if "U[0," not in s.get("task", "") else "scaled"
    return "scaled" if r == "scaled" else ("unit cube" if r == 1 else f"[0, {r}]")


def edp0(suffix=""):
    claim = ("global BO and random search degrade with d; DP-GIBO does not suffer the same way "
             "(tested: at the largest d, DP-GIBO μ = 1 below random search and UCB-BO)")
    parts, cells, last = [], [], None
    for d in (2, 5, 10):
        a = arms(f"E-DP0-d{d}{suffix}")
        if a is None:
            continue
        runs, n, s, used = a
        dp, rs, ucb, gibo = (runs["DP-GIBO mu=1"], runs["random search"], runs["UCB-BO"],
                             runs["GIBO"])
        c_rs, c_ucb, c_g = vr.paired(dp, rs), vr.paired(dp, ucb), vr.paired(gibo, rs)
        cells.append(f"d = {d}: {cmp_text('DP-GIBO', 'random', c_rs)}; "
                     f"{cmp_text('DP-GIBO', 'UCB-BO', c_ucb)}; {cmp_text('GIBO', 'random', c_g)}")
        parts.append(f"{used} ({n} paired runs, inputs {unit_range(s)})")
        g_ucb = vr.paired(gibo, ucb)
        last = (d, c_rs, c_ucb, s, n, c_g, g_ucb)
    if last is None:
        return vr.unit("Fig 1 (d sweep), E-DP0", claim, "`E-DP0-d*`", "—", vr.NOT_RUN, "—")
    d, c_rs, c_ucb, s, n, g_rs, g_ucb = last
    if d != 10:
        return vr.unit("Fig 1 (d sweep), E-DP0", claim, "; ".join(parts), " — ".join(cells),
                       vr.NOT_RUN, "d = 10, which decides, is not committed yet")
    holds = c_rs.lower and c_ucb.lower
    scaled = unit_range(s) == "scaled"
    reason, by = "—", None
    if not holds:
        dp = next(m for m in s["methods"] if m["label"] == "DP-GIBO mu=1")
        snr = dp["grad_norm_mean"] / dp["noise_norm_expected"]
        lost = " and ".join(x for x, c in (("random search", c_rs), ("UCB-BO", c_ucb))
                            if not c.lower)
        if g_rs.lower and g_ucb.lower:
            by = "GIBO arm"
            reason = (f"at d = {d}, DP-GIBO is not lower than {lost}; explained by the "
                      f"non-private GIBO arm of the same runs (same design, start and data, no "
                      f"privacy noise): GIBO − random = {g_rs.text()} {g_rs.word}, GIBO − UCB-BO "
                      f"= {g_ucb.text()} {g_ucb.word}; the privacy noise at μ = 1 "
                      f"(‖g‖ / ν√d = {snr:.2f}) costs DP-GIBO the local method's advantage")
        else:
            reason = (f"at d = {d}, DP-GIBO is not lower than {lost}, and neither is "
                      f"non-private GIBO (GIBO − random = {g_rs.text()} {g_rs.word}, GIBO − "
                      f"UCB-BO = {g_ucb.text()} {g_ucb.word}): no experiment explains it")
    if not scaled:
        reason = "run on the unit cube, not the spec's scaled inputs; " + reason
    if suffix:
        return vr.unit("Fig 1 on the unit cube (contrast), E-DP0-unit", claim, "; ".join(parts),
                       " — ".join(cells), vr.verdict(holds, paper_scale=False, explained_by=by),
                       reason, counts=False)
    return vr.unit("Fig 1 (d sweep), E-DP0", claim, "; ".join(parts), " — ".join(cells),
                   vr.verdict(holds, paper_scale=full_size(s, n) and scaled, explained_by=by),
                   reason)


def _pick(*names):
    for nm in names:
        a = arms(nm)
        if a is not None:
            return a
    return None


def edp1():
    claim = ("larger ε: fewer evaluations and a worse final loss; ε = 0.3 ≈ 0.5 (tested: losses "
             "rise along ε = 0.5, 3, 7.5; 0.3 within ±5 % of 0.5)")
    a = _pick("E-DP1-eps-paper", "E-DP1-eps")
    if a is None:
        return vr.unit("Fig 2 top (ε sweep), E-DP1", claim, "`E-DP1-eps`", "—", vr.NOT_RUN, "—")
    runs, n, s, used = a
    evals = {m["label"]: m["evaluations_mean"] for m in s["methods"]}
    seq = [(k, runs[k]) for k in ("eps=0.5", "eps=3.0", "eps=7.5")]
    up, steps = vr.trend(seq, +1)
    # The equivalence half pools the paper-size runs with the ε = 0.3 and 0.5 arms of
    # E-DP1-eps-equiv (30 more paired runs) and E-DP1-eps-floor (10; other seeds, same sizes and
    # design), when they are committed.
    e03, e05 = list(runs["eps=0.3"]), list(runs["eps=0.5"])
    decided = f"{used} ({n} paired runs)"
    for extra in (("E-DP1-eps-equiv", FLOOR) if used == "`E-DP1-eps-paper`" else ()):
        more = arms(extra)
        if more is not None:
            e03 += more[0]["eps=0.3"]
            e05 += more[0]["eps=0.5"]
            decided += (f" + `{extra}` ({more[1]} paired runs"
                        + (" of ε = 0.3, 0.5)" if extra != FLOOR else ")"))
    eq = vr.paired(e03, e05)
    same = equivalent(eq, mean(e05))
    fewer = all(evals[x] > evals[y] for x, y in zip(list(evals), list(evals)[1:]))
    holds = up and fewer and same
    stat = (f"evaluations per run {', '.join(f'{k} {v:.0f}' for k, v in evals.items())}; final "
            f"loss {', '.join(f'{k} {mean(v):.3g}' for k, v in runs.items())}; "
            + "; ".join(f"{x}→{y}: {c.text()} {c.word}" for x, y, c in steps)
            + f"; ε 0.3 − 0.5 = {eq.text()} ({'within' if same else 'not within'} ±5 %)")
    full = full_size(s, n)
    failed = [part for part, ok in (
        ("the loss does not rise along ε = 0.5, 3, 7.5 under the rule", up),
        ("the evaluations do not fall with ε", fewer),
        ("ε = 0.3 and 0.5 are not shown equivalent: the ±5 % band does not hold the paired "
         "difference at two standard errors (a tie, not an equivalence)",
         same),
    ) if not ok]
    by = None
    floor = eps_floor(eq, mean(e05)) if not same else None
    if floor is not None:
        explains, text = floor
        failed[-1] += f"; {text}"
        by = "ε floor" if explains and up and fewer else None
    reason = "—" if holds and full else ("reduced: " if not full else "") + (
        f"{n} runs, {s['task']}" if not full else "") + "".join("; " + f for f in failed)
    return vr.unit("Fig 2 top (ε sweep), E-DP1", claim, decided, stat,
                   vr.verdict(holds, paper_scale=full, explained_by=by), reason.strip("; "))


FLOOR = "E-DP1-eps-floor"


def eps_floor(eq, ref):
    """The paper's reason for ε = 0.3 ≈ 0.5 is that the privacy error dominates there, so a
    smaller bias tolerance ε buys nothing. `E-DP1-eps-floor` tests it below 0.5 (ε = 0.5, 0.3, 0.2,
    0.1, paired runs). Either the loss still falls (ε = 0.1 lower than 0.5: the bias still counts
    at ε = 0.5 here, and the equivalence has no reason to hold), or no step below 0.5 lowers it
    (the paper's mechanism holds), and the missing equivalence is one of resolution: the pooled
    0.3 − 0.5 comparison `eq` (mean of ε = 0.5: `ref`) is tied, and the runs it would need to put
    ±5 % around a zero difference at two standard errors are counted from its paired sd. Either
    explains; a loss that rises below 0.5 does not. Returns (explains, text) or None when the
    config is not committed."""
    a = arms(FLOOR)
    if a is None:
        return None
    runs, m = a[0], a[1]
    seq = [(k, runs[k]) for k in ("eps=0.5", "eps=0.3", "eps=0.2", "eps=0.1")]
    _, steps = vr.trend(seq, -1)
    end = vr.paired(runs["eps=0.1"], runs["eps=0.5"])
    text = (f"below ε = 0.5 (`{FLOOR}`, {m} paired runs): final loss "
            + ", ".join(f"{k} {mean(v):.3g}" for k, v in seq) + "; "
            + "; ".join(f"{x}→{y}: {c.text()} {c.word}" for x, y, c in steps)
            + f"; ε 0.1 − 0.5 = {end.text()} {end.word}")
    if end.lower:
        return True, text + (" — the loss still falls below ε = 0.5, so the bias, not the "
                             "privacy noise, dominates there at this scale, and 0.3 ≈ 0.5 has "
                             "no reason to hold")
    if any(c.lower for _, _, c in steps) or end.higher or eq.sign != 0:
        return False, text + (" — the loss does not stay flat below ε = 0.5, so neither the bias "
                              "nor the resolution explains the missing equivalence")
    sd_d = eq.se * math.sqrt(eq.n)
    need = math.ceil((2 * sd_d / (EQUIV * abs(ref))) ** 2)
    return True, text + (
        f" — no ε below 0.5 lowers the loss, as the paper's reason (the privacy error dominates) "
        f"says; the 0.3 − 0.5 difference is a tie whose paired sd ({sd_d:.3g}) needs about "
        f"{need} paired runs to put ±5 % around a zero difference at two standard errors "
        f"(it has {eq.n}): explained by resolution")


def edp2():
    claim = ("at moderate n strong privacy costs a significant suboptimality gap (tested: μ = 0.2 "
             "above μ = ∞)")
    a = _pick("E-DP2-mu-paper", "E-DP2-mu")
    if a is None:
        return vr.unit("Fig 2 bottom-left (μ sweep), E-DP2", claim, "`E-DP2-mu`", "—",
                       vr.NOT_RUN, "—")
    runs, n, s, used = a
    c = vr.paired(runs["mu=0.2"], runs["mu=inf"])
    c1 = vr.paired(runs["mu=1"], runs["mu=inf"])
    holds = c.higher
    full = full_size(s, n)
    stat = (f"final loss {', '.join(f'{k} {mean(v):.3g}' for k, v in runs.items())}; "
            f"{cmp_text('μ = 0.2', 'μ = ∞', c)}; {cmp_text('μ = 1', 'μ = ∞', c1)}")
    reason = "—" if full else f"reduced: {n} runs, {s['task']}"
    if not holds:
        reason = ("μ = 0.2 is not above μ = ∞ under the rule; " + reason).rstrip("; —")
    return vr.unit("Fig 2 bottom-left (μ sweep), E-DP2", claim, f"{used} ({n} paired runs)", stat,
                   vr.verdict(holds, paper_scale=full), reason)


def edp3():
    claim = ("noiseless ≈ low noise; large noise is worse (tested at the paper's μ = 0.1: σ = 0.03 "
             "within ±5 % of σ = 0, σ = 0.25 above σ = 0)")
    a0, a3, a25 = (arms(f"E-DP3-sigma-{x}") for x in ("0.0", "0.03", "0.25"))
    if not (a0 and a3 and a25):
        return vr.unit("Fig 2 bottom-right (σ sweep), E-DP3", claim, "`E-DP3-sigma-*`", "—",
                       vr.NOT_RUN, "the paper-size runs are not all committed")
    cells, ok = [], True
    for mu in ("0.1", "1", "inf"):
        x0, x3, x25 = (a[0][f"mu={mu} sigma={sg}"] for a, sg in
                       ((a0, "0.0"), (a3, "0.03"), (a25, "0.25")))
        lo, hi = vr.paired(x3, x0), vr.paired(x25, x0)
        eq = equivalent(lo, mean(x0))
        if mu == "0.1":
            ok = eq and hi.higher
        cells.append(f"μ = {mu}: σ 0.03 − 0 = {lo.text()} ({'within' if eq else 'not within'} "
                     f"±5 %); σ 0.25 − 0 = {hi.text()} {hi.word}")
    n = a0[1]
    return vr.unit("Fig 2 bottom-right (σ sweep), E-DP3", claim,
                   f"{a0[3]}, same seeds for σ = 0.03, 0.25 ({n} paired seeds, 1000/1000, b = 16, "
                   "T = 45)", "; ".join(cells) + " (μ = 1, μ = ∞ shown, not deciding)",
                   vr.verdict(ok, paper_scale=n >= 10),
                   "—" if ok else "the σ effect is not shown at μ = 0.1 under the rule")


def at_budget(m, budget):
    """(iteration, evaluations, loss mean, loss sd) of method m's mean curve at its first iteration
    with at least `budget` mean evaluations (its last one when it never spends that many)."""
    c = m["curve"]
    i = next((k for k, e in enumerate(c["evaluations"]) if e >= budget), len(c["evaluations"]) - 1)
    return i, c["evaluations"][i], c["loss_mean"][i], c["loss_sd"][i]


def equal_budget(s, good, big, n):
    """σ = 1.0 against the correct σ at the correct σ's evaluation count: the final-loss comparison
    gives σ = 1.0 every evaluation it asks for (b_max per iteration). Unpaired, from the committed
    mean curves (mean and sd over the n runs at that row). Returns (Cmp, text)."""
    ms = {m["label"]: m for m in s["methods"]}
    g, b = ms[good], ms[big]
    budget = g["evaluations_mean"]
    row, ev, mu, sd_b = at_budget(b, budget)
    fin = g["final_loss_per_run"]
    c = vr.unpaired_stats(mean(fin), sd(fin), len(fin), mu, sd_b, n)
    return c, (f"σ = 1.0 spends {b['evaluations_mean']:g} evaluations per run to σ = 0.01's "
               f"{budget:g}; at {ev:g} evaluations (its iteration {row}) its mean loss is "
               f"{mu:.3g}, and σ 0.01 (final) − σ 1.0 (at {ev:g} evaluations) = {c.text()} "
               f"{c.word} (from the committed mean curves)")


def edp4():
    claim = ("the correct σ is best on average; σ = 1.0 conservative but viable; σ = 0.0001 worse "
             "than random search (tested: σ = 0.01 below σ = 1.0 and 0.0001; σ = 1.0 below random "
             "search; σ = 0.0001 above it)")
    a = _pick("E-DP4-misspecified-paper", "E-DP4-misspecified")
    if a is None:
        return vr.unit("Fig 5, E.5 (misspecified σ), E-DP4", claim, "`E-DP4-misspecified`", "—",
                       vr.NOT_RUN, "—")
    runs, n, s, used = a
    good, big, tiny, rs = (runs[k] for k in ("GP sigma=0.01", "GP sigma=1.0", "GP sigma=0.0001",
                                             "random search"))
    c = {"σ 0.01 − 1.0": vr.paired(good, big), "σ 0.01 − 0.0001": vr.paired(good, tiny),
         "σ 1.0 − random": vr.paired(big, rs), "σ 0.0001 − random": vr.paired(tiny, rs)}
    parts = [c["σ 0.01 − 1.0"].lower, c["σ 0.01 − 0.0001"].lower, c["σ 1.0 − random"].lower,
             c["σ 0.0001 − random"].higher]
    holds = all(parts)
    full = full_size(s, n)
    stat = "; ".join(f"{k} = {v.text()} {v.word}" for k, v in c.items())
    names = ["correct σ not below σ = 1.0", "correct σ not below σ = 0.0001",
             "σ = 1.0 not below random search", "σ = 0.0001 not above random search"]
    explained = list(parts)
    if not parts[0]:
        cb, tb = equal_budget(s, "GP sigma=0.01", "GP sigma=1.0", n)
        explained[0] = cb.lower
        names[0] += (f" ({tb}: at equal evaluations the correct σ is lower, so the budget "
                     "explains this part)" if cb.lower else f" ({tb}: the budget does not "
                     "explain it)")
    shared, decided = shared_noise(parts), f"{used} ({n} paired runs)"
    if shared is not None:
        ok, texts, m = shared
        decided += f" + `{SHARED}` ({m} paired runs, noise shared per point)"
        for i, t in texts.items():
            explained[i] = ok[i]
            names[i] += f" ({t})"
    reason = "; ".join(t for t, p in zip(names, parts) if not p)
    if not full:
        reason = f"reduced: {n} runs, {s['task']}" + (f"; {reason}" if reason else "")
    by = "budget and noise model" if not holds and all(explained) else None
    return vr.unit("Fig 5, E.5 (misspecified σ), E-DP4", claim, decided, stat,
                   vr.verdict(holds, paper_scale=full, explained_by=by), reason or "—")


SHARED = "E-DP4-shared-noise"


def shared_noise(parts):
    """The σ = 0.0001 parts of E-DP4 under the paper's noise read literally (E.5: "observe
    f + λZ"; spec §7 decision 6's option `eval_noise = shared_per_point`): one draw per point added
    to every user's loss, so it does not average out over the users. For each failed part among
    "correct σ below σ = 0.0001" (1) and "σ = 0.0001 above random search" (3): whether it holds
    there, and the text. None when the config is not committed or no such part failed."""
    a = arms(SHARED)
    want = [i for i in (1, 3) if not parts[i]]
    if a is None or not want:
        return None
    runs, m = a[0], a[1]
    c = {1: ("σ 0.01 − 0.0001", vr.paired(runs["GP sigma=0.01"], runs["GP sigma=0.0001"]), "lower"),
         3: ("σ 0.0001 − random", vr.paired(runs["GP sigma=0.0001"], runs["random search"]),
             "higher")}
    ok, texts = {}, {}
    for i in want:
        name, cm, way = c[i]
        ok[i] = cm.lower if way == "lower" else cm.higher
        texts[i] = (f"with the noise shared per point (`{SHARED}`): {name} = {cm.text()} {cm.word}"
                    + (", so the noise model explains this part" if ok[i] else
                       ", so the noise model does not explain it"))
    return ok, texts, m


def edp5():
    claim = ("μ = 1 costs little against GIBO; DP-GIBO far better than random search (tested: "
             "DP-GIBO below random search, θ⁽⁰⁾ ~ U(Θ))")
    a = arms("E-DP5-svr-d103")
    if a is None:
        return vr.unit("Fig 2 right, Ex. 4.2 (SVR), E-DP5", claim, "`E-DP5-svr-d103-s*`", "—",
                       vr.NOT_RUN, "—")
    runs, n, s, used = a
    dp, g, rs = runs["DP-GIBO mu=1"], runs["GIBO"], runs["random search"]
    c_rs, c_g = vr.paired(dp, rs), vr.paired(dp, g)
    holds = c_rs.lower
    stat = (f"from U(Θ): {cmp_text('DP-GIBO', 'random', c_rs)}; "
            f"{cmp_text('DP-GIBO', 'GIBO', c_g)}")
    b = arms("E-DP5-svr-d103-informative")
    by = None
    reason = "substitute data (generated Friedman #1, d = 103; the CT-slice data are not available)"
    if b is not None:
        r2, n2, _, used2 = b
        i_rs = vr.paired(r2["DP-GIBO mu=1"], r2["random search"])
        i_g = vr.paired(r2["DP-GIBO mu=1"], r2["GIBO"])
        stat += (f" — informative start ({used2}, {n2} seeds): "
                 f"{cmp_text('DP-GIBO', 'random', i_rs)}; {cmp_text('DP-GIBO', 'GIBO', i_g)}")
        moved = vr.paired(dp, [m["curve"]["loss_mean"][0] for d in seed_dirs("E-DP5-svr-d103")
                               for m in load(d)["methods"] if m["label"] == "DP-GIBO mu=1"])
        if not holds and i_rs.lower:
            by = "informative start"
            reason += (f"; explained by `E-DP5-svr-d103-informative` and `kernel_scale.py`: from "
                       f"U(Θ) the RBF kernel is ≈ 0 between training points, the loss is flat "
                       f"(DP-GIBO's final − start loss = {moved.text()}), and from a start where "
                       f"the kernel is informative DP-GIBO descends below random search "
                       f"({i_rs.wins}/{i_rs.n} seeds); the informative start is hand-picked, so "
                       "this explains, it does not reproduce")
    return vr.unit("Fig 2 right, Ex. 4.2 (SVR), E-DP5", claim,
                   f"{used} ({n} paired seeds, d = 103, 1000/9000, θ⁽⁰⁾ ~ U(Θ))", stat,
                   vr.verdict(holds, paper_data=False, explained_by=by), reason)


def edp6():
    claim = ("both private runs (μ = 0.5, 2) move to x̄; μ = 0.5 oscillates more; the gradient "
             "bias is negligible next to the privacy noise")
    s = load("E-DP6-normal-location")
    if s is None:
        return vr.unit("Fig 3, E.3 (normal location), E-DP6", claim, "`E-DP6-normal-location`",
                       "—", vr.NOT_RUN, "—")
    n = s["runs"]
    m = {x["label"]: x for x in s["methods"]}
    start = math.sqrt(sum(v * v for v in s["optimum"]))  # θ⁽⁰⁾ = 0
    moves, cells = [], []
    for lab in ("DP-GIBO mu=0.5", "DP-GIBO mu=2"):
        c = vr.unpaired_stats(m[lab]["distance_to_optimum_mean"], m[lab]["distance_to_optimum_sd"],
                              n, start / 2, 0.0, n)
        moves.append(c.lower)
        cells.append(f"{lab}: ‖θ_T − x̄‖ − ‖θ⁽⁰⁾ − x̄‖/2 = {c.text(wins=False)} {c.word}")
    sd = {lab: m[lab]["curve"]["theta1_sd"][-1] for lab in ("DP-GIBO mu=0.5", "DP-GIBO mu=2")}
    osc = sd["DP-GIBO mu=0.5"] > sd["DP-GIBO mu=2"]
    bias = m["DP-GIBO mu=0.5"]["bias_norm_mean"] / m["DP-GIBO mu=0.5"]["noise_norm_mean"]
    holds = all(moves) and osc and bias < 0.1
    stat = ("; ".join(cells) + f"; θ₁ sd at T: μ = 0.5 {sd['DP-GIBO mu=0.5']:.3f}, μ = 2 "
            f"{sd['DP-GIBO mu=2']:.3f} (descriptive); mean ‖bias‖ / mean ν‖w‖ at μ = 0.5: "
            f"{bias:.3f} (negligible: below 0.1)")
    return vr.unit("Fig 3, E.3 (normal location), E-DP6", claim,
                   f"`E-DP6-normal-location` ({n} runs, polynomial kernel)", stat,
                   vr.verdict(holds, paper_scale=n >= 10), "—" if holds else
                   "a sub-claim fails under the rule")


def edp7():
    claim = ("DP-GIBO, DP-GD and GD all move to θ*; DP-GIBO lags early; later both private "
             "methods match (tested: DP-GIBO within ±5 % of DP-GD at T, both within 5 % of GD, "
             "DP-GIBO above DP-GD at t = 5)")
    s = load("E-DP7-huber")
    if s is None:
        return vr.unit("Fig 4, E.4 (Huber), E-DP7", claim, "`E-DP7-huber`", "—", vr.NOT_RUN, "—")
    n = s["runs"]
    m = {x["label"]: x for x in s["methods"]}
    dp, gd, g = (m[k]["final_loss_per_run"] for k in ("DP-GIBO mu=1", "DP-GD mu=1",
                                                        "GD (non-private)"))
    match = vr.paired(dp, gd)
    to_gd = [vr.paired(x, g) for x in (dp, gd)]
    near = equivalent(match, mean(gd)) and all(equivalent(c, mean(g)) for c in to_gd)
    lag, lag_text = None, "t = 5 curve not logged (summary written before the curves)"
    if "curve" in m["DP-GIBO mu=1"] and "curve" in m["DP-GD mu=1"]:
        a, b = m["DP-GIBO mu=1"]["curve"], m["DP-GD mu=1"]["curve"]
        lag = vr.unpaired_stats(a["loss_mean"][5], a["loss_sd"][5], n, b["loss_mean"][5],
                                b["loss_sd"][5], n)
        lag_text = f"loss at t = 5, DP-GIBO − DP-GD = {lag.text(wins=False)} {lag.word}"
    holds = near and lag is not None and lag.higher
    stat = (f"final loss DP-GIBO − DP-GD = {match.text()} "
            f"({'within' if equivalent(match, mean(gd)) else 'not within'} ±5 %); DP-GIBO − GD = "
            f"{to_gd[0].text()}; DP-GD − GD = {to_gd[1].text()}; {lag_text}")
    full = n >= 10
    reason = "—" if holds and full else ("" if full else f"reduced: {n} runs (spec: 10)") + (
        "" if holds else "; a sub-claim fails or is not logged")
    return vr.unit("Fig 4, E.4 (Huber), E-DP7", claim, f"`E-DP7-huber` ({n} paired runs)", stat,
                   vr.verdict(holds, paper_scale=full), reason.strip("; ") or "—")


def units():
    return [edp0(), edp1(), edp2(), edp3(), edp4(), edp5(), edp6(), edp7(), edp0("-unit")]


if __name__ == "__main__":
    print(vr.table(units()))
    print(vr.tally(units()))
