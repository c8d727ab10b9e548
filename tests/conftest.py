"""The suite's settings (how to write tests for it: docs/testing.md).

- The helper modules in tests/ (oracle, shared, e2e_funcs, ...) are importable by name.
- ``--runslow`` runs the tests marked ``slow`` (the long cross products: the systematic rule test's whole
  grid, the rest of each CI fuzz campaign, the second shapes of the Numba table, the other modes of a check
  one mode already makes by default), deselected by default.
- Under pytest-xdist (``-n auto``) the tests that compile with Numba share one worker (a test whose file or
  name says numba), so that Numba compiles its NumPy and runtime-helper overloads once, and each derivative
  ``shared.derivative`` gives once; the other tests are spread over the workers one by one.
- Numba compiles without LLVM's optimisations (``NUMBA_OPT=0``): about half the compile time, the same
  results; hypothesis draws the same examples in every run.
- Compiled derivatives are kept in a temporary directory of the run (``ADCOMPILER_CACHE_DIR``), not in ~/.cache.
- After collection the cycle collector runs less often and no longer scans what collection made
  (``pytest_collection_finish``); the tests run from a frame with room on Python's frame stack
  (``pytest_runtestloop``), and a worker ends without freeing its heap (``pytest_unconfigure``).
"""

import atexit
import gc
import importlib.util
import os
import shutil
import sys
import tempfile

import pytest

os.environ.setdefault("NUMBA_OPT", "0")  # backend="numba" tests: Numba compiles twice as fast, the same results
if "ADCOMPILER_CACHE_DIR" not in os.environ:  # backend="numba" keeps compiled code here, not in ~/.cache
    os.environ["ADCOMPILER_CACHE_DIR"] = tempfile.mkdtemp(prefix="adcompiler-tests-")
    atexit.register(shutil.rmtree, os.environ["ADCOMPILER_CACHE_DIR"], True)

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


def compiles_with_numba(nodeid: str) -> bool:
    """Whether a test belongs to the Numba worker: its file's name or its own name says numba."""
    path, _, name = nodeid.partition("::")
    return "numba" in os.path.basename(path) or "numba" in name


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under ``-n N`` (xdist's ``--dist load``): the tests that compile with Numba are one unit of work, sent
    to one worker, the others one unit each.  (xdist's own ``loadgroup`` renames the tests of a group, which
    pytest 9's test ids no longer allow.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class NumbaTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "numba" if compiles_with_numba(nodeid) else nodeid

        def mark_test_complete(self, node, item_index: int, duration: float = 0) -> None:
            """xdist's, then a unit whose tests are all done is forgotten: xdist counts a worker's pending
            tests over every unit it was ever given, after each test (quadratic in the number of tests,
            seconds of the controller's time for this suite)."""
            super().mark_test_complete(node, item_index, duration)
            scope = self._split_scope(self.registered_collections[node][item_index])
            work = self.assigned_work.get(node, {})
            if scope in work and all(work[scope].values()):
                del work[scope]

    return NumbaTogether(config, log)


def pytest_collection_finish(session):
    """The objects made so far (modules, the collected tests) are moved out of the collector's sight
    (``gc.freeze``) and it runs less often: the suite makes few cycles, and Numba's compiler allocates
    millions of objects, which the default thresholds scan again and again (an eighth of a Numba test's
    time).  A test that checks the collector sets what it needs."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


_LOOPING = []  # (set while the test loop below runs: the hook called again runs pytest's and xdist's own)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """The tests run from a frame with room on Python's frame stack (``targets.numba.room``): Numba's
    compiler, recursing deeply, no longer maps and unmaps a chunk of it at each crossing of a chunk's end
    (Python 3.11's frames: about a tenth of the Numba worker's time, as system time and page faults)."""
    if _LOOPING:
        return None
    from adcompiler.targets.numba.room import with_room

    _LOOPING.append(True)
    try:
        return with_room(session.config.hook.pytest_runtestloop, session=session)
    finally:
        _LOOPING.pop()


def pytest_unconfigure(config):
    """An xdist worker ends without freeing its heap (``os._exit`` once its own exit handlers are the
    last to run): by then its results are with the controller, which waits for the process to end, and
    tearing down millions of Numba's objects one by one took seconds of every run."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        atexit.register(_end_now)


def _end_now() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def pytest_collection_modifyitems(config, items):
    """Without ``--runslow`` the tests marked slow are deselected (pytest counts them as "deselected"): not
    run, and not sent to a worker and reported back as skipped one by one."""
    if config.getoption("--runslow"):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
        config.hook.pytest_deselected(items=slow)


_EXTRAS = ("numba", "array_api_compat", "array_api_strict", "dask")  # the optional extras' modules


def _missing_extra(exc: ImportError) -> str | None:
    """The optional extra whose absence ``exc`` reports (adcompiler's "needs Numba: pip install ...", or
    Python's "No module named 'numba'"), when that module is indeed not installed; None otherwise."""
    text = str(exc).lower().replace("-", "_")
    for module in _EXTRAS:
        named = exc.name == module or module in text or module == "numba" and "needs numba" in text
        if named and importlib.util.find_spec(module) is None:
            return module
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A test that needs an optional extra that is not installed is skipped, saying which: the suite
    passes after ``pip install -e ".[test]"`` alone (README), whichever test reaches the extra first."""
    try:
        return (yield)
    except ImportError as exc:
        missing = _missing_extra(exc)
        if missing is None:
            raise
        pytest.skip(f'needs {missing}, which is not installed (pip install -e ".[test,numba,arrays]")')
