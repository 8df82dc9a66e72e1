"""Parameter spaces for ``minimize`` and ``Optimizer``: ``Real``, ``Integer``, ``Categorical``.

A ``Space`` maps the parameters a user writes (scikit-optimize's forms included) onto the engine's
continuous box (``DomainSpec.box``) and back:

- ``Real(low, high)`` is one axis [low, high]; with ``prior="log-uniform"`` the axis is
  log_base(x) over [log low, log high] (the GP then sees orders of magnitude);
- ``Integer(low, high)`` is one integer axis (the engine rounds every suggestion onto it); with
  ``prior="log-uniform"`` (low >= 1) the axis is ln(x), and the engine projects every suggestion
  onto ln of an integer, so the point told back is exactly the integer asked;
- ``Categorical(categories)`` with k ≥ 2 categories is a one-hot group of k axes in [0, 1]
  (exactly one of them is 1 in every suggestion); one category is a fixed axis.

Suggestions leave the engine already projected onto those axes, so the point told back is the
point asked for. The forms ``dimensions`` may take, as in scikit-optimize: a ``Space``; a list of
``Real`` / ``Integer`` / ``Categorical`` (these or scikit-optimize's own objects); ``(low, high)``
pairs — two ints make an ``Integer``, otherwise a ``Real``; ``(low, high, "log-uniform")`` (two
ints: a log-uniform ``Integer``, as scikit-optimize reads it); a list of more than two values, or
of strings, makes a ``Categorical``.
"""

import math
import numbers

import numpy as np

__all__ = ["Real", "Integer", "Categorical", "Space", "space_to_json", "space_from_json"]


def _invalid(message):
    from ._gpbandit import InvalidArgument

    return InvalidArgument(message)


class Real:
    """A real parameter in [low, high]; ``prior`` "uniform" or "log-uniform" (base ``base``)."""

    def __init__(self, low, high, prior="uniform", base=10, name=None):
        """Checks low < high (finite; low > 0 for log-uniform)."""
        self.low, self.high = float(low), float(high)
        self.prior, self.base, self.name = str(prior), base, name
        where = f"Real {name!r}" if name is not None else f"Real({low!r}, {high!r})"
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low < self.high):
            raise _invalid(f"{where}: needs finite low < high")
        if not isinstance(prior, str) or prior not in ("uniform", "log-uniform"):
            raise _invalid(f"{where}: prior must be 'uniform' or 'log-uniform', got {prior!r}")
        if self.prior == "log-uniform" and self.low <= 0:
            raise _invalid(f"{where}: prior 'log-uniform' needs low > 0")
        if isinstance(base, bool) or not isinstance(base, numbers.Real) or not base > 1:
            raise _invalid(f"{where}: base must be a number > 1, got {base!r}")

    def _log(self, x):
        return math.log(x) / math.log(self.base)

    def axes(self):
        """(lower, upper) of the engine's axis."""
        if self.prior == "log-uniform":
            return [(self._log(self.low), self._log(self.high))]
        return [(self.low, self.high)]

    def to_axes(self, value):
        """The engine's axis value for a user value."""
        v = float(value)
        return [self._log(v) if self.prior == "log-uniform" else v]

    def from_axes(self, z):
        """The user value for the engine's axis value(s) z."""
        v = float(self.base ** z[0]) if self.prior == "log-uniform" else float(z[0])
        return min(max(v, self.low), self.high)

    def __repr__(self):
        return f"<gpbandit.Real low={self.low} high={self.high} prior={self.prior!r}>"


