"""backend="numba" as a home for derivatives (issue 36, items 3 and 4).

Item 3: ``d.compiled(mode)`` is the Numba dispatcher of a derivative, which other ``@numba.njit`` code
calls with the signatures of the module ``adc compile --target numba`` writes; checked against the
analytic gradient of a least-squares loss and against the python backend.  Skipped without Numba."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from adcompiler import differentiate  # noqa: E402


def loss(w, x, y):
    r = x @ w - y
    return np.sum(r * r) / y.shape[0]


def analytic(w, x, y):  # the gradient of loss in w, by hand
    return 2.0 * x.T @ (x @ w - y) / y.shape[0]


def data():
    x = np.random.default_rng(1).normal(size=(30, 3))
    return x, x @ np.array([1.0, -2.0, 0.5]) + 0.01 * np.arange(30)


def test_njit_descent_calls_the_compiled_reverse():
    x, y = data()
    d = differentiate(loss, wrt="w", backend="numba")
    reverse = d.compiled("reverse", np.zeros(3), x, y)
    assert isinstance(reverse, numba.core.registry.CPUDispatcher)

    @numba.njit
    def descend(w, x, y, steps, rate):
        for _ in range(steps):
            value, (g,) = reverse(w, x, y)  # ct=1.0 by default
            w = w - rate * g
        return w

    @numba.njit
    def one(w, x, y):
        return reverse(w, x, y, 2.0)

    w0 = np.array([0.3, 0.1, -0.2])
    value, (g,) = one(w0, x, y)
    python = differentiate(loss, wrt="w")
    assert value == pytest.approx(loss(w0, x, y), rel=1e-12)
    np.testing.assert_allclose(g, 2.0 * python.grad(w0, x, y), rtol=1e-12)
    np.testing.assert_allclose(g, 2.0 * analytic(w0, x, y), rtol=1e-12)
    w = descend(np.zeros(3), x, y, 2000, 0.1)
    expected = np.linalg.lstsq(x, y, rcond=None)[0]  # where the descent must end
    np.testing.assert_allclose(w, expected, rtol=1e-8)
    np.testing.assert_allclose(python.grad(w, x, y), 0.0, atol=1e-10)


def test_njit_calls_forward_and_grad():
    x, y = data()
    d = differentiate(loss, backend="numba")  # every parameter: cotangents of w, x and y
    w0, v = np.array([0.3, 0.1, -0.2]), np.array([1.0, -1.0, 2.0])
    d.grad(w0, x, y)  # a call: compiled() without arguments gives the code for its signature
    forward, grad = d.compiled("forward"), d.compiled("grad")
    values = d.compiled("value_and_grad")

    @numba.njit
    def both(w, x, y, v):
        zx, zy = np.zeros_like(x), np.zeros_like(y)
        return forward(w, x, y, v, zx, zy), grad(w, x, y), values(w, x, y)

    (value, tangent), (gw, gx, gy), (value2, (gw2, _, _)) = both(w0, x, y, v)
    assert value == value2 == pytest.approx(loss(w0, x, y), rel=1e-12)
    assert tangent == pytest.approx(analytic(w0, x, y) @ v, rel=1e-12)
    np.testing.assert_allclose(gw, analytic(w0, x, y), rtol=1e-12)
    np.testing.assert_array_equal(gw, gw2)
    python = differentiate(loss).grad(w0, x, y)
    for got, want in zip((gw, gx, gy), python):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_compiled_before_any_call_and_its_refusals():
    def cube(a, b):
        return a * a * b + b

    d = differentiate(cube, backend="numba")
    reverse = d.compiled("reverse")  # before any call: numbers, as the code's use of a and b says

    @numba.njit
    def use(a, b):
        return reverse(a, b)

    value, (da, db) = use(2.0, 3.0)
    assert (value, da, db) == (15.0, 12.0, 5.0)
    with pytest.raises(ValueError, match="choose one of"):
        d.compiled("jvp")
    with pytest.raises(ValueError, match='backend="numba"'):
        differentiate(cube).compiled("reverse")


# ---- item 4: compiled once per machine -----------------------------------------------------------

PROGRAM = """
import json, os, sys
import numpy as np
from adcompiler import differentiate

SCALE = float(os.environ.get("SCALE", "1.0"))  # a global the compiled code freezes


def loss(w, x, y):
    r = x @ w - y
    return SCALE * np.sum(r * r) / y.shape[0]


