"""Molecular fingerprints for gpbandit's fingerprint domains (Tanimoto / MinMax kernels).

RDKit computes the fingerprints (an optional dependency: ``pip install rdkit``, or Debian's
``apt-get install python3-rdkit``); this module packs them in the layout the engine reads
(``gpbandit/engine/fingerprint.hpp``): bit fingerprints as ``uint64`` words, N × ⌈bits/64⌉, bit b
of a row in word b // 64 at bit b % 64; count fingerprints as ``uint8``, N × bits, one count per
position clipped to 255.

Fingerprints (``kind``):

- ``"atom_pair"``: RDKit's hashed atom-pair fingerprint, topological distances
  ``min_length``..``max_length`` (MolPAL's default featuriser: 2048 bits, lengths 1-3; bits use
  RDKit's count simulation, exactly ``GetHashedAtomPairFingerprintAsBitVect``).
- ``"morgan"``: Morgan / ECFP of ``radius`` (2 = ECFP4), with chirality by default (as MolPAL).

Command line (the featurisation step of ``"domain": {"type": "molecules", ...}`` configs)::

    python3 -m gpbandit.chem featurize CONFIG.json [CONFIG.json ...] [--force]
    python3 -m gpbandit.chem featurize --csv LIB.csv[.gz] --out FP.npy [--smiles smiles]
        [--fingerprint atom_pair|morgan] [--bits 2048] [--radius 2] [--min-length 1]
        [--max-length 3] [--counts]

``label_encoding`` turns molecules that are the labels of a categorical parameter (a ligand, a
base, a solvent) into its descriptor table (docs/spaces.md); for the CLI,
``python3 -m gpbandit.chem labels LIGANDS.csv --out ligand_fp.csv [--label label] [--smiles
smiles] [--fingerprint morgan|atom_pair] ...`` writes it as the descriptor CSV a "parameters"
domain's categorical takes (``"encoding": {"descriptors": "ligand_fp.csv"}``).

The first form writes every cache a config's molecules domain names (file names and metadata
from the C++ reader, so the CLI finds exactly them); the second one file for your own use
(``Domain.from_fingerprints(np.load(path), bits)``).
"""

import argparse
import csv
import gzip
import io
import json
import os
import sys
import time

import numpy as np

FORMAT = "gpbandit-fingerprints-1"


def _rdkit():
    try:
        from rdkit import Chem, RDLogger
        from rdkit.Chem import rdFingerprintGenerator
    except ImportError as e:
        raise ImportError(
            "gpbandit.chem needs RDKit: pip install rdkit (or apt-get install python3-rdkit)"
        ) from e
    RDLogger.DisableLog("rdApp.*")
    return Chem, rdFingerprintGenerator


def rdkit_version():
    """RDKit's version string (recorded in the cache metadata)."""
    import rdkit

    return rdkit.__version__


def _generator(kind, bits, radius, min_length, max_length, counts, chirality):
    _, fpg = _rdkit()
    if kind == "atom_pair":
        return fpg.GetAtomPairGenerator(minDistance=min_length, maxDistance=max_length,
                                        fpSize=bits, countSimulation=not counts)
    if kind == "morgan":
        return fpg.GetMorganGenerator(radius=radius, fpSize=bits, includeChirality=chirality)
    raise ValueError(f"unknown fingerprint kind {kind!r}; expected atom_pair or morgan")


def pack_bits(dense):
    """Packs an N × bits array of 0/1 into N × ⌈bits/64⌉ uint64 words (the engine's layout)."""
    dense = np.asarray(dense)
    if dense.ndim != 2:
        raise ValueError("pack_bits: expected a 2-d array (one row per fingerprint)")
    if dense.size and not np.isin(dense, (0, 1)).all():
        raise ValueError("pack_bits: values must be 0 or 1")
    n, bits = dense.shape
    words = (bits + 63) // 64
    packed = np.packbits(dense.astype(np.uint8), axis=1, bitorder="little")
    out = np.zeros((n, words * 8), dtype=np.uint8)
    out[:, : packed.shape[1]] = packed
    return out.view("<u8").reshape(n, words)


def unpack_bits(words, bits):
    """Inverse of pack_bits: N × bits uint8 of 0/1."""
    words = np.ascontiguousarray(words, dtype="<u8")
    as_bytes = words.view(np.uint8).reshape(words.shape[0], -1)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :bits]


