"""Fingerprint domains from Python: packing, the Tanimoto / MinMax kernels against the direct
numpy formulas, the featuriser against RDKit (skipped without RDKit), the molecule caches of a
config, and a block update through FinitePosterior.observe_batch. Fixed seeds."""
import json
import os

import numpy as np
import pytest

import gpbandit as gb
from gpbandit import chem


def tanimoto_np(a, b):
    """|a ∧ b| / |a ∨ b| for 0/1 rows (1 when both empty)."""
    inter = a.astype(np.int64) @ b.T.astype(np.int64)
    union = a.sum(1)[:, None] + b.sum(1)[None, :] - inter
    return np.where(union == 0, 1.0, inter / np.maximum(union, 1))


def minmax_np(a, b):
    lo = np.minimum(a[:, None, :], b[None, :, :]).sum(-1)
    hi = np.maximum(a[:, None, :], b[None, :, :]).sum(-1)
    return np.where(hi == 0, 1.0, lo / np.maximum(hi, 1))


def test_pack_unpack_round_trip():
    rng = np.random.default_rng(0)
    dense = (rng.random((9, 200)) < 0.1).astype(np.uint8)
    words = chem.pack_bits(dense)
    assert words.dtype == np.dtype("<u8") and words.shape == (9, 4)
    assert (chem.unpack_bits(words, 200) == dense).all()
    assert int(words[0, 0]) & 1 == dense[0, 0]  # bit 0 is the lowest bit of word 0
    with pytest.raises(ValueError):
        chem.pack_bits(np.full((2, 3), 2))


def test_kernels_match_numpy_formulas():
    rng = np.random.default_rng(1)
    ctx = gb.Context("cpu")
    a = (rng.random((30, 2048)) < 0.04).astype(np.uint8)
    b = (rng.random((11, 2048)) < 0.04).astype(np.uint8)
    b[3] = 0
    k = gb.fingerprint_kernel_matrix(ctx, gb.Kernel.tanimoto(2.0), chem.pack_bits(a),
                                     chem.pack_bits(b), bits=2048)
    np.testing.assert_allclose(k, 2.0 * tanimoto_np(a, b), rtol=0, atol=1e-15)
    k_dense = gb.fingerprint_kernel_matrix(ctx, gb.Kernel.tanimoto(2.0), a, b)
    np.testing.assert_array_equal(k, k_dense)
    ca = rng.integers(0, 6, (12, 300)) * (rng.random((12, 300)) < 0.2)
    cb = rng.integers(0, 6, (7, 300)) * (rng.random((7, 300)) < 0.2)
    km = gb.fingerprint_kernel_matrix(ctx, gb.Kernel.minmax(), ca, cb, kind="counts")
    np.testing.assert_allclose(km, minmax_np(ca, cb), rtol=0, atol=1e-15)
    # PSD: the smallest eigenvalue of a Tanimoto Gram matrix is >= 0 up to rounding.
    g = gb.fingerprint_kernel_matrix(ctx, gb.Kernel.tanimoto(), a, a)
    assert np.linalg.eigvalsh(g).min() > -1e-12


def test_domain_and_block_update_match_dense_gp():
    rng = np.random.default_rng(2)
    dense = (rng.random((500, 512)) < 0.08).astype(np.uint8)
    dom = gb.Domain.from_fingerprints(chem.pack_bits(dense), bits=512)
    assert dom.is_fingerprint and dom.fingerprint_bits == 512 and len(dom) == 500
    assert (dom.fingerprint_words() == chem.pack_bits(dense)).all()
    post = gb.FinitePosterior(gb.Context("cpu"), gb.Kernel.tanimoto(), dom, runs=1,
                              noise_variance=0.05)
    idx = rng.choice(500, 60, replace=False)
    y = rng.normal(size=60)
    post.observe_batch(idx, y)
    k = tanimoto_np(dense, dense)
    kxx = k[np.ix_(idx, idx)] + 0.05 * np.eye(60)
    mu = k[:, idx] @ np.linalg.solve(kxx, y)
    var = 1 - np.einsum("ij,ji->i", k[:, idx], np.linalg.solve(kxx, k[idx, :]))
    np.testing.assert_allclose(post.mean(0), mu, atol=1e-9)
    np.testing.assert_allclose(post.variance(0), np.maximum(var, 0), atol=1e-9)


