#!/usr/bin/env bash
# Installs the Debian packages gpbandit needs, only those missing, then makes sure the python3 first
# on PATH (the one the Python module is built for) can import numpy, pytest, pybind11,
# scikit-build-core and mpi4py.
# Idempotent and silent when everything is present. Used by `make demo` / `make test`.
# Usage: tools/install_deps.sh PACKAGE...
set -euo pipefail

missing=()
for pkg in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

# The python3 first on PATH. Debian's /usr/bin/python3 gets python3-numpy, python3-pytest and
# pybind11-dev from the package list; any other interpreter (pyenv, a venv, ...) gets what it
# lacks from PyPI. pybind11 comes with it then, because Debian 12's pybind11 2.10 predates NumPy 2;
# scikit-build-core (not packaged in Debian 12) lets the ctest PythonWheel build the wheel of
# `pip install .` (that test skips without it, as it does for Debian's python3).
python_deps() {
  command -v python3 >/dev/null 2>&1 || return 0
  local exe
  exe=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || return 0
  case "$exe" in /usr/bin/python3*) return 0 ;; esac
  local want=()
  for mod in numpy pytest pybind11 scikit_build_core; do
    python3 -c "import $mod" >/dev/null 2>&1 || want+=("${mod//_/-}")
  done
  export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
  if [ ${#want[@]} -gt 0 ]; then
    echo "gpbandit: installing for $exe from PyPI: ${want[*]}" >&2
    python3 -m pip install -q "${want[@]}" >&2
  fi
  # mpi4py for the sharded posterior's Python test, compiled against the system Open MPI (the
  # one gpbandit links; a binary wheel may carry another MPI).
  if command -v mpicc >/dev/null 2>&1 && ! python3 -c "import mpi4py" >/dev/null 2>&1; then
    echo "gpbandit: building mpi4py for $exe against the system Open MPI (PyPI source)" >&2
    python3 -m pip install -q --no-binary mpi4py mpi4py >&2 ||
      echo "gpbandit: warning: mpi4py could not be built; PythonMpiShardedNp* will be skipped" >&2
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  python_deps
  exit 0
fi

echo "gpbandit: installing missing Debian packages: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "gpbandit: error: need root (or sudo) to install: ${missing[*]}" >&2
    exit 2
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
python_deps
