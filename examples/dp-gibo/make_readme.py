#!/usr/bin/env python3
"""Regenerates README.md (from README.template.md) and plots/ from the committed summary.json files
in results/<config>/ (run_all.sh copies them there from real runs). Markers: {{table:NAME}} (the
methods of one config), {{snr}} (signal ‖g‖ against the privacy noise, every config that logged
it), {{plot:NAME}} (loss curves drawn from the summary's per-iteration means), {{fig3:NAME}} (the
paper's Fig. 3 panels: θ₁, loss, bias against noise, per iteration, with a table),
{{pooled:NAME}} (one table over the split runs results/NAME-s<seed>/, one run per seed),
{{unit:E-DPk}} (the section's generated verdict, verdicts.py), {{pairs:NAME}} (every method
against the first, paired by run), {{VERDICTS}} (every section's verdict row).
Usage: make_readme.py [--check]   (--check: exit 1 if README.md would change; writes nothing)"""
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
WRITE_PLOTS = True  # False under --check: compare the text, write nothing


def fmt(x, digits=4):
    if isinstance(x, str):
        return x
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.{digits}g}"


def load(name):
    return load_summary(os.path.join(HERE, "results"), name)


def table(name):
    s = load(name)
    if s is None:
        return f"(`{name}` has not been run yet; see the cost note above.)"
    has_dist = any("distance_to_optimum_mean" in m for m in s["methods"])
    head = ["method", "final loss (mean ± sd)", "evaluations / run", "μ", "noise std ν",
            "δ at ε=1", "seconds"]
    if has_dist:
        head.insert(2, "‖θ_T − θ*‖ (mean ± sd)")
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m in s["methods"]:
        p = m["privacy"]
        mu = p["mu"] if not isinstance(p["mu"], str) else math.inf
        delta = p.get("delta_at_epsilon", {}).get("1", p.get("delta_at_epsilon", {}).get("1.000000"))
        cells = [m["label"], f"{fmt(m['final_loss_mean'])} ± {fmt(m['final_loss_sd'], 2)}",
                 fmt(m["evaluations_mean"]), fmt(mu), fmt(p.get("noise_std", 0.0)),
                 fmt(delta) if delta is not None else "–", f"{m['seconds']:.1f}"]
        if has_dist:
            d = m.get("distance_to_optimum_mean")
            cells.insert(2, "–" if d is None else
                         f"{fmt(d)} ± {fmt(m.get('distance_to_optimum_sd', 0.0), 2)}")
        rows.append("| " + " | ".join(cells) + " |")
    extra = f"\n\n{s['runs']} runs, task {s['task']}, seed {s['seed']}, privacy noise: " \
            f"{s['privacy_noise']}"
    if "optimum_loss" in s:
        extra += f", optimum loss f(θ*) = {fmt(s['optimum_loss'], 6)}"
    return "\n".join(rows) + extra + "."


