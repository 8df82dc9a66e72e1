"""Parameter spaces: the candidate set as a list of parameters, never enumerated in memory.

A chemist's or engineer's search space is a list of parameters — a ligand from a list, a solvent,
a temperature from a few values, an integer count — whose Cartesian product, restricted by
constraints, is the candidate set::

    from gpbandit import params as gp

    space = gp.ParameterSpace(
        [gp.Categorical("base", ["KOAc", "CsOAc", "KOPiv"]),
         gp.Categorical("ligand", ligands, encoding=dft_table),  # {label: [numbers]}
         gp.NumericalDiscrete("concentration", [0.057, 0.1, 0.153]),
         gp.Integer("equivalents", 1, 3)],
        constraints=[gp.Exclude({"base": ["KOPiv"], "equivalents": [3]})])
    opt = gpbandit.Optimizer(space)
    points = opt.ask(5).points        # [{"base": "KOAc", "ligand": ..., ...}, ...]
    opt.tell(points, yields)

The space is the engine's ``ParameterSpaceCore`` (docs/spaces.md): combination i is computed from
i (mixed radix, parameter 0 fastest), the feasible ones are counted once per block of the
product and indexed by prefix sums (memory O(√raw size)), and each parameter is encoded for the
kernel: numeric values scaled to [0, 1] by their range, labels one-hot or by their descriptor
row (standardised per column). ``len(space)``, ``space[i]`` (a dict of values by name),
iteration and ``space.records(begin, end)`` read combinations; an ``Optimizer`` (and
``minimize``) given a space asks and is told points as such dicts. A kernel per parameter:
``Optimizer(space, kernel={"combine": "product", "parts": [{"parameters": ["conc", "temp"]},
{"parameters": ["ligand"], "type": "se"}]})`` (docs/spaces.md, "Kernels per parameter").
"""

import numbers

import numpy as np

from . import _gpbandit as _core

__all__ = ["NumericalDiscrete", "Integer", "Categorical", "Continuous", "LinearInequality",
           "Mixture", "Exclude", "DistinctLabels", "ParameterSpace", "principal_components"]


def principal_components(table, share=0.95):
    """A smaller descriptor table for a ``Categorical``: ``table`` maps each label to its
    descriptors (DFT values, fingerprint bits, Mordred's 1 600 numbers); returns {label: row}
    of the principal components of the standardised columns (constant ones dropped) that
    explain ``share`` of their variance — at most one fewer than the labels — all scaled by one
    factor so that the first spans [0, 1], each shifted to start at 0. A Matérn or SE kernel
    with ARD then fits a handful of lengthscales per parameter instead of one per descriptor.
    Raises ValueError when ``share`` is not in (0, 1], with fewer than two labels, or when every
    column is constant."""
    if not 0 < share <= 1:
        raise ValueError(f"principal_components: share must be in (0, 1], got {share!r}")
    names = list(table)
    if len(names) < 2:
        raise ValueError("principal_components: needs two labels or more")
    mat = np.array([np.asarray(table[k], dtype=float) for k in names])
    sd = mat.std(axis=0)
    if not (sd > 0).any():
        raise ValueError("principal_components: every descriptor is the same for every label")
    mat = (mat[:, sd > 0] - mat[:, sd > 0].mean(axis=0)) / sd[sd > 0]
    u, s, _ = np.linalg.svd(mat, full_matrices=False)
    explained = np.cumsum(s ** 2) / np.sum(s ** 2)
    k = min(int(np.searchsorted(explained, share) + 1), len(names) - 1)
    scores = u[:, :k] * s[:k]
    span = np.ptp(scores[:, 0])
    scores = (scores - scores.min(axis=0)) / (span if span > 0 else 1.0)
    return {name: scores[i].tolist() for i, name in enumerate(names)}


def _name(name):
    if not isinstance(name, str) or not name:
        raise TypeError(f"parameter name: expected a non-empty string, got {name!r}")
    return name


