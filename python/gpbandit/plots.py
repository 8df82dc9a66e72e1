"""Plots of ``minimize`` results, as scikit-optimize's ``plot_convergence`` draws them (needs
matplotlib: ``pip install matplotlib`` or Debian's ``python3-matplotlib``)."""

import numpy as np

__all__ = ["plot_convergence"]


def plot_convergence(*results, ax=None, true_minimum=None, yscale=None):
    """The best value found after each call, for one or more results (an ``OptimizeResult``,
    or ``(label, result)`` pairs; a list of results of one method is drawn as its runs with their
    mean). ``true_minimum`` draws a horizontal line; ``yscale`` "log" plots on a log axis.
    Returns the matplotlib Axes."""
    for item in results:
        res = item[1] if isinstance(item, tuple) and len(item) == 2 else item
        runs = res if isinstance(res, (list, tuple)) else [res]
        if not runs or not all(hasattr(r, "func_vals") for r in runs):
            raise TypeError("plot_convergence: expected minimize results (or (label, result) "
                            f"pairs, or lists of results), got {type(item).__name__}")
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("gpbandit.plot_convergence needs matplotlib (pip install matplotlib, "
                          "or apt-get install python3-matplotlib)") from e
    if ax is None:
        ax = plt.gca()
    ax.set_title("Convergence plot")
    ax.set_xlabel("Number of calls $n$")
    ax.set_ylabel(r"$\min f(x)$ after $n$ calls")
    ax.grid(True)
    colors = plt.cm.viridis(np.linspace(0.25, 1.0, max(len(results), 1)))
    for color, item in zip(colors, results):
        label, res = item if isinstance(item, tuple) else (None, item)
        runs = res if isinstance(res, (list, tuple)) else [res]
        curves = []
        for r in runs:
            vals = np.asarray(r["func_vals"], dtype=float)
            vals = np.where(np.isfinite(vals), vals, np.inf)
            curves.append(np.minimum.accumulate(vals))
        for c in curves:
            ax.plot(range(1, len(c) + 1), c, c=color, alpha=0.2 if len(curves) > 1 else 1.0,
                    label=None if len(curves) > 1 else label, marker=".", markersize=6, lw=2)
        if len(curves) > 1:
            n = min(len(c) for c in curves)
            mean = np.mean([c[:n] for c in curves], axis=0)
            ax.plot(range(1, n + 1), mean, c=color, label=label, marker=".", markersize=8, lw=2)
    if true_minimum is not None:
        ax.axhline(true_minimum, linestyle="--", color="r", lw=1, label="True minimum")
    if yscale is not None:
        ax.set_yscale(yscale)
    if any(isinstance(i, tuple) for i in results) or true_minimum is not None:
        ax.legend(loc="best")
    return ax