def snr():
    """‖g‖ (the clipped-mean posterior gradient the method sees) against the privacy noise ν√d.
    Split runs (NAME-s<seed>/, one run per seed) are pooled into one row per method: the means
    over the seeds, and the final loss's mean ± sd over them."""
    rows = ["| experiment | method | d | mean ‖g‖ | ν | ν√d (expected ‖noise‖) | mean ν‖w‖ | ‖g‖ / ν√d | final loss |",
            "|---|---|---|---|---|---|---|---|---|"]
    groups = {}  # experiment -> [(summary, d)] (a split experiment: one per seed)
    for name in sorted(os.listdir(os.path.join(HERE, "results"))):
        s = load(name)
        if s is None:
            continue
        task = s["config"]["task"]
        d = task["d"] if "d" in task else task.get("p", 0) + 3
        split = re.fullmatch(r"(.+)-s\d+", name)
        groups.setdefault(split.group(1) + " (seeds pooled)" if split else name, []).append((s, d))
    for name, parts in groups.items():
        d = parts[0][1]
        by_label = {}
        for s, _ in parts:
            for m in s["methods"]:
                if "grad_norm_mean" in m:
                    by_label.setdefault(m["label"], []).append(m)
        for label, ms in by_label.items():
            mean = lambda key: sum(m[key] for m in ms) / len(ms)  # noqa: E731
            nu = ms[0]["privacy"].get("noise_std", 0.0)
            exp = ms[0]["noise_norm_expected"]
            ratio = "∞ (no noise)" if exp == 0 else f"{mean('grad_norm_mean') / exp:.2f}"
            losses = [x for m in ms for x in m["final_loss_per_run"]]
            lm = sum(losses) / len(losses)
            sd = (math.sqrt(sum((x - lm) ** 2 for x in losses) / (len(losses) - 1))
                  if len(losses) > 1 else 0.0)
            rows.append(f"| {name} | {label} | {d} | {fmt(mean('grad_norm_mean'), 3)} | {fmt(nu, 3)} | "
                        f"{fmt(exp, 3)} | {fmt(mean('noise_norm_mean'), 3)} | {ratio} | "
                        f"{fmt(lm)} ± {fmt(sd, 2)} |")
    return "\n".join(rows)


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None