class NumericalDiscrete:
    """A parameter taking one of the given numbers (e.g. concentrations, temperatures)."""

    def __init__(self, name, values):
        self.name = _name(name)
        vals = [float(v) for v in values]
        if not vals:
            raise ValueError(f"parameter '{name}': values must not be empty")
        self.values = vals

    def _engine(self):
        return _core.Parameter.numerical_discrete(self.name, self.values)

    def __repr__(self):
        return f"NumericalDiscrete({self.name!r}, {self.values!r})"


class Integer:
    """Integers lower, lower + step, …, up to upper (both included)."""

    def __init__(self, name, lower, upper, step=1):
        self.name = _name(name)
        for key, v in (("lower", lower), ("upper", upper), ("step", step)):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                raise TypeError(f"parameter '{name}': {key} must be an integer, got {v!r}")
        self.lower, self.upper, self.step = int(lower), int(upper), int(step)

    def _engine(self):
        return _core.Parameter.integer(self.name, self.lower, self.upper, self.step)

    def __repr__(self):
        return f"Integer({self.name!r}, {self.lower}, {self.upper}, step={self.step})"


class Categorical:
    """Labels, encoded one-hot (``encoding="onehot"``) or by a descriptor table: a mapping
    label → list of numbers (every label, the same length), e.g. EDBO's DFT descriptors."""

    def __init__(self, name, labels, encoding="onehot"):
        self.name = _name(name)
        self.labels = [str(v) for v in labels]
        if isinstance(encoding, str):
            if encoding != "onehot":
                raise ValueError(f"parameter '{name}': encoding must be 'onehot' or a mapping "
                                 f"label -> descriptors, got {encoding!r}")
            self.descriptors = None
        else:
            try:
                rows = [list(map(float, encoding[label])) for label in self.labels]
            except KeyError as e:
                raise ValueError(f"parameter '{name}': the descriptor table has no row for "
                                 f"label {e.args[0]!r}") from None
            widths = {len(r) for r in rows}
            if len(widths) != 1 or 0 in widths:
                raise ValueError(f"parameter '{name}': descriptor rows must be non-empty and of "
                                 f"one length, got lengths {sorted(widths)}")
            self.descriptors = {label: row for label, row in zip(self.labels, rows)}

    def _engine(self):
        if self.descriptors is None:
            return _core.Parameter.categorical(self.name, self.labels)
        table = np.array([self.descriptors[label] for label in self.labels], dtype=float)
        return _core.Parameter.categorical_descriptors(self.name, self.labels, table)

    def __repr__(self):
        enc = "onehot" if self.descriptors is None else "descriptors"
        return f"Categorical({self.name!r}, {self.labels!r}, encoding={enc!r})"


class Continuous:
    """The box [lower, upper], represented among the candidates by ``count`` evenly spaced
    values (endpoints included): the global step's stand-in for the continuous parameter, which
    the Optimizer's refinement then moves between and beyond them within the box (with
    ``count`` >= 2; the other parameters keep their levels and constraints hold)."""

    def __init__(self, name, lower, upper, count=5):
        self.name = _name(name)
        self.lower, self.upper, self.count = float(lower), float(upper), int(count)

    def _engine(self):
        return _core.Parameter.continuous(self.name, self.lower, self.upper, self.count)

    def __repr__(self):
        return f"Continuous({self.name!r}, {self.lower}, {self.upper}, count={self.count})"


class LinearInequality:
    """Σ coefs[i] · value(params[i]) ≤ rhs (+ tol), over numeric parameters (by name)."""

    def __init__(self, params, coefs, rhs, tol=1e-9):
        self.params, self.coefs = list(params), [float(c) for c in coefs]
        self.rhs, self.tol = float(rhs), float(tol)
        if len(self.params) != len(self.coefs) or not self.params:
            raise ValueError(f"LinearInequality: {len(self.coefs)} coefficients for "
                             f"{len(self.params)} parameters")

    def _engine(self, space):
        return _core.Constraint.linear([space._index(p) for p in self.params], self.coefs,
                                       self.rhs, self.tol)