def test_fingerprint_slice_is_the_rows_of_the_whole():
    rng = np.random.default_rng(4)
    words = chem.pack_bits((rng.random((40, 128)) < 0.1).astype(np.uint8))
    whole = gb.Domain.from_fingerprints(words, bits=128)
    part = gb.Domain.from_fingerprint_slice(words, 0, 40, bits=128)  # one rank: all of it
    ctx = gb.Context("cpu")
    a = gb.FinitePosterior(ctx, gb.Kernel.tanimoto(), whole, runs=1, noise_variance=0.1)
    b = gb.FinitePosterior(ctx, gb.Kernel.tanimoto(), part, runs=1, noise_variance=0.1)
    for p in (a, b):
        p.observe_batch(np.array([3, 17, 30]), np.array([0.5, -1.0, 2.0]))
    assert (a.mean(0) == b.mean(0)).all() and (a.variance(0) == b.variance(0)).all()
    assert len(gb.Domain.from_fingerprint_slice(words[5:9], 5, 40, bits=128)) == 40
    with pytest.raises(ValueError, match=r"\[35, 75\) are not within \[0, 40\)"):
        gb.Domain.from_fingerprint_slice(words, 35, 40, bits=128)


def test_block_update_in_float_stays_near_double():
    # precision="mixed": V in float, the block update's GEMM and triangular solve in float. The
    # engine's stated tolerance: mu and sigma^2 within 1e-5 * v of the double posterior (fixed
    # seed; float rounding is deterministic, so this cannot fail at random).
    rng = np.random.default_rng(5)
    dense = (rng.random((800, 1024)) < 0.05).astype(np.uint8)
    dom = gb.Domain.from_fingerprints(chem.pack_bits(dense), bits=1024)
    kern = gb.Kernel.tanimoto(0.64)
    idx = rng.choice(800, 240, replace=False)
    y = rng.normal(size=240)
    posts = {}
    for precision in ("double", "mixed"):
        ctx = gb.Context("cpu", threads=2, precision=precision)
        post = gb.FinitePosterior(ctx, kern, dom, runs=1, noise_variance=0.033, capacity=240,
                                  mode="incremental")
        for s in range(0, 240, 80):
            post.observe_batch(idx[s:s + 80], y[s:s + 80])
        posts[precision] = post
    d, m = posts["double"], posts["mixed"]
    np.testing.assert_allclose(m.mean(0), d.mean(0), rtol=0, atol=1e-5 * 0.64)
    np.testing.assert_allclose(m.variance(0), d.variance(0), rtol=0, atol=1e-5 * 0.64)
    assert np.max(np.abs(m.mean(0) - d.mean(0))) > 0  # the float path ran, not the double one


def test_featuriser_reproduces_rdkit(tmp_path):
    rdkit = pytest.importorskip("rdkit")
    from rdkit import Chem
    from rdkit.Chem import rdMolDescriptors as rd

    smiles = ["CCO", "c1ccccc1O", "O=C(NCCc1cccc(-c2ccccc2)c1)[C@@H]1CCCCN1"]
    words = chem.fingerprints(smiles, kind="atom_pair", bits=2048, min_length=1, max_length=3)
    dense = chem.unpack_bits(words, 2048)
    for i, s in enumerate(smiles):  # MolPAL's call, through the deprecated function
        fp = rd.GetHashedAtomPairFingerprintAsBitVect(Chem.MolFromSmiles(s), nBits=2048,
                                                      minLength=1, maxLength=3)
        assert sorted(fp.GetOnBits()) == list(np.flatnonzero(dense[i]))
    counts = chem.fingerprints(smiles, kind="morgan", bits=1024, radius=2, counts=True)
    assert counts.dtype == np.uint8 and counts.shape == (3, 1024) and counts.sum() > 0
    with pytest.raises(ValueError, match="SMILES 1"):
        chem.fingerprints(["CC", "not a smiles"])
    assert rdkit.__version__ == chem.rdkit_version()


def test_molecule_caches_of_a_config(tmp_path):
    (tmp_path / "lib.csv").write_text("smiles,score\nCCO,-1\nCCN,-2\n")
    cfg = {"experiment": "pool", "domain": {"type": "molecules", "file": "lib.csv",
                                            "fingerprint": {"type": "morgan", "bits": 512}},
           "objective": {"type": "lookup"}, "policies": [{"type": "greedy"}]}
    (tmp_path / "c.json").write_text(json.dumps(cfg))
    (c,) = gb._gpbandit._molecule_caches(str(tmp_path / "c.json"))
    assert c["npy"] == str(tmp_path / "fingerprints" / "lib.csv.morgan-512-r2-chiral-bits.npy")
    assert json.loads(c["fingerprint"]) == {"type": "morgan", "bits": 512, "radius": 2,
                                            "chirality": True, "counts": False}
    if not os.environ.get("GPB_HAVE_RDKIT_TEST", "1") or not _has_rdkit():
        return
    written = chem.featurize_config(str(tmp_path / "c.json"))
    assert written == [c["npy"]]
    assert np.load(c["npy"]).shape == (2, 8)
    assert json.loads((tmp_path / "fingerprints" / os.path.basename(c["json"])).read_text())[
        "rows"] == 2


