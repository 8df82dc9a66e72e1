#!/usr/bin/env python3
"""Checks of the two DP-GIBO explanations that read extra configs (examples/dp-gibo/verdicts.py;
CTest DpGiboExplanations): E-DP1's ε floor (explains the missing 0.3 ≈ 0.5 when ε = 0.1 ends lower
than ε = 0.5, or, by resolution, when the loss stays flat below 0.5 and the pooled pair is tied) and E-DP4's shared noise (explains a failed σ = 0.0001 part only
when that part holds with the noise shared per point). Hand-made per-run values replace the
committed results; deterministic; exits 1 on the first failure."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdicts  # noqa: E402


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


def fake(tables):
    """verdicts.arms replaced by a lookup of hand-made {config: {label: per-run values}}."""
    def arms(name):
        t = tables.get(name)
        return None if t is None else (t, len(next(iter(t.values()))), {}, f"`{name}`")
    verdicts.arms = arms


def wobble(base, step, n=10):
    """n paired values: base plus a small run-to-run spread (±step, alternating)."""
    return [base + (step if i % 2 else -step) * (1 + i % 3) for i in range(n)]


def main():
    # ε floor: the loss falls from 0.5 to 0.1 by 0.02 with a spread of 0.002 — explained (bias).
    runs = {f"eps={e}": wobble(0.10 - 0.02 * k / 3, 0.002) for k, e in
            enumerate(("0.5", "0.3", "0.2", "0.1"))}
    fake({verdicts.FLOOR: runs})
    tie = verdicts.vr.paired(wobble(0.10, 0.004, 40), wobble(0.10, 0.002, 40))
    explains, text = verdicts.eps_floor(tie, 0.10)
    check(explains and "still falls" in text, f"falling floor explains ({text})")
    # Flat below 0.5 and a tied pooled pair: explained by resolution, with the runs it would need.
    fake({verdicts.FLOOR: {k: wobble(0.10, 0.002) for k in runs}})
    explains, text = verdicts.eps_floor(tie, 0.10)
    sd_d = tie.se * tie.n ** 0.5
    need = int(-(-(2 * sd_d / (0.05 * 0.10)) ** 2 // 1))
    check(explains and "resolution" in text and f"about {need} paired runs" in text,
          f"flat floor: resolution ({text})")
    # Flat, but the pooled pair is not tied (0.3 clearly lower): not explained.
    lower = verdicts.vr.paired(wobble(0.09, 0.001, 40), wobble(0.10, 0.001, 40))
    check(verdicts.eps_floor(lower, 0.10)[0] is False, "pair not tied: no resolution argument")
    # The loss rises from 0.5 to 0.1: not explained.
    fake({verdicts.FLOOR: {f"eps={e}": wobble(0.10 + 0.02 * k / 3, 0.002) for k, e in
                           enumerate(("0.5", "0.3", "0.2", "0.1"))}})
    check(verdicts.eps_floor(tie, 0.10)[0] is False, "rising floor does not explain")
    fake({})
    check(verdicts.eps_floor(tie, 0.10) is None, "no floor config: nothing")
    # Shared noise: σ = 0.0001 above random and above σ = 0.01 there — parts 1 and 3 explained.
    shared = {"GP sigma=0.01": wobble(0.18, 0.002), "GP sigma=0.0001": wobble(0.45, 0.002),
              "random search": wobble(0.24, 0.002)}
    fake({verdicts.SHARED: shared})
    ok, texts, m = verdicts.shared_noise([True, False, True, False])
    check(ok == {1: True, 3: True} and m == 10, f"both σ = 0.0001 parts explained ({texts})")
    # Only the failed parts are looked at.
    ok, _, _ = verdicts.shared_noise([True, True, True, False])
    check(set(ok) == {3}, "part 1 held: only part 3 looked at")
    check(verdicts.shared_noise([True, True, True, True]) is None, "nothing failed: nothing")
    # σ = 0.0001 below random with shared noise: part 3 not explained.
    shared["GP sigma=0.0001"] = wobble(0.20, 0.002)
    ok, texts, _ = verdicts.shared_noise([True, False, True, False])
    check(ok[1] is True, "σ = 0.01 still below σ = 0.0001: part 1 explained")
    check(ok[3] is False and "does not explain" in texts[3], f"part 3 refuted ({texts[3]})")
    print("ok")


if __name__ == "__main__":
    main()
