"""EDBO's three reaction data sets as lookup campaigns: the tables, their encodings and the
campaign metrics (issue #32, item 4). No third-party dependency beyond NumPy.

A data set is the table of its feasible reactions (experiment_index.csv: one row per reaction,
the SMILES of each component, numeric conditions, the yield). ``encode`` turns that table into
one feature row per reaction: one-hot through gpbandit's parameter API (``parameter_space``:
each component a ``gpbandit.params.Categorical`` of its sorted labels, each numeric condition a
``NumericalDiscrete`` of its values, the reactions encoded by ``ParameterSpace.to_engine``), the
DFT encoding by this module's own principal components (``_dft_block``: not a descriptor table
the parameter API standardises column by column). The one-hot encoding needs the gpbandit module
(PYTHONPATH holding build/python); the rest needs only NumPy.
"""

import csv
import math
import os
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "data", "edbo"))

# Per data set: its components (column prefix in experiment_index.csv, DFT table name) and its
# numeric conditions.
DATASETS = {
    "direct_arylation": {
        "components": [("Base", "base"), ("Ligand", "ligand-boltzmann"), ("Solvent", "solvent")],
        "numeric": ["Concentration", "Temp_C"],
    },
    "suzuki": {
        "components": [("Electrophile", "electrophile"), ("Nucleophile", "nucleophile"),
                       ("Ligand", "ligand-boltzmann"), ("Base", "base"), ("Solvent", "solvent")],
        "numeric": [],
    },
    "aryl_amination": {
        "components": [("Aryl_halide", "aryl_halide"), ("Additive", "additive"),
                       ("Base", "base"), ("Ligand", "ligand-Pd0")],
        "numeric": [],
    },
}

# The DFT encoding keeps, per component, the principal components of its standardised descriptor
# table that explain this share of the variance (at most labels − 1 of them).
DFT_VARIANCE = 0.95


def data_dir(path=None):
    """The edbo/ folder: `path`, else $GPB_EDBO_DATA, else ../shared/data/edbo beside the repo."""
    return path or os.environ.get("GPB_EDBO_DATA") or DEFAULT_DATA


def available(path=None):
    """Whether every data set's experiment_index.csv is present."""
    root = data_dir(path)
    return all(os.path.exists(os.path.join(root, d, "experiment_index.csv")) for d in DATASETS)


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class Table:
    """One data set: `labels[c]` (the reaction's SMILES of component c, per reaction),
    `numeric[name]` (floats), `y` (yields), and the DFT descriptor tables by component."""

    def __init__(self, name, path=None):
        if name not in DATASETS:
            raise ValueError(f"dataset: expected one of {', '.join(DATASETS)}, got {name!r}")
        self.name = name
        self.root = os.path.join(data_dir(path), name)
        spec = DATASETS[name]
        rows = _rows(os.path.join(self.root, "experiment_index.csv"))
        self.components = [c for c, _ in spec["components"]]
        self.dft_files = dict(spec["components"])
        self.labels = {c: [r[f"{c}_SMILES"] for r in rows] for c in self.components}
        self.numeric = {k: np.array([float(r[k]) for r in rows]) for k in spec["numeric"]}
        self.y = np.array([float(r["yield"]) for r in rows])

    def __len__(self):
        return len(self.y)

    @property
    def top1(self):
        """The top-1 % target: the yields' 99th percentile (NumPy's linear interpolation)."""
        return float(np.percentile(self.y, 99))

    @property
    def best(self):
        return float(self.y.max())

    def dft(self, component):
        """{SMILES: descriptor vector} of a component's DFT table (the numeric columns)."""
        rows = _rows(os.path.join(self.root, f"{self.dft_files[component]}_dft.csv"))
        key = next(k for k in rows[0] if k.endswith("_SMILES"))
        cols = []
        for k in rows[0]:
            try:
                vals = [float(r[k]) for r in rows]
            except ValueError:
                continue  # names, SMILES, stoichiometry
            if all(math.isfinite(v) for v in vals):
                cols.append(vals)
        mat = np.array(cols).T
        return {r[key]: mat[i] for i, r in enumerate(rows)}

    def fingerprints(self, component):
        """{SMILES: Morgan fingerprint bits (ECFP4, 2048, the positions shared by every label
        dropped)} of a component's labels, by gpbandit.chem.label_encoding (RDKit)."""
        from gpbandit import chem

        return {k: np.array(v) for k, v in
                chem.label_encoding(sorted(set(self.labels[component]))).items()}


def descriptors(table, component, encoding):
    """The descriptor table of encoding "dft" (table.dft), "fp" (table.fingerprints), or "rdkit"
    / "mordred" (the molecules' 2D descriptors, gpbandit.chem.label_descriptors) of a
    component."""
    if encoding == "dft":
        return table.dft(component)
    if encoding == "fp":
        return table.fingerprints(component)
    if encoding in ("rdkit", "mordred"):
        from gpbandit import chem

        return {k: np.array(v) for k, v in chem.label_descriptors(
            sorted(set(table.labels[component])), kind=encoding).items()}
    raise ValueError(f"encoding: expected 'ohe', 'dft', 'fp', 'rdkit' or 'mordred', got "
                     f"{encoding!r}")


def _unit(v):
    lo, hi = float(np.min(v)), float(np.max(v))
    return (v - lo) / (hi - lo) if hi > lo else np.zeros_like(v)


def parameter_space(table):
    """The table's parameters as a ``gpbandit.params.ParameterSpace``: each component a
    categorical of its sorted labels (one-hot), each numeric condition the sorted values it takes.
    Its product may hold combinations the table lacks (aryl amination: 4 140 for 3 955)."""
    from gpbandit import params as gp

    ps = [gp.Categorical(c, sorted(set(table.labels[c]))) for c in table.components]
    ps += [gp.NumericalDiscrete(k, sorted(set(v.tolist()))) for k, v in table.numeric.items()]
    return gp.ParameterSpace(ps)