def fingerprints(smiles, kind="atom_pair", bits=2048, radius=2, min_length=1, max_length=3,
                 counts=False, chirality=True):
    """Fingerprints of SMILES strings, packed for the engine.

    Returns uint64 words (N × ⌈bits/64⌉) for bit fingerprints, uint8 counts (N × bits, clipped
    to 255) when ``counts``. Raises ValueError naming the first SMILES RDKit cannot parse.
    """
    chem, _ = _rdkit()
    gen = _generator(kind, bits, radius, min_length, max_length, counts, chirality)
    smiles = list(smiles)
    dense = np.zeros((len(smiles), bits), dtype=np.uint8)
    for i, s in enumerate(smiles):
        mol = chem.MolFromSmiles(s)
        if mol is None:
            raise ValueError(f"SMILES {i} ({s!r}) cannot be parsed by RDKit")
        if counts:
            for pos, c in gen.GetCountFingerprint(mol).GetNonzeroElements().items():
                dense[i, pos] = min(c, 255)
        else:
            dense[i, list(gen.GetFingerprint(mol).GetOnBits())] = 1
    return dense if counts else pack_bits(dense)


def _labelled(smiles, who):
    """{label: SMILES} from a dict, or from a list of SMILES (each its own label); `who` names
    the caller in the error for no labels."""
    table = dict(smiles) if isinstance(smiles, dict) else {s: s for s in smiles}
    if not table:
        raise ValueError(f"{who}: no labels")
    return table


def label_encoding(smiles, kind="morgan", bits=2048, radius=2, min_length=1, max_length=3,
                   counts=False, chirality=True):
    """A descriptor table for a categorical parameter whose labels are molecules: ``smiles`` is
    a dict {label: SMILES} (or a list of SMILES, each its own label); returns {label: row}, the
    label's fingerprint (bits 0/1, or counts) with the positions that are the same for every
    label dropped (they tell no label from another). Use it as a ``Categorical``'s encoding::

        gp.Categorical("ligand", list(ligands), encoding=chem.label_encoding(ligands))

    The space standardises each column over the labels (docs/spaces.md), so a rare bit weighs
    more than a common one; with few labels and many bits, a per-parameter kernel (one
    lengthscale for the block) keeps the fit small. Raises ValueError naming a SMILES RDKit
    cannot parse, and when every label has the same fingerprint (nothing to encode).
    """
    table = _labelled(smiles, "label_encoding")
    labels = list(table)
    fp = fingerprints([table[k] for k in labels], kind=kind, bits=bits, radius=radius,
                      min_length=min_length, max_length=max_length, counts=counts,
                      chirality=chirality)
    dense = fp if counts else unpack_bits(fp, bits)
    keep = (dense != dense[0]).any(axis=0)
    if not keep.any():
        raise ValueError(f"label_encoding: the {len(labels)} labels have one and the same "
                         f"{kind} fingerprint: nothing tells them apart")
    return {k: dense[i, keep].astype(float).tolist() for i, k in enumerate(labels)}


def label_descriptors(smiles, kind="rdkit"):
    """A descriptor table of molecular descriptors for a categorical parameter whose labels are
    molecules: ``smiles`` as for ``label_encoding``; returns {label: row}. ``kind`` "rdkit":
    RDKit's 2D descriptors (``Descriptors.CalcMolDescriptors``: about 200 — counts, charges,
    surface areas, logP, topological indices); "mordred": Mordred's 2D descriptors (about 1 600;
    needs ``pip install mordredcommunity``). A column that is not finite for every label, or the
    same for every label (up to 10⁻⁹ relative), is dropped. Raises ValueError naming a SMILES
    RDKit cannot parse, and when no column tells the labels apart."""
    chem, _ = _rdkit()
    table = _labelled(smiles, "label_descriptors")
    mols = []
    for label, smi in table.items():
        mol = chem.MolFromSmiles(smi)
        if mol is None:
            raise ValueError(f"label_descriptors: the SMILES of {label!r} ({smi!r}) cannot be "
                             "parsed by RDKit")
        mols.append(mol)
    if kind == "rdkit":
        from rdkit.Chem import Descriptors

        calc = getattr(Descriptors, "CalcMolDescriptors", None)
        if calc is None:  # RDKit before 2023.03 (Debian 12's 2022.09): the same list by hand
            def calc(mol):
                out = {}
                for name, fn in Descriptors.descList:
                    try:
                        out[name] = fn(mol)
                    except Exception:  # as CalcMolDescriptors does: a failed one is missing
                        out[name] = float("nan")
                return out
        rows = [calc(m) for m in mols]
        names = list(rows[0])
        values = [[r.get(n, float("nan")) for n in names] for r in rows]
    elif kind == "mordred":
        try:
            from mordred import Calculator, descriptors
        except ImportError as e:
            raise ImportError("label_descriptors(kind='mordred') needs Mordred: "
                              "pip install mordredcommunity") from e
        calc = Calculator(descriptors, ignore_3D=True)
        values = [list(calc(m)) for m in mols]
    else:
        raise ValueError(f"label_descriptors: kind must be 'rdkit' or 'mordred', got {kind!r}")

    def number(v):
        try:
            return float(v)
        except (TypeError, ValueError):  # Mordred's missing values are error objects
            return float("nan")

    mat = np.array([[number(v) for v in row] for row in values], dtype=float)
    keep = np.isfinite(mat).all(axis=0)
    # the same for every label up to rounding: some descriptors of one molecule differ in their
    # last digits with the atom order of its SMILES
    spread = np.ptp(np.where(keep, mat, 0.0), axis=0)
    keep &= spread > 1e-9 * np.maximum(1.0, np.abs(np.where(keep, mat, 0.0)).max(axis=0))
    if not keep.any():
        raise ValueError(f"label_descriptors: no {kind} descriptor tells the {len(mols)} labels "
                         "apart")
    return {k: mat[i, keep].tolist() for i, k in enumerate(table)}


