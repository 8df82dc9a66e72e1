# Tests of the gpbandit Python module. `make test` runs them through CTest (test PythonModule) with
# PYTHONPATH pointing at build/python; after `pip install .` they run with plain `pytest python/tests`.
import os

import pytest

import gpbandit


@pytest.fixture
def ctx():
    return gpbandit.Context("cpu", threads=1)


@pytest.fixture
def source_dir():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get("GPB_SOURCE_DIR", os.path.dirname(os.path.dirname(here)))
