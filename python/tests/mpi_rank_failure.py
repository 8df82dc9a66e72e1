"""A rank of a sharded FinitePosterior hangs; the live ranks raise gpbandit.RankFailure naming it
(run under `mpirun -np 3` by tests/mpi/python_rank_failure.sh, with GPB_SHARD_FAULT_RANK=2,
GPB_SHARD_FAULT_STEP=5, GPB_SHARD_FAULT_MODE=hang: rank 2 stops at its 5th collective).

Every live rank checks the exception (a gpbandit.Error, failed_rank == 2), the reporting rank prints
one line, then the exception propagates. Without the package's exit hook a plain
`mpirun python3 script.py` hung here for ever: the live ranks' MPI_Finalize waits for rank 2; with
it the job ends (MPI_Abort) within the timeout. Exits 77 (skipped) without mpi4py."""
from mpi_support import mpi_or_skip

MPI = mpi_or_skip()

import numpy as np  # noqa: E402

import gpbandit as g  # noqa: E402


def main():
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    domain = g.Domain.grid([0.0, 0.0], [1.0, 1.0], [30, 30])
    ctx = g.Context(backend="cpu", threads=1, comm=comm, comm_timeout=3)
    post = g.FinitePosterior(ctx, g.Kernel.se(0.2), domain, runs=1, noise_variance=0.01)
    try:
        for t in range(50):
            index, _ = post.ucb_argmax(np.array([2.0]), seed=t)
            post.observe(index.astype(np.int32), [np.sin(t)])
    except g.RankFailure as e:
        assert isinstance(e, g.Error), type(e).__mro__
        assert e.failed_rank == 2, (e.failed_rank, str(e))
        if e.reporter:
            print(f"rank {rank}: RankFailure failed_rank={e.failed_rank}: {e}", flush=True)
        raise
    raise AssertionError("no RankFailure although rank 2 hung")


if __name__ == "__main__":
    main()