def read_smiles(path, column="smiles"):
    """The SMILES column of a CSV (or gzip-compressed CSV) with a header line."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    reader = csv.reader(io.StringIO(raw.decode("utf-8")))
    header = next(reader, None)
    if header is None:
        raise ValueError(f"{path}: empty file")
    if column not in header:
        raise ValueError(f"{path}:1: no column {column!r} in the header ({', '.join(header)})")
    col = header.index(column)
    out = []
    for line, row in enumerate(reader, start=2):
        if not row or not "".join(row).strip():
            continue
        if len(row) <= col:
            raise ValueError(f"{path}:{line}: {len(row)} fields, the header has {len(header)}")
        out.append(row[col])
    return out


def write_cache(source, smiles_column, spec, npy_path, json_path):
    """Featurises the library `source` by `spec` (the C++ reader's dict) into npy + json."""
    t0 = time.time()
    smiles = read_smiles(source, smiles_column)
    try:
        fp = fingerprints(smiles, kind=spec["type"], bits=spec["bits"],
                          radius=spec.get("radius", 2), min_length=spec.get("min_length", 1),
                          max_length=spec.get("max_length", 3), counts=spec["counts"],
                          chirality=spec.get("chirality", True))
    except ValueError as e:  # name the line of the library
        msg = str(e)
        if msg.startswith("SMILES "):
            i = int(msg.split()[1])
            raise ValueError(f"{source}: data row {i + 1}: {msg}") from None
        raise
    os.makedirs(os.path.dirname(npy_path) or ".", exist_ok=True)
    tmp = npy_path + ".tmp.npy"
    np.save(tmp, fp)
    os.replace(tmp, npy_path)
    meta = {"format": FORMAT, "source": os.path.basename(source),
            "source_bytes": os.path.getsize(source), "rows": len(smiles),
            "smiles": smiles_column, "fingerprint": spec, "rdkit": rdkit_version(),
            "seconds": round(time.time() - t0, 3)}
    with open(json_path + ".tmp", "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    os.replace(json_path + ".tmp", json_path)
    return meta


def featurize_config(path, force=False, out=sys.stderr):
    """Writes the fingerprint cache of every molecules domain of the config at `path`."""
    from . import _gpbandit

    done = []
    for c in _gpbandit._molecule_caches(path):
        c = dict(c, fingerprint=json.loads(c["fingerprint"]))
        if not force and os.path.exists(c["npy"]) and os.path.exists(c["json"]):
            with open(c["json"]) as f:
                meta = json.load(f)
            if (meta.get("source_bytes") == os.path.getsize(c["file"])
                    and meta.get("fingerprint") == c["fingerprint"]
                    and meta.get("smiles") == c["smiles"]):
                print(f"up to date: {c['npy']}", file=out)
                done.append(c["npy"])
                continue
        meta = write_cache(c["file"], c["smiles"], c["fingerprint"], c["npy"], c["json"])
        print(f"wrote {c['npy']}: {meta['rows']} molecules in {meta['seconds']} s "
              f"(RDKit {meta['rdkit']})", file=out)
        done.append(c["npy"])
    if not done:
        print(f"{path}: no molecules domain", file=out)
    return done


def write_label_encoding(a):
    """The ``labels`` command: label_encoding (or, with ``--descriptors``, label_descriptors) of
    a CSV's (label, SMILES) rows, with ``--components`` reduced by params.principal_components,
    written as a descriptor CSV (a header "label,f0,f1,...", one row per label), the file a
    "parameters" domain's categorical names as ``"encoding": {"descriptors": FILE}``."""
    with open(a.csv, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError(f"{a.csv}: no rows")
    for col in (a.label, a.smiles):
        if col not in rows[0]:
            raise ValueError(f"{a.csv}:1: no column {col!r} (columns: {', '.join(rows[0])})")
    smiles = {}
    for i, r in enumerate(rows, start=2):
        if r[a.label] in smiles:
            raise ValueError(f"{a.csv}:{i}: label {r[a.label]!r} repeats")
        smiles[r[a.label]] = r[a.smiles]
    if a.descriptors:
        table, what = label_descriptors(smiles, kind=a.descriptors), f"{a.descriptors} descriptors"
    else:
        table = label_encoding(smiles, kind=a.fingerprint, bits=a.bits, radius=a.radius,
                               min_length=a.min_length, max_length=a.max_length,
                               counts=a.counts)
        what = f"{a.fingerprint} positions"
    if a.components is not None:
        from .params import principal_components

        table = principal_components(table, a.components)
        what = f"principal components of the {what} ({a.components:g} of their variance)"
    width = len(next(iter(table.values())))
    tmp = a.out + ".tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([a.label] + [f"f{j}" for j in range(width)])
        for k, row in table.items():
            w.writerow([k] + ([repr(float(v)) for v in row]
                              if a.descriptors or a.components is not None
                              else [int(v) for v in row]))
    os.replace(tmp, a.out)  # nothing half-written
    print(f"wrote {a.out}: {len(table)} labels × {width} {what}", file=sys.stderr)


def _fingerprint_arguments(parser, kind):
    """The fingerprint options of a subcommand (``kind``: its default fingerprint)."""
    parser.add_argument("--fingerprint", default=kind, choices=["atom_pair", "morgan"])
    parser.add_argument("--bits", type=int, default=2048)
    parser.add_argument("--radius", type=int, default=2)
    parser.add_argument("--min-length", type=int, default=1)
    parser.add_argument("--max-length", type=int, default=3)
    parser.add_argument("--counts", action="store_true")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m gpbandit.chem",
                                description="Featurise molecular libraries for gpbandit.")
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("featurize", help="write fingerprint caches")
    f.add_argument("configs", nargs="*", help="configs whose molecules domains to featurise")
    f.add_argument("--force", action="store_true", help="featurise even when up to date")
    f.add_argument("--csv", help="a library to featurise on its own (with --out)")
    f.add_argument("--out", help="the .npy to write (with --csv)")
    f.add_argument("--smiles", default="smiles")
    _fingerprint_arguments(f, "atom_pair")
    lab = sub.add_parser("labels", help="a categorical's descriptor table from its molecules")
    lab.add_argument("csv", help="a CSV with a label column and a SMILES column")
    lab.add_argument("--out", required=True, help="the descriptor CSV to write (label, f0, ...)")
    lab.add_argument("--label", default="label", help="the label column (default label)")
    lab.add_argument("--smiles", default="smiles", help="the SMILES column (default smiles)")
    _fingerprint_arguments(lab, "morgan")
    lab.add_argument("--descriptors", choices=["rdkit", "mordred"],
                     help="the molecules' 2D descriptors instead of a fingerprint (mordred: "
                          "pip install mordredcommunity)")
    lab.add_argument("--components", type=float, metavar="SHARE",
                     help="write the principal components that explain this share of the "
                          "standardised columns' variance (e.g. 0.95) instead of the columns")
    a = p.parse_args(argv)
    try:
        if a.command == "labels":
            write_label_encoding(a)
            return 0
        if a.csv:
            if not a.out:
                p.error("--csv needs --out")
            spec = {"type": a.fingerprint, "bits": a.bits, "counts": a.counts}
            if a.fingerprint == "morgan":
                spec.update(radius=a.radius, chirality=True)
            else:
                spec.update(min_length=a.min_length, max_length=a.max_length)
            base = a.out[:-4] if a.out.endswith(".npy") else a.out
            meta = write_cache(a.csv, a.smiles, spec, base + ".npy", base + ".json")
            print(f"wrote {base}.npy: {meta['rows']} molecules", file=sys.stderr)
        elif not a.configs:
            p.error("give configs, or --csv and --out")
        for c in a.configs:
            featurize_config(c, a.force)
    except (ValueError, OSError, ImportError) as e:
        print(f"gpbandit.chem: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