def _one_hot_rows(table):
    """N × d: the table's reactions (in row order) encoded by parameter_space(table)."""
    space = parameter_space(table)
    cols = [table.labels[c] for c in table.components] + list(table.numeric.values())
    return space.to_engine(list(zip(*cols)))


def _dft_block(labels, table):
    """Per label, the principal components of the standardised descriptors (DFT, fingerprint
    bits, molecular descriptors) that explain DFT_VARIANCE of their variance, scaled together so
    the first spans [0, 1] (gpbandit.params.principal_components)."""
    from gpbandit import params as gp

    names = sorted(set(labels))
    missing = [s for s in names if s not in table]
    if missing:
        raise ValueError(f"dft table: no descriptors for {missing[0]!r}")
    pcs = gp.principal_components({s: table[s] for s in names}, DFT_VARIANCE)
    return np.array([pcs[x] for x in labels])


def encode(table, encoding):
    """The N × d feature rows of a table's reactions: each component one-hot ("ohe",
    parameter_space's encoding), by its DFT descriptors ("dft") or by its molecules' Morgan
    fingerprints ("fp"; both reduced as _dft_block does), then each numeric condition scaled to
    [0, 1]."""
    if encoding == "ohe":
        return _one_hot_rows(table)
    blocks = []
    for c in table.components:
        blocks.append(_dft_block(table.labels[c], descriptors(table, c, encoding)))
    for v in table.numeric.values():
        blocks.append(_unit(v)[:, None])
    return np.hstack(blocks)


def count_fingerprints(table, bits=2048, radius=2):
    """Each reaction as one count fingerprint (N × width, uint8) for the MinMax kernel: per
    component its molecule's Morgan count fingerprint (gpbandit.chem.fingerprints, `bits`
    positions, the positions no label of the component sets dropped), then per numeric condition
    a thermometer of its L levels (level j sets the first j of L − 1 positions to a weight w, so
    two levels share w·min(j, j') of their mass): w = the components' mean mass per molecule
    over L − 1, so a condition at its top level weighs about as much as a molecule."""
    from gpbandit import chem

    out, masses = [], []
    for c in table.components:
        labels = sorted(set(table.labels[c]))
        fps = chem.fingerprints(labels, kind="morgan", bits=bits, radius=radius, counts=True)
        fps = fps[:, fps.any(axis=0)]
        masses.append(float(fps.sum(axis=1).mean()))
        row = {label: i for i, label in enumerate(labels)}
        out.append(fps[[row[x] for x in table.labels[c]]])
    for v in table.numeric.values():
        levels = np.unique(v)
        w = int(np.clip(round(np.mean(masses) / max(len(levels) - 1, 1)), 1, 255))
        j = np.searchsorted(levels, v)
        out.append((np.arange(len(levels) - 1)[None, :] < j[:, None]).astype(np.uint8) * w)
    return np.hstack(out).astype(np.uint8)


def blocks(table, encoding):
    """The feature ranges of encode(table, encoding), in its column order: (name, begin, end,
    kind) per component ("label") and per numeric condition ("numeric")."""
    out, at = [], 0
    for c in table.components:
        if encoding == "ohe":
            width = len(set(table.labels[c]))
        else:
            width = _dft_block(table.labels[c], descriptors(table, c, encoding)).shape[1]
        out.append((c, at, at + width, "label"))
        at += width
    for k in table.numeric:
        out.append((k, at, at + 1, "numeric"))
        at += 1
    return out


def parts_kernel(table, encoding, combine="product"):
    """A per-parameter kernel on encode(table, encoding): Matérn 5/2 with ARD on the numeric
    conditions together × a Matérn 5/2 on each component's encoding (one lengthscale on a one-hot
    block, ARD on a descriptor block); `combine` "sum": the sum of those parts instead (a main
    effect per parameter, each with its own variance)."""
    import gpbandit

    parts, numeric = [], []
    for _, b, e, kind in blocks(table, encoding):
        if kind == "numeric":
            numeric.append((b, e))
            continue
        parts.append({"features": (b, e), "type": "matern52", "ard": encoding != "ohe"})
    if numeric:  # the conditions come last, adjacent
        parts.append({"features": (numeric[0][0], numeric[-1][1]), "type": "matern52",
                      "ard": True})
    return gpbandit.Kernel.sum(parts) if combine == "sum" else gpbandit.Kernel.product(parts)


# ---------------------------------------------------------------- campaigns


def start(table, seed, n=5):
    """The seeded initial reactions of a campaign (the same for every method of a seed)."""
    rng = np.random.default_rng([seed, zlib.crc32(table.name.encode())])
    return [int(i) for i in rng.choice(len(table), n, replace=False)]


def best_after(yields, n):
    """The best yield among the first n experiments."""
    if n < 1 or n > len(yields):
        raise ValueError(f"n: expected 1..{len(yields)}, got {n}")
    return float(max(yields[:n]))


def experiments_to(yields, target):
    """1-based count of experiments until a yield ≥ target; None when none reaches it
    (censored at len(yields))."""
    for i, v in enumerate(yields):
        if v >= target:
            return i + 1
    return None


def metrics(yields, table):
    """The recorded metrics of one campaign's yields (in experiment order)."""
    n = len(yields)
    return {
        "best_after": {str(k): best_after(yields, k) for k in (10, 25, 50, 100) if k <= n},
        "to_top1": experiments_to(yields, table.top1),
        "to_best": experiments_to(yields, table.best - 1e-9),
        "experiments": n,
    }
