"""A FinitePosterior sharded over mpi4py's COMM_WORLD (run under `mpirun -np K`, by ctest's
PythonMpiShardedNp2/3): every rank drives a sharded posterior (Context(comm=MPI.COMM_WORLD)) and a
one-rank posterior over the same domain through the same GP-UCB loop (random ties, GP-BUCB
pending rows, exclusion masks); the choices, scores, means and variances must be identical, bit
for bit. N = 437 is not a multiple of 2 or 3. Exits 77 (ctest: skipped) when mpi4py is not installed for this
Python."""
from mpi_support import mpi_or_skip

MPI = mpi_or_skip()

import numpy as np  # noqa: E402

import gpbandit as g  # noqa: E402


def main():
    comm = MPI.COMM_WORLD
    k, q = comm.Get_size(), comm.Get_rank()
    rng = np.random.default_rng(7)
    domain = g.Domain.from_rows(rng.uniform(0.0, 1.0, size=(437, 2)))
    f = np.sin(6 * domain.points[0]) * np.cos(4 * domain.points[1])
    kernel = g.Kernel.matern(2.5, 0.25)
    sharded = g.Context(backend="cpu", threads=1, comm=comm, comm_timeout=60)
    one = g.Context(backend="cpu", threads=1)
    assert (sharded.rank, sharded.ranks) == (q, k), (sharded.rank, sharded.ranks)
    assert (one.rank, one.ranks) == (0, 1)
    posts = [g.FinitePosterior(c, kernel, domain, runs=2, noise_variance=0.01) for c in
             (sharded, one)]
    noise = np.random.default_rng(3).normal(scale=0.1, size=(40, 2))
    for t in range(40):
        width = np.array([2.0, 0.5])
        mask = None
        if t % 3 == 2:  # an exclusion mask over the whole domain (R×N): no candidate twice
            mask = np.zeros((2, domain.size), dtype=np.uint8)
            for r in range(2):
                mask[r, posts[1].history(r)] = 1
        picks = [p.ucb_argmax(width, excluded=mask, seed=11 + t) for p in posts]
        np.testing.assert_array_equal(picks[0][0], picks[1][0], err_msg=f"round {t}: choices")
        np.testing.assert_array_equal(picks[0][1], picks[1][1], err_msg=f"round {t}: scores")
        index = picks[0][0].astype(np.int32)
        if t % 5 == 4:  # a GP-BUCB step: a pending row first, then its reward
            for p in posts:
                p.add_pending(index)
                p.resolve_pending(f[index] + noise[t])
        else:
            for p in posts:
                p.observe(index, f[index] + noise[t])
    for r in range(2):
        np.testing.assert_array_equal(posts[0].mean(r), posts[1].mean(r))
        np.testing.assert_array_equal(posts[0].variance(r), posts[1].variance(r))
        np.testing.assert_array_equal(posts[0].history(r), posts[1].history(r))
    try:
        g.Context(comm=object())
        raise AssertionError("a comm without py2f() was accepted")
    except g.InvalidArgument as e:
        assert "comm: expected an mpi4py communicator" in str(e), e
    comm.Barrier()
    if q == 0:
        print(f"{k} ranks: 40 rounds of GP-UCB / GP-BUCB identical to one process")


if __name__ == "__main__":
    main()