def _has_rdkit():
    try:
        import rdkit  # noqa: F401
    except ImportError:
        return False
    return True


def test_label_encoding_is_a_categoricals_descriptor_table():
    # Molecules as the labels of a categorical: one fingerprint row per label, the positions
    # every label shares dropped; a space takes it as its encoding. Bad SMILES and labels that
    # cannot be told apart are refused.
    pytest.importorskip("rdkit")
    from gpbandit import params as gp

    bases = {"KOAc": "O=C([O-])C.[K+]", "CsOAc": "O=C([O-])C.[Cs+]",
             "KOPiv": "CC(C)(C)C(=O)[O-].[K+]"}
    table = chem.label_encoding(bases)
    assert list(table) == list(bases)
    rows = np.array(list(table.values()))
    full = chem.unpack_bits(chem.fingerprints(list(bases.values()), kind="morgan"), 2048)
    varying = (full != full[0]).any(axis=0)
    assert rows.shape == (3, int(varying.sum())) and np.array_equal(rows, full[:, varying])
    space = gp.ParameterSpace([gp.Categorical("base", list(bases), encoding=table),
                               gp.Integer("temp", 90, 120, 15)])
    assert len(space) == 9 and space.n_features == rows.shape[1] + 1
    with pytest.raises(ValueError, match="cannot be parsed"):
        chem.label_encoding({"a": "C", "b": "not a smiles"})
    with pytest.raises(ValueError, match="nothing tells them apart"):
        chem.label_encoding({"a": "CCO", "b": "OCC"})


def test_label_descriptors_are_the_molecules_2d_descriptors():
    # RDKit's 2D descriptors per label, the columns that are not finite for every label or are
    # the same for every label dropped; checked against RDKit's own values for the columns that
    # must be there (molecular weight, heavy atoms), and the refusals.
    pytest.importorskip("rdkit")
    from rdkit import Chem
    from rdkit.Chem import Descriptors

    mols = {"ethanol": "CCO", "benzene": "c1ccccc1", "acetic acid": "CC(=O)O"}
    table = chem.label_descriptors(mols)
    assert list(table) == list(mols)
    rows = np.array(list(table.values()))
    assert np.isfinite(rows).all() and (np.ptp(rows, axis=0) > 0).all()
    want = {k: Descriptors.CalcMolDescriptors(Chem.MolFromSmiles(v)) for k, v in mols.items()}
    names = [n for n in want["ethanol"]
             if all(np.isfinite(float(want[k][n])) for k in mols)
             and np.ptp([float(want[k][n]) for k in mols])
             > 1e-9 * max(1.0, max(abs(float(want[k][n])) for k in mols))]
    assert rows.shape == (3, len(names))
    for col in ("MolWt", "HeavyAtomCount"):
        j = names.index(col)
        assert [table[k][j] for k in mols] == [float(want[k][col]) for k in mols]
    with pytest.raises(ValueError, match="cannot be parsed"):
        chem.label_descriptors({"a": "C", "b": "not a smiles"})
    with pytest.raises(ValueError, match="no rdkit descriptor tells"):
        chem.label_descriptors({"a": "CCO", "b": "OCC"})
    with pytest.raises(ValueError, match="kind must be"):
        chem.label_descriptors(mols, kind="dft")


def test_label_descriptors_without_calc_mol_descriptors(monkeypatch):
    # RDKit before 2023.03 (Debian 12 ships 2022.09) has no CalcMolDescriptors: the descriptor
    # list is walked by hand, to the same table.
    pytest.importorskip("rdkit")
    from rdkit.Chem import Descriptors

    mols = {"ethanol": "CCO", "benzene": "c1ccccc1", "acetic acid": "CC(=O)O"}
    want = chem.label_descriptors(mols)
    monkeypatch.delattr(Descriptors, "CalcMolDescriptors", raising=False)
    assert chem.label_descriptors(mols) == want


