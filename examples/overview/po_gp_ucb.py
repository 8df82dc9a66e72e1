"""PO-GP-UCB rows of the examples/README.md overview (make_overview.py): every table and figure,
ours beside the paper's digits (po-gp-ucb/results_table.py holds them, from specs §9), the verdict
read from the suite README's bold verdict line of the table's group."""
import os
import re

import util as ou

RT = ou.module("po-gp-ucb", "results_table")
DATA = RT.load(os.path.join(ou.EXAMPLES, "po-gp-ucb", "results"))
GROUP = {"synthetic": "Synthetic", "loans": "Loans", "property": "Property", "branin": "Branin"}
REASON = {  # why a group differs, in words; the numbers are in po-gp-ucb/README.md
    "synthetic": "—",
    "loans": "generated look-alike (the real loan data are not public); IF rows within noise",
    "property": "generated look-alike: the ELSE branch's distance inflation helps on it",
    "branin": "three near-equal basins; runs leave a secondary one only after T = 50 "
              "(T-sensitivity table: S_T falls to 0 by T = 200)",
}


def verdicts():
    """{data: verdict} from the '**<Group>, Tables …: <verdict>.**' lines of the suite README."""
    with open(os.path.join(ou.EXAMPLES, "po-gp-ucb", "README.md")) as f:
        text = f.read()
    out = {}
    for key, name in GROUP.items():
        m = re.search(rf"\*\*{name}, Tables[^:]*: ([^*]*?)\.?\*\*", text, re.S)
        out[key] = " ".join(m.group(1).split()) if m else "—"
    return out


def table_row(tid, verdict):
    data = RT.TABLE_DATA[tid]
    ss = DATA.get(f"table{tid}-{data}")
    paper, rmax = RT.PAPER_TABLES[tid]
    p_low = min(paper.values())
    p_best = [r for r in sorted(paper) if paper[r] == p_low]
    claim = (f"S_T {paper.get(rmax, float('nan')):.3f} at r_max = {rmax}; lowest at r = "
             f"{', '.join(map(str, p_best))}")
    if not ss:
        return ou.not_run(f"Table {tid} ({data})", claim, f"table{tid}-{data}")
    _, po = RT.split(ss[0])
    means = {r: RT.stat(ss, p["label"])[0] for _, r, p, _ in po}
    best = min(means, key=means.get)
    at_rmax = means.get(rmax, float("nan"))
    return (f"| Table {tid} ({data}) | {claim} | S_T/σ_y {at_rmax:.3f} at r = {rmax}; lowest at "
            f"r = {best} ({means[best]:.3f}); {ss[0]['runs']} runs"
            + (f" × {len(ss)} draws of f" if len(ss) > 1 else "")
            + f" | {verdict} | {REASON[data] if best not in p_best else '—'} |")


def figure_row(fig, verdict):
    ss = DATA.get(fig)
    paper = RT.PAPER_FIGS[fig]
    claim = "excess over GP-UCB: " + ", ".join(f"{v:+.3f} (ε = e^{k})" for k, v in paper.items())
    name = f"Fig {fig.split('-')[0][3:]} ({fig.split('-')[1]})"
    if not ss:
        return ou.not_run(name, claim, fig)
    base, po = RT.split(ss[0])
    b = RT.stat(ss, base["label"])[0]
    ours = ", ".join(f"{RT.stat(ss, p['label'])[0] - b:+.3f} (e^{e})" for e, _, p, _ in po)
    data = fig.split("-")[1]
    return f"| {name} | {claim} | {ours} | {verdict} | {REASON[data]} |"


def rows():
    v = verdicts()
    out = [table_row(tid, v[RT.TABLE_DATA[tid]]) for tid in range(1, 13)]
    out += [figure_row(fig, v[fig.split("-")[1]]) for fig in RT.PAPER_FIGS]
    return out
