"""Shared by the scripts that ctest runs under mpirun (mpi_*.py): mpi4py's MPI module, or exit 77
(ctest: skipped) with a message when mpi4py is not installed for this Python."""
import sys


def mpi_or_skip():
    try:
        from mpi4py import MPI
    except ImportError:
        print(f"SKIP: mpi4py is not installed for {sys.executable}")
        sys.exit(77)
    return MPI
