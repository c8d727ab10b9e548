"""Make the helper modules in tests/ (oracle, e2e_funcs) importable; ``--runslow`` runs the tests
marked ``slow`` (the systematic rule test's full cross product), which are skipped by default."""

import os
import sys

import pytest

os.environ.setdefault("NUMBA_OPT", "0")  # backend="numba" tests: Numba compiles twice as fast, the same results

try:  # property tests draw the same examples in every run (a fresh CI clone has no example database)
    from hypothesis import settings

    settings.register_profile("adcompiler", derandomize=True, database=None)
    settings.load_profile("adcompiler")
except ImportError:
    pass

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
if TESTS_DIR not in sys.path:
    sys.path.insert(0, TESTS_DIR)


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run the tests marked slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
