"""DP-GIBO rows of the examples/README.md overview (make_overview.py): final losses from the
committed dp-gibo/results/*/summary.json files, the paper's claim and the verdict read from the
suite README (its "Paper's claim:" line and the first sentence of its "gpbandit:" line), and the
gradient-to-privacy-noise ratio ‖g‖ / ν√d of the private arms as the reason where a claim fails."""
import os
import re

import util as ou

DG = ou.module("dp-gibo", "make_readme")
LEGACY = {"E-DP3": "E-DP3-sigma"}  # the earlier reduced run, shown while the full one is missing
SECTIONS = [  # (README section id, paper figure, configs in the order shown)
    ("E-DP0", "Fig 1 (d sweep)", ["E-DP0-d2", "E-DP0-d5", "E-DP0-d10"]),
    ("E-DP1", "Fig 2 top (ε sweep)", ["E-DP1-eps"]),
    ("E-DP2", "Fig 2 bottom-left (μ sweep)", ["E-DP2-mu"]),
    ("E-DP3", "Fig 2 bottom-right (σ sweep)",
     ["E-DP3-sigma-0.0", "E-DP3-sigma-0.03", "E-DP3-sigma-0.25"]),
    ("E-DP4", "Fig 5, E.5 (misspecified σ)", ["E-DP4-misspecified"]),
    ("E-DP5", "Fig 2 right, Ex. 4.2 (SVR)", ["E-DP5-svr-substitute"]),
    ("E-DP6", "Fig 3, E.3 (normal location)", ["E-DP6-normal-location"]),
    ("E-DP7", "Fig 4, E.4 (Huber)", ["E-DP7-huber"]),
]


def readme_sections():
    """{section id: its text} of dp-gibo/README.md, split at the '## E-DPk' headings."""
    with open(os.path.join(ou.EXAMPLES, "dp-gibo", "README.md")) as f:
        text = f.read()
    parts = re.split(r"^## (E-DP\d)\b", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def first_sentence(text, lead, whole_paragraph=False):
    """The first sentence after `lead` (joined across line breaks), without its final period;
    with whole_paragraph, everything up to 'Settings' or the paragraph's end."""
    stop = r"(?:\.?\s*Settings|\.?\n\n)" if whole_paragraph else r"(?:\.\s|\.$|\n\n)"
    m = re.search(re.escape(lead) + r"\s*(.+?)" + stop, text, re.S)
    return " ".join(m.group(1).split()) if m else "—"


def losses(name):
    s = DG.load(name)
    if s is None:
        return None, None
    cells = [f"{m['label']} {DG.fmt(m['final_loss_mean'], 3)}" for m in s["methods"]]
    snr = [m["grad_norm_mean"] / m["noise_norm_expected"] for m in s["methods"]
           if m.get("noise_norm_expected")]
    tag = name.split("-", 2)[-1]
    return f"{tag}: {', '.join(cells)} ({s['runs']} runs)", snr


def pooled(name):
    """Like losses(), over the split runs results/NAME-s<seed>/ (one run per seed)."""
    base = os.path.join(ou.EXAMPLES, "dp-gibo", "results")
    parts = sorted((d for d in os.listdir(base) if re.fullmatch(re.escape(name) + r"-s\d+", d)),
                   key=lambda d: int(d.rsplit("-s", 1)[1]))
    runs, snr = {}, []
    for d in parts:
        for m in DG.load(d)["methods"]:
            runs.setdefault(m["label"], []).extend(m["final_loss_per_run"])
            if m.get("noise_norm_expected"):
                snr.append(m["grad_norm_mean"] / m["noise_norm_expected"])
    if not runs:
        return None, None
    cells = [f"{k} {DG.fmt(sum(v) / len(v), 3)}" for k, v in runs.items()]
    n = len(next(iter(runs.values())))
    return f"{name.split('-', 2)[-1]}: {', '.join(cells)} ({n} runs, one per seed)", snr


def row(sid, fig, configs, sections):
    text = sections.get(sid, "")
    claim = first_sentence(text, "Paper's claim:", whole_paragraph=True)
    verdict = first_sentence(text, "gpbandit:")
    ours, ratios = [], []
    for name in configs:
        cell, snr = losses(name)
        if cell is None:
            cell, snr = pooled(name)
        if cell:
            ours.append(cell)
            ratios += snr
    missing = [c for c in configs if DG.load(c) is None and pooled(c)[0] is None]
    if missing:
        ours.append("not run yet: " + ", ".join(missing))
    if sid == "E-DP5":
        big, _ = pooled("E-DP5-svr-d103")
        ours.append("d = 103 (paper size): " + (big if big else "not run yet"))
        start, _ = pooled("E-DP5-svr-d103-informative")
        if start:
            ours.append("d = 103 from an informative θ⁽⁰⁾: " + start.split(": ", 1)[1])
        path = os.path.join(ou.EXAMPLES, "dp-gibo", "verdicts", "E-DP5.md")
        if os.path.exists(path):  # the verdict over both sizes (the section's first is the substitute's)
            with open(path) as f:
                verdict = first_sentence(f.read(), "gpbandit:")
    if len(missing) == len(configs) and sid in LEGACY:
        cell, _ = losses(LEGACY[sid])
        ours.append(f"earlier reduced run (`{LEGACY[sid]}`) {cell}")
        verdict = "pending (paper-size runs missing)"
    reason = "—" if verdict.startswith("reproduced") else (
        f"private arms' ‖g‖ / ν√d = {min(ratios):.2f}–{max(ratios):.2f} (README signal table)"
        if ratios else "see dp-gibo/README.md")
    return f"| {fig}, {sid} | {claim} | {'; '.join(ours)} | {verdict} | {reason} |"


def rows():
    sections = readme_sections()
    return [row(sid, fig, configs, sections) for sid, fig, configs in SECTIONS]