class Mixture:
    """Σ value(params[i]) = total within tol (mixture fractions)."""

    def __init__(self, params, total=1.0, tol=1e-6):
        self.params, self.total, self.tol = list(params), float(total), float(tol)

    def _engine(self, space):
        return _core.Constraint.mixture([space._index(p) for p in self.params], self.total,
                                        self.tol)


class Exclude:
    """A forbidden combination: ``Exclude({"base": ["KOPiv"], "temp": [120]})`` removes every
    combination whose base is KOPiv and whose temp is 120 (a conjunction; a list is any of)."""

    def __init__(self, when):
        if not isinstance(when, dict) or not when:
            raise TypeError(f"Exclude: expected a non-empty dict name -> values, got {when!r}")
        self.when = {k: (list(v) if isinstance(v, (list, tuple, set)) else [v])
                     for k, v in when.items()}

    def _engine(self, space):
        idx, levels = [], []
        for name, vals in self.when.items():
            p = space._index(name)
            idx.append(p)
            levels.append([space._level(p, v) for v in vals])
        return _core.Constraint.exclusion(idx, levels)


class DistinctLabels:
    """No two of the categorical parameters (slots sharing labels) take the same label."""

    def __init__(self, params):
        self.params = list(params)

    def _engine(self, space):
        return _core.Constraint.distinct([space._index(p) for p in self.params])


_PARAMS = (NumericalDiscrete, Integer, Categorical, Continuous)