class Integer:
    """An integer parameter in [low, high] (both included); ``prior`` "uniform" or "log-uniform"
    (low >= 1; ``base`` is accepted for scikit-optimize's signature: the axis is ln(x) whatever
    the base, which only rescales it)."""

    def __init__(self, low, high, prior="uniform", base=10, name=None):
        """Checks integer low <= high, the prior (low >= 1 for log-uniform) and base > 1."""
        where = f"Integer {name!r}" if name is not None else f"Integer({low!r}, {high!r})"
        if isinstance(low, bool) or isinstance(high, bool) or not all(
                isinstance(v, numbers.Real) and math.isfinite(v) for v in (low, high)):
            raise _invalid(f"{where}: low and high must be finite integers")
        if int(low) != low or int(high) != high or int(low) > int(high):
            raise _invalid(f"{where}: needs integers low <= high, got {low!r}, {high!r}")
        if not isinstance(prior, str) or prior not in ("uniform", "log-uniform"):
            raise _invalid(f"{where}: prior must be 'uniform' or 'log-uniform', got {prior!r}")
        if prior == "log-uniform" and int(low) < 1:
            raise _invalid(f"{where}: prior 'log-uniform' needs low >= 1, got {low!r}")
        if isinstance(base, bool) or not isinstance(base, numbers.Real) or not base > 1:
            raise _invalid(f"{where}: base must be a number > 1, got {base!r}")
        self.low, self.high, self.prior, self.base, self.name = (int(low), int(high), prior,
                                                                 base, name)

    @property
    def log(self):
        """Whether the engine's axis is ln(x)."""
        return self.prior == "log-uniform"

    def axes(self):
        """(lower, upper) of the engine's axis."""
        if self.log:
            return [(math.log(self.low), math.log(self.high))]
        return [(float(self.low), float(self.high))]

    def to_axes(self, value):
        """The engine's axis value for a user value (ln of it on a log axis: the same libm
        function as the engine's projection, so a told point matches the asked one exactly)."""
        return [math.log(float(value)) if self.log else float(value)]

    def from_axes(self, z):
        """The user value (an int, rounded and clamped) for the engine's axis value."""
        v = math.exp(z[0]) if self.log else z[0]
        return int(min(max(round(v), self.low), self.high))

    def __repr__(self):
        extra = f" prior={self.prior!r}" if self.log else ""
        return f"<gpbandit.Integer low={self.low} high={self.high}{extra}>"


class Categorical:
    """One of ``categories`` (any hashable values)."""

    def __init__(self, categories, prior=None, name=None):
        """Keeps the categories (at least one; uniform prior only)."""
        self.categories = list(categories)
        if not self.categories:
            raise _invalid("Categorical: needs at least one category")
        if prior is not None:
            raise _invalid("Categorical: category priors are not supported (uniform only)")
        self.name = name

    def axes(self):
        """The one-hot group's axes ([0, 1] each; one fixed axis for a single category)."""
        k = len(self.categories)
        return [(0.0, 0.0)] if k == 1 else [(0.0, 1.0)] * k

    def to_axes(self, value):
        """The one-hot axes of a category."""
        for i, c in enumerate(self.categories):
            if c == value:
                k = len(self.categories)
                return [0.0] if k == 1 else [1.0 if j == i else 0.0 for j in range(k)]
        raise _invalid(f"Categorical: {value!r} is not one of {self.categories!r}")

    def from_axes(self, z):
        """The category of the largest axis."""
        return self.categories[0 if len(z) == 1 else int(np.argmax(z))]

    def __repr__(self):
        return f"<gpbandit.Categorical categories={tuple(self.categories)!r}>"


def _dimension(d):
    """One dimension from any accepted form (ours, scikit-optimize's objects, tuples, lists)."""
    if isinstance(d, (Real, Integer, Categorical)):
        return d
    cls = type(d).__name__
    if cls in ("Real", "Integer") and hasattr(d, "low") and hasattr(d, "high"):  # skopt's
        kind = Real if cls == "Real" else Integer
        return kind(d.low, d.high, prior=getattr(d, "prior", "uniform") or "uniform",
                    base=getattr(d, "base", 10), name=getattr(d, "name", None))
    if cls == "Categorical" and hasattr(d, "categories"):
        return Categorical(d.categories, name=getattr(d, "name", None))
    if isinstance(d, (tuple, list)):
        values = list(d)
        numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)
        if len(values) == 2 and numeric:
            if all(isinstance(v, numbers.Integral) for v in values):
                return Integer(values[0], values[1])
            return Real(values[0], values[1])
        if (len(values) == 3 and all(isinstance(v, numbers.Real) for v in values[:2])
                and isinstance(values[2], str)):
            lo, hi, prior = values
            if all(isinstance(v, numbers.Integral) for v in (lo, hi)):
                return Integer(lo, hi, prior=prior)
            return Real(lo, hi, prior=prior)
        if isinstance(d, tuple) and numeric and len(values) < 2:
            raise _invalid(f"dimension {d!r}: a range needs (low, high) (a list of values makes "
                           "categories)")
        if len(values) >= 1:
            return Categorical(values)
    raise TypeError(f"dimension: expected (low, high), (low, high, prior), a list of categories, "
                    f"or Real / Integer / Categorical, got {d!r}")