def plot(name):
    s = load(name)
    if s is None or not all("curve" in m for m in s["methods"]):
        legacy = os.path.join("results", name, "loss.png")
        return f"![{name}]({legacy})" if os.path.exists(os.path.join(HERE, legacy)) else ""
    if not WRITE_PLOTS:  # --check: the link a drawing run writes
        return f"![{name}](plots/{name}.png)"
    plt = _pyplot()
    if plt is None:
        return ""
    os.makedirs(os.path.join(HERE, "plots"), exist_ok=True)
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for m in s["methods"]:
        c = m["curve"]
        x = c["evaluations"]
        lo = [a - b for a, b in zip(c["loss_mean"], c["loss_sd"])]
        hi = [a + b for a, b in zip(c["loss_mean"], c["loss_sd"])]
        ax.plot(x, c["loss_mean"], label=m["label"])
        ax.fill_between(x, lo, hi, alpha=0.2)
    ax.set_xlabel("evaluations")
    ax.set_ylabel("noise-free loss (mean ± sd)")
    ax.set_title(f"{name} ({s['runs']} runs)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "plots", name + ".png"), dpi=80)
    plt.close(fig)
    return f"![{name}](plots/{name}.png)"


def fig3(name):
    """Paper Fig. 3 (E-DP6): θ₁ (mean ± sd over runs) with x̄₁, loss, and ‖bias‖ against ν‖w‖."""
    s = load(name)
    if s is None:
        return f"(`{name}` has not been run yet.)"
    rows = ["| method | θ₁ at T (mean ± sd over runs) | ‖θ_T − x̄‖ (mean ± sd) | final loss − f(x̄) | "
            "mean ‖bias‖ | mean ‖g − ∇f‖ | mean ν‖w‖ |", "|---|---|---|---|---|---|---|"]
    for m in s["methods"]:
        c = m["curve"]
        rows.append(f"| {m['label']} | {fmt(c['theta1_mean'][-1])} ± {fmt(c['theta1_sd'][-1], 2)} | "
                    f"{fmt(m['distance_to_optimum_mean'])} ± {fmt(m['distance_to_optimum_sd'], 2)} | "
                    f"{fmt(m['final_loss_mean'] - s['optimum_loss'], 3)} | "
                    f"{fmt(m.get('bias_norm_mean'), 3)} | {fmt(m.get('grad_error_mean'), 3)} | "
                    f"{fmt(m.get('noise_norm_mean', 0.0), 3)} |")
    note = (f"\n\n{s['runs']} runs, task {s['task']}, x̄₁ = {fmt(s['optimum'][0])}, "
            f"f(x̄) = {fmt(s['optimum_loss'], 6)}, privacy noise: {s['privacy_noise']}. ‖bias‖ = "
            "‖g − clipped mean of the true per-user gradients‖ (the surrogate's error), ‖g − ∇f‖ adds "
            "the clipping bias; both are means over runs and iterations t ≥ 1.")
    if not WRITE_PLOTS:  # --check: the text a drawing run writes
        return "\n".join(rows) + note + f"\n\n![{name}](plots/{name}.png)"
    plt = _pyplot()
    if plt is None:
        return "\n".join(rows) + note
    fig, ax = plt.subplots(1, 3, figsize=(13, 3.6))
    for m in s["methods"]:
        c = m["curve"]
        t = list(range(len(c["theta1_mean"])))
        lo = [a - b for a, b in zip(c["theta1_mean"], c["theta1_sd"])]
        hi = [a + b for a, b in zip(c["theta1_mean"], c["theta1_sd"])]
        ax[0].plot(t, c["theta1_mean"], label=m["label"], lw=1)
        ax[0].fill_between(t, lo, hi, alpha=0.12)
        ax[1].plot(t, [max(v - s["optimum_loss"], 1e-12) for v in c["loss_mean"]], lw=1)
    ax[0].axhline(s["optimum"][0], color="k", ls=":", label="x̄₁")
    ax[0].set_title("θ₁ (mean ± sd over runs)")
    ax[1].set_title("f(θ_t) − f(x̄) (mean over runs)")
    ax[1].set_yscale("log")
    first = next(m for m in s["methods"] if m["curve"].get("bias_mean"))
    c = first["curve"]
    t = [i for i, b in enumerate(c["bias_mean"]) if b is not None]
    ax[2].plot(t, [c["bias_mean"][i] for i in t], label="‖bias‖")
    ax[2].plot(t, [c["noise_norm_mean"][i] for i in t], label="ν‖w‖")
    ax[2].set_yscale("log")
    ax[2].set_title(f"{first['label']}: bias vs noise")
    for a in ax:
        a.set_xlabel("iteration t")
    ax[0].legend(fontsize=6)
    ax[2].legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(os.path.join(HERE, "plots"), exist_ok=True)
    fig.savefig(os.path.join(HERE, "plots", name + ".png"), dpi=80)
    plt.close(fig)
    return "\n".join(rows) + note + f"\n\n![{name}](plots/{name}.png)"


def seed_dirs(name):
    """The folders results/NAME-s<seed>/ (one run each at its own seed), by seed."""
    base = os.path.join(HERE, "results")
    return sorted((d for d in os.listdir(base) if re.fullmatch(re.escape(name) + r"-s\d+", d)),
                  key=lambda d: int(d.rsplit("-s", 1)[1]))


def from_theta0(curve):
    """True for an iterative method's curve (its first row is θ⁽⁰⁾), not a search's best-so-far."""
    return curve.get("evaluations", [None])[0] == 0


def pooled(name):
    """One table over results/NAME-s<seed>/ (each a single run at its own seed, data redrawn)."""
    parts = seed_dirs(name)
    if not parts:
        return f"(no run of `{name}` yet.)"
    runs, starts = {}, {}  # label -> final losses; label -> losses at θ⁽⁰⁾ (iterative methods)
    seconds = 0.0
    for d in parts:
        s = load(d)
        for m in s["methods"]:
            runs.setdefault(m["label"], []).extend(m["final_loss_per_run"])
            curve = m.get("curve", {})
            if from_theta0(curve):
                starts.setdefault(m["label"], []).append(curve["loss_mean"][0])
            seconds += m["seconds"]
    rows = ["| method | loss at θ⁽⁰⁾ (mean over seeds) | final loss (mean ± sd over seeds) | runs |",
            "|---|---|---|---|"]
    for label, xs in runs.items():
        mean = sum(xs) / len(xs)
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
        spread = fmt(sd, 2) if len(xs) > 1 else "– (one run)"
        st = starts.get(label)
        start = fmt(sum(st) / len(st)) if st else "– (best of its draws)"
        rows.append(f"| {label} | {start} | {fmt(mean)} ± {spread} | {len(xs)} |")
    seeds = ", ".join(d.rsplit("-s", 1)[1] for d in parts)
    text = "\n".join(rows) + (f"\n\nSeeds {seeds} (one run each, `--runs 1 --seed S`; each seed draws "
                             f"its own data); {seconds / 3600:.1f} CPU-hours in all.")
    return text + paired_against_first(runs)


def paired_against_first(runs):
    """The first method against each other one, paired by seed (every method ran once per seed on
    that seed's data): the seeds where the first ends lower, and the mean paired difference (other
    − first) ± its standard error."""
    labels = list(runs)
    first = runs[labels[0]]
    lines = []
    for label in labels[1:]:
        xs = runs[label]
        if len(xs) != len(first) or len(xs) < 2:
            continue
        diff = [b - a for a, b in zip(first, xs)]
        mean = sum(diff) / len(diff)
        se = math.sqrt(sum((x - mean) ** 2 for x in diff) / (len(diff) - 1) / len(diff))
        lower = sum(1 for x in diff if x > 0)
        lines.append(f"| {label} | {lower}/{len(diff)} | {mean:+.4f} ± {se:.4f} |")
    if not lines:
        return ""
    head = [f"\n\nPaired by seed against {labels[0]}:\n",
            f"| other method | seeds where {labels[0]} ends lower | mean difference (other − "
            f"{labels[0]}) ± s.e. |", "|---|---|---|"]
    return "\n".join(head + lines)


def paths(name):
    """The path of coordinate 1 (θ₁, the log-lengthscale of feature 1) of every iterative method over
    results/NAME-s<seed>/: per iteration t the mean θ₁ over the seeds, the mean |θ₁(t) − θ₁(t−1)|,
    and in how many seeds the step at t reverses the sign of the step before (an oscillation)."""
    parts = seed_dirs(name)
    series = {}  # label -> [θ₁ path per seed]
    for d in parts:
        for m in load(d)["methods"]:
            curve = m.get("curve", {})
            if "theta1_mean" in curve and from_theta0(curve):
                series.setdefault(m["label"], []).append(curve["theta1_mean"])
    if not series:
        return f"(no θ₁ path of `{name}` yet.)"
    head, rule = ["t"], ["---"]
    for label in series:
        head += [f"{label}: mean θ₁", "mean step size", "reversals"]
        rule += ["---"] * 3
    rows = ["| " + " | ".join(head) + " |", "|" + "|".join(rule) + "|"]
    for t in range(min(len(p) for ps in series.values() for p in ps)):
        cells = [str(t)]
        for ps in series.values():
            cells.append(fmt(sum(p[t] for p in ps) / len(ps), 3))
            if t == 0:
                cells += ["–", "–"]
                continue
            cells.append(fmt(sum(abs(p[t] - p[t - 1]) for p in ps) / len(ps), 3))
            rev = sum(1 for p in ps if t >= 2 and (p[t] - p[t - 1]) * (p[t - 1] - p[t - 2]) < 0)
            cells.append(f"{rev}/{len(ps)}" if t >= 2 else "–")
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def sigma_pairs(prefix):
    """Paired σ comparison over the split runs results/PREFIX-<σ>-s<seed>/: per arm (the label
    without its "sigma=" part), the mean final loss at each σ over the seeds every σ has, and per
    σ > 0 the seeds where it ended above σ = 0 with the mean paired difference ± its standard
    error (each seed draws its data and θ⁽⁰⁾ once for every σ, so the pairs share them)."""
    base = os.path.join(HERE, "results")
    found = {}
    for d in os.listdir(base):
        m = re.fullmatch(re.escape(prefix) + r"-([0-9.]+)-s(\d+)", d)
        if m:
            found.setdefault(m.group(1), {})[int(m.group(2))] = d
    if len(found) < 2:
        return f"(no paired runs of `{prefix}` yet.)"
    sigmas = sorted(found, key=float)
    seeds = sorted(set.intersection(*(set(v) for v in found.values())))
    loss = {}  # (arm, sigma) -> [final loss per seed]
    for sg in sigmas:
        for seed in seeds:
            for m in load(found[sg][seed])["methods"]:
                arm = m["label"].split(" sigma=")[0]
                loss.setdefault((arm, sg), []).append(m["final_loss_per_run"][0])
    arms = list(dict.fromkeys(a for a, _ in loss))
    head = ["arm"] + [f"σ = {sg}" for sg in sigmas]
    head += [f"σ = {sg} above σ = {sigmas[0]}: seeds, mean diff ± se" for sg in sigmas[1:]]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for arm in arms:
        cells = [arm] + [fmt(sum(loss[(arm, sg)]) / len(seeds)) for sg in sigmas]
        ref = loss[(arm, sigmas[0])]
        for sg in sigmas[1:]:
            d = [x - r for x, r in zip(loss[(arm, sg)], ref)]
            mean = sum(d) / len(d)
            se = math.sqrt(sum((x - mean) ** 2 for x in d) / (len(d) - 1) / len(d)) if len(d) > 1 else 0.0
            above = sum(1 for x in d if x > 0)
            cells.append(f"{above}/{len(d)}, {mean:+.4f} ± {se:.4f}")
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + f"\n\nSeeds {', '.join(map(str, seeds))} (paired: the same seed for every σ)."


def unit(sid):
    """The generated verdict of one section (verdicts.py, the rule of examples/verdict_rule.py):
    verdict, the runs and the statistic that decide it, and the reason where it differs."""
    u = next((u for u in verdicts.units() if u["fig"].endswith(sid)), None)
    if u is None:
        return f"(no verdict row for {sid})"
    return (f"**Verdict (generated): {u['verdict']}.** Claim as tested: {u['claim']}. Decided by "
            f"{u['runs']}: {u['stat']}. Reason where it differs: {u['reason']}.")


def pairs(name):
    """Every method against DP-GIBO mu=1, paired by run (the rule of examples/verdict_rule.py)."""
    s = load(name)
    if s is None:
        return f"(`{name}` has not been run yet.)"
    runs = {m["label"]: m["final_loss_per_run"] for m in s["methods"]}
    first = next(iter(runs))
    rows = [f"| {name}: other − {first} | paired difference | rule |", "|---|---|---|"]
    for label, xs in runs.items():
        if label == first:
            continue
        c = vr.paired(xs, runs[first])
        rows.append(f"| {label} | {c.text()} | {label} {c.word} |")
    return "\n".join(rows)


def main(argv):
    global WRITE_PLOTS
    check = bool(argv) and argv[0] == "--check"
    WRITE_PLOTS = not check
    with open(os.path.join(HERE, "README.template.md")) as f:
        text = f.read()
    out = re.sub(r"\{\{table:([A-Za-z0-9_.-]+)\}\}", lambda m: table(m.group(1)), text)
    out = re.sub(r"\{\{plot:([A-Za-z0-9_.-]+)\}\}", lambda m: plot(m.group(1)), out)
    out = re.sub(r"\{\{fig3:([A-Za-z0-9_.-]+)\}\}", lambda m: fig3(m.group(1)), out)
    out = re.sub(r"\{\{pooled:([A-Za-z0-9_.-]+)\}\}", lambda m: pooled(m.group(1)), out)
    out = re.sub(r"\{\{paths:([A-Za-z0-9_.-]+)\}\}", lambda m: paths(m.group(1)), out)
    out = re.sub(r"\{\{sigma_pairs:([A-Za-z0-9_.-]+)\}\}", lambda m: sigma_pairs(m.group(1)), out)
    out = out.replace("{{snr}}", snr())
    out = re.sub(r"\{\{unit:([A-Za-z0-9_.-]+)\}\}", lambda m: unit(m.group(1)), out)
    out = re.sub(r"\{\{pairs:([A-Za-z0-9_.-]+)\}\}", lambda m: pairs(m.group(1)), out)
    out = out.replace("{{VERDICTS}}", vr.table(verdicts.units()))
    return check_or_write(os.path.join(HERE, "README.md"), out, argv)[0]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