x = np.linspace(0.0, 1.0, 12).reshape(4, 3)
y = np.array([1.0, 2.0, 0.5, -1.0])
d = differentiate(loss, wrt="w", backend="numba")
g = d.grad(np.array([0.5, -0.25, 1.0]), x, y)
dispatcher = d.compiled("grad")
stats = dispatcher.stats
print(json.dumps({"grad": g.tolist(), "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values()), "file": dispatcher.py_func.__code__.co_filename}))
"""


def run_program(tmp_path, cache, **env):
    import json
    import os
    import subprocess
    import sys

    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    environment = {**os.environ, "PYTHONPATH": root, "ADCOMPILER_CACHE_DIR": str(cache), **env}
    environment["NUMBA_OPT"] = "3"  # (at 0, LLVM leaves loads of dispatchers' addresses Numba will not cache)
    done = subprocess.run([sys.executable, str(script)], env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_is_served_from_the_cache(tmp_path):
    cache = tmp_path / "cache"
    first = run_program(tmp_path, cache)
    second = run_program(tmp_path, cache)
    w, x, y = np.array([0.5, -0.25, 1.0]), np.linspace(0.0, 1.0, 12).reshape(4, 3), np.array([1.0, 2.0, 0.5, -1.0])
    np.testing.assert_allclose(first["grad"], analytic(w, x, y), rtol=1e-12)
    assert second["grad"] == first["grad"]
    assert (first["hits"], second["misses"]) == (0, 0) and first["misses"] > 0 and second["hits"] > 0
    assert first["file"] == second["file"] and first["file"].startswith(str(cache / "numba"))
    written = {p.name for p in (cache / "numba").iterdir()} - {"__pycache__"}
    assert written == {first["file"].rsplit("/", 1)[1]}  # one module, named by its hash
    assert (cache / "numba" / "__pycache__").is_dir()
    kept = [p.suffix for p in (cache / "numba" / "__pycache__").iterdir()]
    assert ".nbi" in kept and ".nbc" in kept  # Numba's index and machine code, beside the file
    assert not list(tmp_path.glob("__pycache__"))  # nothing written beside the user's program


def test_a_changed_global_the_code_freezes_is_a_new_file(tmp_path, monkeypatch):
    """The program's SCALE changed: a new file, compiled again, the new number (in this process, each value
    a fresh load of the program's module: what a second process finds is the test above)."""
    import importlib.util
    import sys

    cache = tmp_path / "cache"
    monkeypatch.setenv("ADCOMPILER_CACHE_DIR", str(cache))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # (the program's own __pycache__: not adcompiler's)
    (tmp_path / "program.py").write_text(PROGRAM.split("\nx = np.linspace")[0])  # loss, not the calls
    w, x, y = np.array([0.5, -0.25, 1.0]), np.linspace(0.0, 1.0, 12).reshape(4, 3), np.array([1.0, 2.0, 0.5, -1.0])
    runs = []
    for k, scale in enumerate(("1.0", "2.0")):
        monkeypatch.setenv("SCALE", scale)
        spec = importlib.util.spec_from_file_location(f"adc_scaled_program_{k}", tmp_path / "program.py")
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, spec.name, module)  # (a module code is cached for is importable by name)
        spec.loader.exec_module(module)
        d = differentiate(module.loss, wrt="w", backend="numba")
        g = d.grad(w, x, y)
        dispatcher = d.compiled("grad")
        runs.append((g, dispatcher.py_func.__code__.co_filename, sum(dispatcher.stats.cache_hits.values())))
    (first, first_file, _), (second, second_file, hits) = runs
    np.testing.assert_allclose(first, analytic(w, x, y), rtol=1e-12)
    np.testing.assert_allclose(second, 2.0 * first, rtol=1e-12)  # compiled again: not the first file's code
    assert first_file != second_file and hits == 0
    assert {p.name for p in (cache / "numba").glob("adc_*.py")} == {
        first_file.rsplit("/", 1)[1],
        second_file.rsplit("/", 1)[1],
    }


def test_no_cache_where_the_directory_cannot_be_made(tmp_path, monkeypatch):
    """In this process (what a second process finds is the test above): the program's module loaded
    afresh for each directory, so that nothing of one compilation serves the other."""
    import importlib.util
    import sys

    blocked = tmp_path / "a file"
    blocked.write_text("")
    (tmp_path / "program.py").write_text(PROGRAM.split("\nx = np.linspace")[0])  # loss, not the calls
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # (the program's own __pycache__: not adcompiler's)
    w, x, y = np.array([0.5, -0.25, 1.0]), np.linspace(0.0, 1.0, 12).reshape(4, 3), np.array([1.0, 2.0, 0.5, -1.0])
    for k, cache in enumerate((blocked / "cache", "")):  # under a file; empty: no cache asked for
        monkeypatch.setenv("ADCOMPILER_CACHE_DIR", str(cache))
        spec = importlib.util.spec_from_file_location(f"adc_no_cache_program_{k}", tmp_path / "program.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        d = differentiate(module.loss, wrt="w", backend="numba")
        np.testing.assert_allclose(d.grad(w, x, y), analytic(w, x, y), rtol=1e-12)
        dispatcher = d.compiled("grad")
        assert dispatcher.py_func.__code__.co_filename.startswith("<adcompiler")
        assert sum(dispatcher.stats.cache_hits.values()) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a file", "program.py"]


@pytest.mark.slow  # (two compiles of one source)
def test_one_source_in_two_modules_is_cached_apart(tmp_path, monkeypatch):
    """Code cached for a module is loaded only by a module of that name: Numba's cached environment
    imports it by name (a module another process names otherwise, a fuzzer's, crashed the load)."""
    import importlib.util
    import sys

    monkeypatch.setenv("ADCOMPILER_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "shared_source.py"
    source.write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x) * x)\n")
    grads = []
    for name in ("adc_cache_module_a", "adc_cache_module_b"):
        spec = importlib.util.spec_from_file_location(name, source)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        grads.append(differentiate(module.f, backend="numba").grad(np.array([0.5, 1.5])))
        del sys.modules[name]
    written = sorted(p.name for p in (tmp_path / "cache" / "numba").glob("adc_*.py"))
    assert len(written) == 2, written
    x = np.array([0.5, 1.5])
    for g in grads:
        np.testing.assert_allclose(g, np.cos(x) * x + np.sin(x), rtol=1e-12)


DETERMINANT = """
import json, sys
import numpy as np
sys.path.insert(0, {tests!r})
import numba_funcs as F
from adcompiler import differentiate

A = np.array([[2.0, 0.5, -1.0, 0.3], [0.1, 1.5, 0.2, -0.4], [0.7, -0.3, 1.2, 0.5], [0.2, 0.8, -0.6, 1.1]])
print(json.dumps(differentiate(F.det_by_minors, backend="numba").grad(A).tolist()))
"""


@pytest.mark.slow  # (two processes compiling det: the cache's path is checked by default above)
def test_a_recursion_over_index_lists_loads_from_the_cache(tmp_path):
    """GradBench's det in a second process: its recursive sweeps loaded from Numba's cache (compiled for
    a list and for an array at once, the load crashed the process: joins of built lists stay lists)."""
    import json
    import os
    import subprocess
    import sys

    tests = os.path.dirname(os.path.abspath(__file__))
    script = tmp_path / "determinant.py"
    script.write_text(DETERMINANT.format(tests=tests))
    environment = {**os.environ, "PYTHONPATH": os.path.dirname(tests), "ADCOMPILER_CACHE_DIR": str(tmp_path / "c")}
    grads = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, str(script)], env=environment, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr[-2000:]
        grads.append(json.loads(done.stdout.strip().splitlines()[-1]))
    A = np.array([[2.0, 0.5, -1.0, 0.3], [0.1, 1.5, 0.2, -0.4], [0.7, -0.3, 1.2, 0.5], [0.2, 0.8, -0.6, 1.1]])
    np.testing.assert_allclose(grads[1], np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-12)
    assert grads[0] == grads[1]


def test_the_cache_file_is_named_by_the_helpers_too(tmp_path, monkeypatch):
    """Compiled code inlines the helpers' overloads, whose stubs' fingerprints do not show them: another
    helper text, another file (an old file compiled against the old overload crashed the process)."""
    from adcompiler.targets.numba import cache

    source = "import numpy\n\n\ndef f(x):\n    return x\n"
    first = cache.place(str(tmp_path), source, {})
    monkeypatch.setattr(cache, "_HELPERS_MARK", "another set of helpers")
    second = cache.place(str(tmp_path), source, {})
    assert first and second and first != second