class Space:
    """A list of dimensions and their map onto the engine's box (see the module docstring)."""

    def __init__(self, dimensions):
        """Reads the dimensions in any accepted form (see the module docstring)."""
        if isinstance(dimensions, Space):
            dimensions = dimensions.dimensions
        self.dimensions = [_dimension(d) for d in dimensions]
        if not self.dimensions:
            raise _invalid("dimensions: the space needs at least one dimension")

    @staticmethod
    def accepts(domain):
        """Whether ``domain`` is a list of dimensions (rather than another domain form)."""
        if isinstance(domain, Space):
            return True
        if not isinstance(domain, (list, tuple)) or len(domain) == 0:
            return False
        if isinstance(domain, np.ndarray):
            return False
        for d in domain:
            if isinstance(d, (Real, Integer, Categorical)):
                continue
            if type(d).__name__ in ("Real", "Integer", "Categorical"):
                continue
            if not isinstance(d, (tuple, list)):
                return False
        return True

    @property
    def n_dims(self):
        """Number of parameters."""
        return len(self.dimensions)

    @property
    def is_plain(self):
        """True when every parameter is a uniform Real: engine points are then the user's points
        (as float arrays). With an Integer, Categorical or log-uniform dimension points are lists
        of values in the user's units (ints for integer dimensions)."""
        return all(isinstance(d, Real) and d.prior == "uniform" for d in self.dimensions)

    def spec(self, n_candidates, seed):
        """The engine's ``DomainSpec.box`` for this space."""
        from ._gpbandit import DomainSpec

        lower, upper, integer, log_integer, onehot = [], [], [], [], []
        for d in self.dimensions:
            first = len(lower)
            for lo, hi in d.axes():
                lower.append(lo)
                upper.append(hi)
            if isinstance(d, Integer):
                (log_integer if d.log else integer).append(first)
            elif isinstance(d, Categorical) and len(d.categories) > 1:
                onehot.append((first, len(d.categories)))
        return DomainSpec.box(lower, upper, int(n_candidates), int(seed), integer, onehot,
                              log_integer)

    def to_engine(self, points):
        """Engine rows (m × D float array) for a list of user points."""
        rows = []
        for x in points:
            x = list(x) if not isinstance(x, np.ndarray) else x.tolist()
            if len(x) != self.n_dims:
                raise _invalid(f"point {x!r}: expected {self.n_dims} values, one per dimension")
            row = []
            for d, v in zip(self.dimensions, x):
                row.extend(d.to_axes(v))
            rows.append(row)
        return np.asarray(rows, dtype=float).reshape(len(rows), -1)

    def from_engine(self, rows):
        """User points (lists) for engine rows."""
        out = []
        for z in np.atleast_2d(np.asarray(rows, dtype=float)):
            x, k = [], 0
            for d in self.dimensions:
                width = len(d.axes())
                x.append(d.from_axes(z[k:k + width]))
                k += width
            out.append(x)
        return out

    def __repr__(self):
        return "<gpbandit.Space [" + ", ".join(repr(d) for d in self.dimensions) + "]>"


def space_to_json(space):
    """A JSON-compatible list describing ``space`` (saved with an Optimizer's state); a
    ``gpbandit.params.ParameterSpace`` gives its own dict (``to_json``)."""
    if hasattr(space, "to_json"):
        return space.to_json()
    out = []
    for d in space.dimensions:
        if isinstance(d, Real):
            out.append({"type": "real", "low": d.low, "high": d.high, "prior": d.prior,
                        "base": d.base, "name": d.name})
        elif isinstance(d, Integer):
            out.append({"type": "integer", "low": d.low, "high": d.high, "prior": d.prior,
                        "base": d.base, "name": d.name})
        else:
            out.append({"type": "categorical", "categories": d.categories, "name": d.name})
    return out


def space_from_json(items):
    """The ``Space`` that ``space_to_json`` described."""
    if isinstance(items, dict) and items.get("type") == "parameters":
        from .params import ParameterSpace

        return ParameterSpace.from_json(items)
    dims = []
    for item in items:
        kind = item.get("type")
        if kind == "real":
            dims.append(Real(item["low"], item["high"], item.get("prior", "uniform"),
                             item.get("base", 10), item.get("name")))
        elif kind == "integer":
            dims.append(Integer(item["low"], item["high"], item.get("prior", "uniform"),
                                item.get("base", 10), item.get("name")))
        elif kind == "categorical":
            dims.append(Categorical(item["categories"], name=item.get("name")))
        else:
            raise _invalid(f"space: unknown dimension type {kind!r}")
    return Space(dims)