class ParameterSpace:
    """The feasible combinations of ``parameters`` under ``constraints`` (see the module
    docstring). Raises ValueError naming the parameter or constraint for bad input, and naming
    the constraints when nothing is feasible."""

    is_plain = False  # points go in and out as dicts of values by name

    def __init__(self, parameters, constraints=()):
        self.parameters = list(parameters)
        for p in self.parameters:
            if not isinstance(p, _PARAMS):
                raise TypeError(f"ParameterSpace: expected NumericalDiscrete, Integer, "
                                f"Categorical or Continuous parameters, got {p!r}")
        self.constraints = list(constraints)
        self._names = [p.name for p in self.parameters]
        if len(set(self._names)) != len(self._names):
            raise ValueError(f"ParameterSpace: parameter names repeat: {self._names}")
        eng = [p._engine() for p in self.parameters]
        self._eng = eng
        cons = [c._engine(self) for c in self.constraints]
        self.core = _core.ParameterSpaceCore(eng, cons)

    @staticmethod
    def accepts(domain):
        """Whether ``domain`` is a ParameterSpace or a non-empty list of parameters."""
        if isinstance(domain, ParameterSpace):
            return True
        return (isinstance(domain, (list, tuple)) and len(domain) > 0
                and all(isinstance(p, _PARAMS) for p in domain))

    # ------------------------------------------------------------ names and levels
    def _index(self, name):
        try:
            return self._names.index(name)
        except ValueError:
            raise ValueError(f"ParameterSpace: no parameter named {name!r} "
                             f"(parameters: {', '.join(self._names)})") from None

    def _level(self, p, value):
        e = self._eng[p]
        if e.type == "categorical":
            try:
                return e.labels.index(str(value))
            except ValueError:
                raise ValueError(f"parameter '{e.name}': {value!r} is not one of its labels "
                                 f"{e.labels}") from None
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"parameter '{e.name}': expected a number, got {value!r}") from None
        for i, w in enumerate(e.values):
            if v == w:
                return i
        raise ValueError(f"parameter '{e.name}': {value!r} is not one of its values")

    def _value(self, p, level):
        e = self._eng[p]
        if e.type == "categorical":
            return e.labels[level]
        if e.type == "integer":
            return int(e.values[level])
        return float(e.values[level])

    def _record(self, levels):
        return {n: self._value(p, lv) for p, (n, lv) in enumerate(zip(self._names, levels))}

    def _levels(self, point):
        return [self._level(p, v) for p, v in enumerate(self._values(point))]

    # ------------------------------------------------------------ sequence protocol
    def __len__(self):
        return int(self.core.size)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if not isinstance(i, numbers.Integral):
            raise TypeError(f"ParameterSpace index: expected an integer, got {i!r}")
        n = len(self)
        k = int(i) + n if i < 0 else int(i)
        if not 0 <= k < n:
            raise IndexError(f"ParameterSpace index {i} out of range for {n} combinations")
        return self._record(self.core.combination(k))

    def __iter__(self):
        for k in range(len(self)):
            yield self[k]

    def records(self, begin, end):
        """The combinations [begin, end) as dicts."""
        return [self[k] for k in range(begin, end)]

    def index(self, point):
        """The index of ``point`` (a dict or a sequence in parameter order). Raises ValueError
        when it is not feasible."""
        levels = self._levels(point)
        k = self.core.feasible_of(self.core.raw_of_levels(levels))
        if k < 0:
            raise ValueError(f"point {point!r} violates a constraint of the space")
        return int(k)

    def __contains__(self, point):
        try:
            return self.core.feasible_levels(self._levels(point))
        except ValueError:
            return False

    @property
    def raw_size(self):
        """Combinations of the unconstrained product."""
        return int(self.core.raw_size)

    @property
    def n_features(self):
        """Encoded dimension d (the kernel's input)."""
        return int(self.core.encoded_dim)

    def encode(self, i):
        """The d encoded features of combination i."""
        return np.asarray(self.core.encode(int(i)))

    def encode_range(self, begin, end):
        """(end − begin) × d encoded features of combinations [begin, end)."""
        return np.asarray(self.core.encode_range(int(begin), int(end)))

    # ------------------------------------------------------------ Optimizer's domain protocol
    def spec(self, n_candidates=None, seed=None):
        """The engine's DomainSpec (the encoded feasible combinations)."""
        return _core.DomainSpec.parameters(self.core)

    def _values(self, point):
        """The values of ``point`` in parameter order (a dict or a sequence)."""
        if isinstance(point, dict):
            missing = [n for n in self._names if n not in point]
            extra = [k for k in point if k not in self._names]
            if missing or extra:
                raise ValueError(f"point {point!r}: missing {missing}, unknown {extra}")
            return [point[n] for n in self._names]
        vals = list(point)
        if len(vals) != len(self._names):
            raise ValueError(f"point {point!r}: expected {len(self._names)} values, one per "
                             f"parameter ({', '.join(self._names)})")
        return vals

    def _encode_point(self, point):
        """Encoded features of ``point``. A numeric value need not be one of its parameter's
        (a point off the space, which a tell adds as an extra observation: the posterior
        conditions on it, ask never proposes it); a label must be one of its parameter's."""
        vals = self._values(point)
        levels, off = [], []
        for p, v in enumerate(vals):
            e = self._eng[p]
            if e.type == "categorical":
                levels.append(self._level(p, v))
                continue
            if isinstance(v, bool) or not isinstance(v, (numbers.Real, np.number, str)):
                raise ValueError(f"parameter '{e.name}': expected a number, got {v!r}")
            try:
                x = float(v)
            except (TypeError, ValueError):
                raise ValueError(f"parameter '{e.name}': expected a number, got {v!r}") from None
            if not np.isfinite(x):
                raise ValueError(f"parameter '{e.name}': {v!r} is not finite")
            if x in e.values:
                levels.append(list(e.values).index(x))
            else:
                levels.append(0)
                off.append((p, x))
        row = np.array(self.core.encode_levels(levels), dtype=float)
        for p, x in off:
            row[self.core.feature_offset(p)] = self.core.encode_value(p, x)
        return row

    def to_engine(self, points):
        """Encoded rows (m × d) of points given as dicts or sequences of values; numeric values
        off their parameter's list encode points off the space (see _encode_point)."""
        rows = [self._encode_point(x) for x in points]
        return np.asarray(rows, dtype=float).reshape(len(rows), self.n_features)

    def from_engine(self, rows):
        """Dicts of values by name for encoded rows (nearest label per categorical parameter;
        a numeric parameter's listed value, or its value off the list for a point off the
        space)."""
        out = []
        for z in np.atleast_2d(np.asarray(rows, dtype=float)):
            rec = self._record(self.core.decode(z))
            for p, e in enumerate(self._eng):
                if e.type == "categorical":
                    continue
                v = float(self.core.value_of(p, float(z[self.core.feature_offset(p)])))
                if v not in e.values:  # off the list: the value itself
                    rec[e.name] = int(v) if e.type == "integer" and v == int(v) else v
            out.append(rec)
        return out

    def __reduce__(self):
        """Pickling (an Optimizer over the space pickles it too): rebuilt from ``to_json()``, as
        the engine's objects it holds do not pickle."""
        return (ParameterSpace.from_json, (self.to_json(),))

    def to_json(self):
        """A JSON-compatible dict (the CLI's ``"domain": {"type": "parameters", ...}``)."""
        params = []
        for p in self.parameters:
            if isinstance(p, NumericalDiscrete):
                params.append({"name": p.name, "type": "numerical", "values": p.values})
            elif isinstance(p, Integer):
                params.append({"name": p.name, "type": "integer", "lower": p.lower,
                               "upper": p.upper, "step": p.step})
            elif isinstance(p, Continuous):
                params.append({"name": p.name, "type": "continuous", "lower": p.lower,
                               "upper": p.upper, "count": p.count})
            else:
                item = {"name": p.name, "type": "categorical", "labels": p.labels}
                if p.descriptors is not None:
                    item["encoding"] = {"descriptors": p.descriptors}
                params.append(item)
        cons = []
        for c in self.constraints:
            if isinstance(c, LinearInequality):
                cons.append({"type": "linear", "params": c.params, "coefs": c.coefs,
                             "rhs": c.rhs, "tol": c.tol})
            elif isinstance(c, Mixture):
                cons.append({"type": "mixture", "params": c.params, "total": c.total,
                             "tol": c.tol})
            elif isinstance(c, Exclude):
                cons.append({"type": "exclude", "when": c.when})
            else:
                cons.append({"type": "distinct", "params": c.params})
        return {"type": "parameters", "parameters": params, "constraints": cons}

    @classmethod
    def from_json(cls, obj):
        """The space that ``to_json`` described (also a CLI config's domain object)."""
        params = []
        for p in obj["parameters"]:
            t = p["type"]
            if t == "numerical":
                params.append(NumericalDiscrete(p["name"], p["values"]))
            elif t == "integer":
                params.append(Integer(p["name"], p["lower"], p["upper"], p.get("step", 1)))
            elif t == "continuous":
                params.append(Continuous(p["name"], p["lower"], p["upper"], p.get("count", 5)))
            elif t == "categorical":
                enc = p.get("encoding", "onehot")
                params.append(Categorical(p["name"], p["labels"],
                                          enc if isinstance(enc, str) else enc["descriptors"]))
            else:
                raise ValueError(f"parameters: unknown type {t!r}")
        cons = []
        for c in obj.get("constraints", []):
            t = c["type"]
            if t == "linear":
                cons.append(LinearInequality(c["params"], c["coefs"], c["rhs"], c.get("tol", 1e-9)))
            elif t == "mixture":
                cons.append(Mixture(c["params"], c.get("total", 1.0), c.get("tol", 1e-6)))
            elif t == "exclude":
                cons.append(Exclude(c["when"]))
            elif t == "distinct":
                cons.append(DistinctLabels(c["params"]))
            else:
                raise ValueError(f"constraints: unknown type {t!r}")
        return cls(params, cons)

    def __repr__(self):
        return (f"<gpbandit.params.ParameterSpace {len(self)} of {self.raw_size} combinations, "
                f"d={self.n_features}: {', '.join(self._names)}>")