def test_labels_command_writes_a_descriptor_csv_the_cli_reads(tmp_path):
    # python3 -m gpbandit.chem labels: (label, SMILES) rows in, the descriptor CSV of a
    # "parameters" domain's categorical out; a missing column is one message and exit code 2,
    # with no file written.
    pytest.importorskip("rdkit")
    src = tmp_path / "bases.csv"
    src.write_text("label,smiles\nKOAc,O=C([O-])C.[K+]\nCsOAc,O=C([O-])C.[Cs+]\n"
                   "KOPiv,CC(C)(C)C(=O)[O-].[K+]\n")
    out = tmp_path / "bases_fp.csv"
    assert chem.main(["labels", str(src), "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    want = chem.label_encoding({"KOAc": "O=C([O-])C.[K+]", "CsOAc": "O=C([O-])C.[Cs+]",
                                "KOPiv": "CC(C)(C)C(=O)[O-].[K+]"})
    assert lines[0].split(",")[0] == "label" and len(lines) == 4
    for line in lines[1:]:
        cells = line.split(",")
        assert [float(c) for c in cells[1:]] == want[cells[0]]
    bad = tmp_path / "bad_fp.csv"
    assert chem.main(["labels", str(src), "--out", str(bad), "--smiles", "SMILES"]) == 2
    assert not bad.exists()
    # --descriptors: the molecules' RDKit descriptors, the values written exactly
    desc = tmp_path / "bases_rdkit.csv"
    assert chem.main(["labels", str(src), "--out", str(desc), "--descriptors", "rdkit"]) == 0
    want = chem.label_descriptors({"KOAc": "O=C([O-])C.[K+]", "CsOAc": "O=C([O-])C.[Cs+]",
                                   "KOPiv": "CC(C)(C)C(=O)[O-].[K+]"})
    lines = desc.read_text().splitlines()
    assert len(lines) == 4
    for line in lines[1:]:
        cells = line.split(",")
        assert [float(c) for c in cells[1:]] == want[cells[0]]
    # --components: the principal components of those descriptors
    red = tmp_path / "bases_pc.csv"
    assert chem.main(["labels", str(src), "--out", str(red), "--descriptors", "rdkit",
                      "--components", "0.95"]) == 0
    from gpbandit import params as gp

    pcs = gp.principal_components(want, 0.95)
    lines = red.read_text().splitlines()
    assert len(lines) == 4 and len(lines[0].split(",")) == 1 + len(pcs["KOAc"]) <= 3
    for line in lines[1:]:
        cells = line.split(",")
        assert [float(c) for c in cells[1:]] == pcs[cells[0]]
    assert chem.main(["labels", str(src), "--out", str(tmp_path / "x.csv"),
                      "--components", "1.5"]) == 2
    assert not (tmp_path / "x.csv").exists()


def test_optimizer_asks_and_tells_fingerprints_by_index():
    """gb.Optimizer over Domain.from_fingerprints: the default kernel is Tanimoto on bits and
    MinMax on counts; a suggestion's points are the chosen candidates' packed words; with the fit
    off its posterior mean and variance are numpy's dense GP; it pickles (the state holds the
    words) and continues alike; coordinates are refused with one message."""
    rng = np.random.default_rng(4)
    bits = rng.random((300, 130)) < 0.15
    counts = rng.integers(0, 5, size=(300, 40))
    for dense, kernel_np, name in ((bits, tanimoto_np, "tanimoto"), (counts, minmax_np, "minmax")):
        dom = gb.Domain.from_fingerprints(dense, kind="bits" if dense is bits else "counts")
        opt = gb.Optimizer(dom, seed=2, noise_variance=0.01, fit={"every": 0, "normalize": False},
                           exclude_observed=True)
        assert name in repr(opt.kernel)
        idx = np.array([5, 77, 120, 201, 299])
        y = np.array([0.2, -1.0, 0.7, 1.5, -0.3])
        opt.tell(idx, y)
        mean, var = opt.predict()
        K = kernel_np(dense[idx], dense[idx]) + 0.01 * np.eye(5)
        Ks = kernel_np(dense, dense[idx])
        np.testing.assert_allclose(mean, Ks @ np.linalg.solve(K, y), atol=1e-10)
        np.testing.assert_allclose(var, 1.0 - np.einsum("ij,ji->i", Ks, np.linalg.solve(K, Ks.T)),
                                   atol=1e-10)
        s = opt.ask(3)
        assert s.points.dtype == np.uint64
        np.testing.assert_array_equal(s.points, dom.fingerprint_words()[s.indices])
        assert not set(s.indices.tolist()) & set(idx.tolist())
        with pytest.raises(gb.InvalidArgument, match="given by index"):
            opt.tell(np.zeros((1, s.points.shape[1])), [1.0])
        import pickle
        again = pickle.loads(pickle.dumps(opt))  # the state holds the words
        np.testing.assert_array_equal(again.ask(2).indices, opt.ask(2).indices)
        assert again.ask(1).points.dtype == np.uint64
    with pytest.raises(gb.InvalidArgument, match="bits takes the tanimoto kernel"):
        gb.Optimizer(gb.Domain.from_fingerprints(bits), kernel="se", lengthscale=1.0)
