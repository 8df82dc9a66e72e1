"""The one statistical rule of every verdict in examples/ (issue #33), written once here and
applied by every generator: the four suites' make_readme.py and make_overview.py import it, and
make_overview.py prints RULE into examples/README.md.

A comparison of two arms (lists of per-run values, lower = better) is

* **paired** when the arms share seeds (same config, or configs run with the same seed and run
  ids, so run i of both sees the same data, start and instance): d_i = a_i − b_i, mean d̄ and
  standard error se = sd(d)/√n;
* **unpaired** otherwise: d̄ = mean(a) − mean(b), se = √(s_a²/n_a + s_b²/n_b);

and a is *lower* when d̄ + 2·se < 0, *higher* when d̄ − 2·se > 0, else *tied* (two standard
errors, about a 5 % two-sided test for large n, 7.7 % at n = 10 paired). Paired win counts
("7/10 lower") are printed beside, but never decide.

A verdict is one of four words (VERDICTS), counted by make_overview.py's closing line:

* reproduced: the paper's claim holds under the rule above, at the paper's scale (or the spec's
  stated size where the paper gives none), from the paper's start, on the paper's data;
* explained: it does not (or cannot be checked there), and an experiment in the repository tests
  the stated cause (the row names that experiment and the statistic that shows it);
* not reproduced: neither; the row gives the measured statistic, and an untested cause, if any,
  is labelled as a hypothesis;
* not run: no committed result (the row says why).

A claim that holds on generated substitute data (the paper's data are not available) is "not
reproduced" with the reason "substitute data" (never "reproduced"): the substitute can show a
claim's mechanism, not the paper's figure.
"""
import math

RULE = """\
**The rule every verdict below follows** (`examples/verdict_rule.py`, applied by each suite's
`make_readme.py` and by `make_overview.py`; nothing is decided by hand):

1. *Statistic.* Two arms that share seeds (same config, or configs with the same seed and run ids:
   run i of both sees the same data, start and instance) are compared **paired**: d_i = a_i − b_i,
   mean d̄, standard error se = sd(d)/√n. Arms that do not share seeds are compared **unpaired**
   (se = √(s_a²/n_a + s_b²/n_b)). a is *lower* when d̄ + 2·se < 0, *higher* when d̄ − 2·se > 0,
   otherwise the two are *tied*: a difference counts at **two standard errors** (≈ 5 % two-sided;
   7.7 % with 10 paired runs). Paired win counts ("7/10 lower") are shown but never decide.
2. *Claims.* "A is best / smallest" holds when A is lower than every rival under 1; "A is better or
   competitive" when no rival is lower than A and A learns (is lower than the uniform-random
   baseline); a trend over a sweep ("larger M, smaller regret") when every adjacent pair moves the
   claimed way under 1; an "≈" claim ("robust to c₁", "noiseless ≈ low noise") when the pair is
   *equivalent*: |d̄| + 2·se ≤ 5 % of the reference arm's mean (or the margin the spec states, e.g.
   0.05σ_y for PO-GP-UCB) — a tie under 1 alone does not show equality. A claim about a bound
   (Fed-PNE's rounds against Eq. 37) or about a spread ("oscillates more", "less variance") is
   checked against the bound or the sample sd, and the row says so.
3. *Verdicts.* **reproduced** — the claim holds under 2 at the paper's scale (or the spec's stated
   size where the paper gives none), from the paper's start, on the paper's data. **explained** —
   it does not, and an experiment in the repository tests the stated cause (the row names it and
   the statistic that shows it). **not reproduced** — neither; the row gives the measured
   statistic; a cause no experiment tests is labelled *hypothesis*. **not run** — no committed
   result; the row says why. On generated substitute data (the paper's data are not available) a
   claim that holds is "not reproduced (substitute data)", never "reproduced".
4. *Each row* names the runs (config, number of runs or seeds) and the statistic that decide it."""

REPRODUCED, EXPLAINED, NOT_REPRODUCED, NOT_RUN = (
    "reproduced", "explained", "not reproduced", "not run")
VERDICTS = (REPRODUCED, EXPLAINED, NOT_REPRODUCED, NOT_RUN)


def _mean(x):
    return sum(x) / len(x)


def _var(x):
    m = _mean(x)
    return sum((v - m) ** 2 for v in x) / (len(x) - 1) if len(x) > 1 else float("nan")


class Cmp:
    """a against b: n, mean difference d (a − b), its standard error se, paired wins (a < b),
    and the rule's outcome: sign = −1 (a lower), +1 (a higher), 0 (tied)."""

    def __init__(self, d, se, n, paired, wins=None):
        self.d, self.se, self.n, self.paired, self.wins = d, se, n, paired, wins
        if not math.isfinite(se):  # one run: nothing can be decided
            self.sign = 0
        else:  # se = 0 (identical differences in every run) decides by the sign of d alone
            self.sign = -1 if d + 2 * se < 0 else (1 if d - 2 * se > 0 else 0)

    @property
    def lower(self):
        return self.sign < 0

    @property
    def higher(self):
        return self.sign > 0

    @property
    def tied(self):
        return self.sign == 0

    @property
    def word(self):
        return {-1: "lower", 0: "tied", 1: "higher"}[self.sign]

    @property
    def t(self):
        return self.d / self.se if self.se and math.isfinite(self.se) else float("nan")

    def text(self, digits=3, wins=True):
        """'−0.0042 ± 0.0027 (paired, n = 10, 7/10 lower): tied'."""
        kind = "paired" if self.paired else "unpaired"
        w = f", {self.wins}/{self.n} lower" if wins and self.wins is not None else ""
        return f"{fmt(self.d, digits, sign=True)} ± {fmt(self.se, digits)} ({kind}, n = {self.n}{w})"


def fmt(x, digits=3, sign=False):
    """x with `digits` significant digits ('g' style, no exponent for ordinary sizes)."""
    if x is None or not math.isfinite(x):
        return "nan"
    s = f"{x:+.{digits}g}" if sign else f"{x:.{digits}g}"
    if "e" in s:
        mant, exp = s.split("e")
        s = f"{mant}e{int(exp)}"
    return s.replace("-", "−")


def paired(a, b):
    """Paired comparison of per-run values a, b (same length, run i = same seed)."""
    if len(a) != len(b):
        raise ValueError(f"paired comparison needs equal run counts, got {len(a)} and {len(b)}")
    d = [x - y for x, y in zip(a, b)]
    n = len(d)
    se = math.sqrt(_var(d) / n) if n > 1 else float("nan")
    return Cmp(_mean(d), se, n, True, sum(x < y for x, y in zip(a, b)))


def unpaired(a, b):
    """Unpaired comparison of per-run values a, b (different seeds)."""
    se = math.sqrt(_var(a) / len(a) + _var(b) / len(b))
    return Cmp(_mean(a) - _mean(b), se, min(len(a), len(b)), False)


def unpaired_stats(ma, sa, na, mb, sb, nb):
    """Unpaired comparison from means, sample sds and run counts only."""
    return Cmp(ma - mb, math.sqrt(sa * sa / na + sb * sb / nb), min(na, nb), False)


def compare(a, b, share_seeds=True):
    """paired() when the arms share seeds and have equal run counts, else unpaired()."""
    return paired(a, b) if share_seeds and len(a) == len(b) else unpaired(a, b)


def lowest(arms, target, share_seeds=True):
    """Does arms[target] beat every other arm under the rule? Returns (holds, {label: Cmp})."""
    cmps = {k: compare(arms[target], v, share_seeds) for k, v in arms.items() if k != target}
    return all(c.lower for c in cmps.values()), cmps


def competitive(arms, target, share_seeds=True):
    """No rival lower than arms[target]. Returns (holds, {label: Cmp})."""
    cmps = {k: compare(arms[target], v, share_seeds) for k, v in arms.items() if k != target}
    return not any(c.higher for c in cmps.values()), cmps


def trend(seq, direction, share_seeds=True):
    """seq = [(key, per-run values)] in sweep order; direction −1: should fall, +1: rise.
    Returns (holds, [(key_from, key_to, Cmp of later − earlier)])."""
    steps = [(k0, k1, compare(v1, v0, share_seeds)) for (k0, v0), (k1, v1) in zip(seq, seq[1:])]
    return all(c.sign == direction for _, _, c in steps), steps


def equivalent(c, ref_mean, margin=0.05, absolute=None):
    """The "≈" test of rule 2: |d̄| + 2·se within `margin` × |ref_mean| (or an `absolute`
    margin)."""
    m = absolute if absolute is not None else margin * abs(ref_mean)
    return abs(c.d) + 2 * c.se <= m


def verdict(holds, paper_scale=True, paper_start=True, paper_data=True, explained_by=None):
    """The rule's verdict word. `explained_by`: the experiment that tests the stated cause (only
    consulted when the claim is not reproduced)."""
    if holds and paper_scale and paper_start and paper_data:
        return REPRODUCED
    return EXPLAINED if explained_by else NOT_REPRODUCED


def bucket(word):
    """reproduced / explained / neither, for the overview's count."""
    return word if word in (REPRODUCED, EXPLAINED) else "neither"


HEAD = ("| figure / table | paper's claim | runs that decide it | statistic (rule above) | verdict "
        "| reason where it differs |\n|---|---|---|---|---|---|")


def unit(fig, claim, runs, stat, word, reason="—", counts=True):
    """One verdict row: `word` is one of VERDICTS; `counts`: a figure or table of the paper
    (False for extensions and project findings, which the overview does not count)."""
    assert word in VERDICTS, word
    return {"fig": fig, "claim": claim, "runs": runs, "stat": stat, "verdict": word,
            "reason": reason or "—", "counts": counts}


def row(u):
    word = f"**{u['verdict']}**" if u["counts"] else f"{u['verdict']} (not counted: not a paper unit)"
    return (f"| {u['fig']} | {u['claim']} | {u['runs']} | {u['stat']} | {word} "
            f"| {u['reason']} |")


def table(units):
    """The markdown table of a suite's verdict rows."""
    return HEAD + "\n" + "\n".join(row(u) for u in units)


def tally(units):
    """{reproduced, explained, neither: count} over the counted units."""
    out = {REPRODUCED: 0, EXPLAINED: 0, "neither": 0}
    for u in units:
        if u["counts"]:
            out[bucket(u["verdict"])] += 1
    return out
