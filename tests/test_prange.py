"""``prange`` loops (issue 36, the paper's Section 12): a parallel primal, tangent and adjoint loop under
``backend="numba"``, the same numbers in order under ``backend="python"``, and the loops whose iterations
are not independent refused at their line.

Oracles: central differences of the primal (the gradient), forward mode against reverse mode
(``<u, J v> == <J^T u, v>``), the python backend (which runs the loop in order and is checked against
differences itself) for the Numba one, and Numba on one thread for Numba on all of them.  Parallel and
serial sums differ only in the order the threads' partial sums are added: relative 1e-12.

The three programs of ``adcompiler.testing.parallel_programs`` (the paper's particles, a mixture's
likelihood over points, a Monte Carlo price over paths) and the generator of ``testing.prange_gen``
(shared reads, rows written, totals added into, inner loops and branches; and each kind of loop that
must be refused).  Numba's compilation of particles and gmm (about 25 s each) and the rest of the
generated campaign run with ``--runslow``.
"""

import importlib.util
import math
import os
import random
import re

import numpy as np
import pytest

import adcompiler
from adcompiler import UnsupportedSyntaxError, prange
from adcompiler.testing import parallel_programs as P
from adcompiler.testing import prange_gen
from adcompiler.testing.fuzz.check import load_module
from adcompiler.testing.oracle import fd_jacobian


def _floats(args):
    return [k for k, a in enumerate(args) if isinstance(a, float) or isinstance(a, np.ndarray)]


def _gradient_by_differences(f, args):
    """Central differences of the scalar ``f`` in each float argument, shaped as the argument."""
    row = fd_jacobian(f, args, _floats(args))[0]
    out, k = [], 0
    for i in _floats(args):
        size = int(np.size(args[i]))
        out.append(row[k : k + size].reshape(np.shape(args[i])))
        k += size
    return out


def _worst(got, expected, what) -> float:
    """The largest difference of the arrays ``got`` from ``expected``, relative to each one's scale
    (its largest entry, at least 1); their shapes must agree."""
    worst = 0.0
    for g, e in zip(got, expected, strict=True):
        assert np.shape(g) == np.shape(e), what
        scale = max(1.0, float(np.max(np.abs(e))))
        worst = max(worst, float(np.max(np.abs(np.asarray(g, float) - np.asarray(e, float)))) / scale)
    return worst


def _dot_gap(d, args, seed=0, cts=None) -> float:
    """|<u, J v> - <J^T u, v>| relative to its size, for a scalar output: J v by jvp, J^T u by vjp (u = 1),
    or ``cts`` if given (the gradient)."""
    rng = np.random.default_rng(seed)
    tangents = tuple(
        rng.standard_normal(np.shape(a)) if isinstance(a, np.ndarray) else float(rng.standard_normal()) for a in args
    )
    _, jv = d.jvp(args, tangents)
    cts = d.vjp(args, 1.0)[1] if cts is None else cts
    jtu = sum(float(np.sum(np.asarray(c) * np.asarray(t))) for c, t in zip(cts, tangents))
    return abs(float(jv) - jtu) / max(1.0, abs(jtu))


PROGRAMS = sorted(P.PROGRAMS)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_on_python_against_differences(name):
    f, args = P.PROGRAMS[name], P.inputs(name, 6)
    d = adcompiler.differentiate(f)
    value, cts = d.vjp(args, 1.0)
    assert value == pytest.approx(f(*args), rel=1e-12)
    assert _worst(cts, _gradient_by_differences(f, args), name) < 1e-6
    assert _dot_gap(d, args) < 1e-10


def _numba_against_python(f, args, threads_too=True, entry="vjp") -> list:
    """The differences to check: numba (all threads) from python, the dot test's gap, and numba on one
    thread from numba on all; each cotangent's shape and dtype its primal's.  ``entry``: "vjp" (the
    value with the cotangents), or "grad" (the gradient code, the value then the jvp's)."""
    numba = pytest.importorskip("numba")
    d, p = adcompiler.differentiate(f, backend="numba"), adcompiler.differentiate(f)

    def cotangents(d):
        return d.vjp(args, 1.0) if entry == "vjp" else (d.jvp(args, tuple(map(np.zeros_like, args)))[0], d.grad(*args))

    (value, cts), (expected_value, expected) = cotangents(d), cotangents(p)
    assert value == pytest.approx(expected_value, rel=1e-12) and value == pytest.approx(f(*args), rel=1e-12)
    for ct, a in zip(cts, args):
        assert np.shape(ct) == np.shape(a) and np.asarray(ct).dtype == np.float64
    gaps = [_worst(cts, expected, "numba against python"), _dot_gap(d, args, cts=cts)]
    if threads_too:
        before = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            serial = cotangents(d)[1]
        finally:
            numba.set_num_threads(before)
        gaps.append(_worst(serial, cts, "numba on one thread against numba on all"))
    return gaps


def test_monte_carlo_on_numba_against_python_and_one_thread():
    assert max(_numba_against_python(P.monte_carlo, P.inputs("monte_carlo", 40))) < 1e-12


def _paths_every_second(x, w, c):
    """A prange over every second row from the first, each running a recurrence of numbers (a float left for
    the adjoint, an int that is not), then a branch on it."""
    total = 0.0
    for i in prange(1, x.shape[0], 2):
        level = w[0]
        steps = 0
        for t in range(x.shape[1]):
            level = level * 0.95 + c * x[i, t]
            steps += 1
        if level > 0.0:
            total += math.sin(level) * w[1] + steps
        else:
            total += level * level
    return total


@pytest.mark.parametrize("f", [P.monte_carlo, _paths_every_second], ids=lambda f: f.__name__)
def test_numba_adjoint_loop_reads_an_inner_loops_numbers_from_slots(f):
    """A loop inside a prange iteration whose adjoint needs nothing from inside it (monte_carlo's path) runs
    once: the primal loop keeps the numbers it leaves in a slot per iteration (``log_s_slots[i] = log_s``),
    and the adjoint loop reads them instead of running the path again (modes.parallel.kept_in_slots); the
    same numbers as the python target's, with one thread and all, and as central differences."""
    numba = pytest.importorskip("numba")
    args = (
        P.inputs("monte_carlo", 40)
        if f is P.monte_carlo
        else (np.linspace(-1.0, 1.0, 35).reshape(7, 5), np.array([0.4, 1.3]), 0.8)
    )
    d = adcompiler.differentiate(f, backend="numba")
    got = d.grad(*args)  # (the source of the signature called)
    source = d.source("grad")
    assert len(re.findall(r"^ +for t in (reversed\()?range\(", source, re.M)) == 2, source  # the path, its adjoint
    assert re.search(r"^ +\w+_slots\[[^]]*\] = \w+$", source, re.M), source
    assert re.search(r"^ +\w+ = \w+_slots\[", source, re.M), source
    assert max(_numba_against_python(f, args)) < 1e-12
    if f is _paths_every_second:  # ((i - 1) // 2: the slot of each iteration its own)
        for g, e in zip(got, _gradient_by_differences(f, args), strict=True):
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
    assert numba.get_num_threads() >= 1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["particles", "gmm"])
def test_program_on_numba_against_python_and_one_thread(name):
    assert max(_numba_against_python(P.PROGRAMS[name], P.inputs(name, 30))) < 1e-12


def test_numba_prange_is_what_the_loop_is_marked_with():
    """``numba.prange`` and ``adcompiler.prange`` alike: the generated Numba code has a parallel loop."""
    pytest.importorskip("numba")
    d = adcompiler.differentiate(P.monte_carlo, backend="numba")
    assert "prange" in P.monte_carlo.__code__.co_names
    assert d.jvp(P.inputs("monte_carlo", 5), (1.0, 0.0, 0.0, 0.0, np.zeros((5, 50))))[1] > 0


def _summed(x, c):
    """A total of the iterations, returned as it is: its adjoint reads nothing the loop leaves."""
    total = 0.0
    for i in prange(x.shape[0]):
        total += math.sin(x[i] * c) * x[i]
    return total


def _summed_squared(x, c):
    """The same total, squared: its adjoint reads the total."""
    total = 0.0
    for i in prange(x.shape[0]):
        total += math.sin(x[i] * c) * x[i]
    return total * total


def _shared_and_after(x, w):
    """w read by every iteration and again after the loop: its cotangent summed from each thread's part
    and added to the one after the loop (its accumulator started once, by the loop's setting-up)."""
    total = 0.0
    for i in prange(x.shape[0]):
        total += np.sum(np.sin(x[i] * w))
    return total + np.sum(w * w)


def _made_in_each(x, w):
    """An array each iteration makes and writes into, summed into a total returned as it is."""
    total = 0.0
    for i in prange(x.shape[0]):
        q = np.zeros(w.shape[0])
        for j in range(w.shape[0]):
            q[j] = w[j] * x[i]
        total += np.sum(np.sin(q))
    return total


def _rows_written(x, w):
    """Rows of an array made before the loop written by the iterations (read after it)."""
    y = np.zeros(x.shape[0])
    for i in prange(x.shape[0]):
        y[i] = math.sin(x[i] * w[0])
    return np.sum(y)


@pytest.mark.parametrize(
    "f, loops",
    [
        (_summed, 1),
        (_made_in_each, 1),
        (_shared_and_after, 1),
        pytest.param(_summed_squared, 2, marks=pytest.mark.slow),  # (a Numba compile each: the dropped ones
        pytest.param(_rows_written, 2, marks=pytest.mark.slow),  # by default, the kept ones with --runslow)
    ],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_a_numba_gradient_runs_no_primal_loop_whose_values_nothing_reads(f, loops):
    """The adjoint loop computes each iteration again, so the gradient of a total returned as it is runs the
    loop once (the primal loop is dropped, modes.parallel + optimize.tidy), also where an iteration writes
    into an array it makes; the gradient of the total squared, whose adjoint reads it, and of a loop writing
    rows of an array made before it run the primal loop too, and so does a vjp (it returns the value)."""
    pytest.importorskip("numba")
    x, c, w = np.linspace(-1.0, 2.0, 9), 0.7, np.array([0.3, -1.1, 2.0])
    args = {_made_in_each: (x, w), _rows_written: (x, w), _shared_and_after: (x.reshape(3, 3), w)}.get(f, (x, c))
    d = adcompiler.differentiate(f, backend="numba")
    got, expected = d.grad(*args), adcompiler.differentiate(f).grad(*args)
    for g, e, by_differences in zip(got, expected, _gradient_by_differences(f, args), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-12)
        assert np.shape(g) == np.shape(by_differences)
        np.testing.assert_allclose(g, by_differences, rtol=1e-6, atol=1e-7)
    assert len(re.findall(r"^ +for \w+ in prange\(", d.source("grad"), re.M)) == loops
    assert _started_twice(d.source("grad")) == []  # (the loop's setting-up starts the accumulators itself)
    if loops == 2:  # (the vjp's code is compiled here only: its primal loop stays wherever the grad's does)
        assert d.value_and_grad(*args)[0] == pytest.approx(f(*args), rel=1e-12)
        assert len(re.findall(r"^ +for \w+ in prange\(", d.source("reverse"), re.M)) == 2


def _started_twice(source: str) -> list:
    """The names ``source`` binds to ``zeros_like(...)`` or ``0.0`` and binds again before anything reads them."""
    lines, dead = source.splitlines(), []
    for k, line in enumerate(lines):
        started = re.match(r"\s*(\w+) = (zeros_like\(.*\)|0\.0)$", line)
        if started:
            name = started.group(1)
            after = next((x for x in lines[k + 1 :] if re.search(rf"\b{name}\b", x)), "")
            again = re.match(rf"\s*{name} = (.*)", after)
            if again and not re.search(rf"\b{name}\b", again.group(1)):
                dead.append(name)
    return dead


def test_each_numba_chunk_function_is_compiled_once(tmp_path):
    """Numba types a prange loop's variable int64 where it types the loop and uint64 where it lowers it: the
    chunk functions (targets.numba.parallel) are handed the chunk's number as an int64, so each is compiled
    for one signature, not two (a chunk of particles' adjoint loop takes seconds to compile)."""
    import gc

    numba = pytest.importorskip("numba")
    module = load_module(
        "import math\nfrom adcompiler import prange\n\n\ndef once(x, c):\n    total = 0.0\n"
        "    for i in prange(x.shape[0]):\n        total += math.sin(x[i] * c)\n    return total * total\n",
        str(tmp_path),
        "chunks_once",
    )
    d = adcompiler.differentiate(module.once, backend="numba")
    d.vjp((np.linspace(0.0, 1.0, 5), 0.3), 1.0)
    chunks = [
        o
        for o in gc.get_objects()
        if type(o) is numba.core.registry.CPUDispatcher and o.py_func.__name__.startswith("once_reverse_chunk")
    ]  # (type, not isinstance: among the collector's objects are weak proxies whose objects are gone)
    assert len(chunks) == 2 and all(len(o.signatures) == 1 for o in chunks), [o.signatures for o in chunks]


def test_a_numba_chunk_adds_into_shared_cotangents_in_place(tmp_path):
    """A chunk's partial sum of a shared parameter's cotangent (``W`` read at ``W[j]`` by every iteration)
    starts as zeros of the parameter's shape (``zeros_like``) and each adjoint of a read adds into it
    itself (``scatter_into``: no test for another shape, no array a read); the gradient is the python
    backend's and one thread's."""
    pytest.importorskip("numba")
    module = load_module(
        "import numpy as np\nfrom adcompiler import prange\n\n\ndef rows(W, X):\n    total = 0.0\n"
        "    for i in prange(X.shape[0]):\n        for j in range(W.shape[0]):\n"
        "            total += np.sum(np.tanh(W[j] * X[i])) * W[j, 0]\n    return total\n",
        str(tmp_path),
        "shared_rows",
    )
    W, X = np.random.default_rng(3).normal(size=(3, 4)), np.random.default_rng(4).normal(size=(7, 4))
    d = adcompiler.differentiate(module.rows, backend="numba")
    got = d.grad(W, X)
    want = adcompiler.differentiate(module.rows).grad(W, X)
    for g, w in zip(got, want):
        assert np.allclose(g, w, rtol=1e-12, atol=1e-14)
    code = d._built.compiled_for[next(iter(d._built.compiled_for))]["grad"].compiled.py_func.__globals__
    chunk = next(f for name, f in code.items() if name.startswith("rows_grad_chunk"))
    import inspect

    text = inspect.getsource(chunk.py_func)
    assert re.search(r"^ +d_W\w* = zeros_like\(W\)$", text, re.M), text
    assert re.search(r"d_W\w* = scatter_into\(", text), text
    assert "scatter_add(d_W" not in text, text


# ---- generated loops ---------------------------------------------------------------------------------


def _generated(seed, bad, directory):
    rng = random.Random(seed)
    source, line = prange_gen.program(rng, bad)
    return load_module(source, str(directory), f"prange{seed}"), source, line, prange_gen.inputs(rng)


@pytest.mark.parametrize("seed", range(12))
def test_generated_loop_on_python_against_differences(seed, tmp_path):
    module, source, _, args = _generated(seed, False, tmp_path)
    d = adcompiler.differentiate(module.f)
    _, cts = d.vjp(args, 1.0)
    assert _worst(cts, _gradient_by_differences(module.f, args), source) < 1e-6, source
    assert _dot_gap(d, args, seed) < 1e-10, source


@pytest.mark.parametrize("seed", range(12))
def test_generated_loop_that_races_is_refused_at_its_line(seed, tmp_path):
    module, source, line, args = _generated(seed, True, tmp_path)
    with pytest.raises(UnsupportedSyntaxError) as info:
        adcompiler.grad(module.f, argnums=(0, 1, 2))(*args)
    assert info.value.lineno == line, (source, str(info.value))
    assert "prange" in str(info.value) or "share" in str(info.value)
    assert os.path.basename(info.value.filename) == os.path.basename(module.__file__)


@pytest.mark.parametrize(  # (one generated loop by default, with reductions, private writes and branches: a
    "seed",
    [4, 8] + [pytest.param(s, marks=pytest.mark.slow) for s in (0, 1, 2, 3, 5, 6, 7, 9)],  # long parallel compile
    # each; 6, 8, 9: the loop in a time step's loop)
)
def test_generated_loop_on_numba_against_python(seed, tmp_path):
    """The vjp, or for every second seed the gradient code (where the primal loop goes if what it leaves is
    not read: arrays an iteration makes, totals the adjoint does not read)."""
    module, *_, args = _generated(seed, False, tmp_path)
    entry = "grad" if seed % 2 else "vjp"
    assert max(_numba_against_python(module.f, args, threads_too=seed in (0, 4, 5), entry=entry)) < 1e-12


# ---- what is refused, and where -------------------------------------------------------------------------


REFUSED = {
    "collide": ("y[idx[i]] = x[i] * 2.0", "at an index other than the prange loop's own"),
    "shared": ("s = x[i] * 2.0", "other than adding into it"),
    "product": ("s *= x[i]", "other than adding into it"),
    "neighbour": ("y[i] = y[i - 1] + x[i]", "beyond the iteration's own row"),
    "appends": ("out.append(x[i] * 2.0)", "made before the prange loop"),
}


def _refused_program(kind, tmp_path):
    stmt = REFUSED[kind][0]
    source = (
        "import numpy as np\nfrom adcompiler import prange\n\n\n"
        "def f(x, idx):\n    y = np.zeros(x.shape[0])\n    s = 0.0\n    out = []\n"
        f"    for i in prange(1, x.shape[0]):\n        {stmt}\n"
        "    return np.sum(y) + s + sum(out)\n"
    )
    return load_module(source, str(tmp_path), "refused_" + kind)


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_loop_whose_iterations_are_not_independent_is_refused(kind, tmp_path):
    module = _refused_program(kind, tmp_path)
    with pytest.raises(UnsupportedSyntaxError) as info:
        adcompiler.grad(module.f)(np.linspace(0.1, 0.9, 6), np.arange(6) % 3)
    assert info.value.lineno == 10 and REFUSED[kind][1] in str(info.value), str(info.value)


def test_adc_compile_refuses_a_racing_prange_at_its_line(tmp_path):
    from adcompiler.cli.main import main

    path = tmp_path / "race.py"
    path.write_text(
        "import numpy as np\nfrom adcompiler import prange\n\n\ndef f(x):\n    y = np.zeros(4)\n"
        "    for i in prange(x.shape[0]):\n        y[i % 4] += x[i]\n    return np.sum(y)\n"
    )
    out = tmp_path / "out.py"
    assert main(["compile", str(path), "--function", "f", "-o", str(out)]) != 0
    assert not out.exists()


def test_own_rows_read_and_written_nested_prange_and_a_called_prange_work(tmp_path):
    source = """import numpy as np
from adcompiler import prange


def inner(w, row):
    out = np.zeros(row.shape[0])
    for j in prange(row.shape[0]):
        out[j] = np.tanh(w * row[j])
    return np.sum(out)


def f(w, X):
    y = np.ones((X.shape[0], 2))
    acc = 0.0
    for i in prange(X.shape[0]):
        acc += inner(w, X[i])
        for j in prange(X.shape[1]):
            acc += X[i, j] * w
        y[i] += X[i, :2] * w
        y[i, 0] *= 2.0
    return acc + np.sum(y * y)
"""
    module = load_module(source, str(tmp_path), "nested")
    args = (0.7, np.random.default_rng(3).random((5, 3)))
    d = adcompiler.differentiate(module.f)
    assert _worst(d.vjp(args, 1.0)[1], _gradient_by_differences(module.f, args), "python") < 1e-6
    assert _dot_gap(d, args) < 1e-10


@pytest.mark.slow
def test_numba_prange_derivative_is_served_from_the_cache_in_a_second_process(tmp_path):
    """The chunk and loop functions of a prange derivative are cached with the rest of its module: a
    second process loads them instead of compiling (it finds the cached file and gives the same numbers)."""
    pytest.importorskip("numba")
    import subprocess
    import sys

    code = (
        "import numpy as np, adcompiler as ad\n"
        "from adcompiler.testing import parallel_programs as P\n"
        "args = P.inputs('monte_carlo', 30)\n"
        "d = ad.differentiate(P.monte_carlo, wrt=P.WRT['monte_carlo'], backend='numba')\n"
        "print(repr(d.vjp(args, 1.0)[1]))\n"
    )
    env = dict(os.environ, ADCOMPILER_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NUMBA_OPT", None)  # (at NUMBA_OPT=0 Numba caches no parallel function: "uses dynamic globals")
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr[-2000:] + runs[1].stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout
    cached = [p for p in (tmp_path / "cache").rglob("*") if p.suffix in (".nbi", ".nbc")]
    for kind in ("_reverse-", "_loop", "_chunk"):
        assert any(kind in p.name for p in cached), (kind, cached)


def test_adc_compile_numba_module_has_parallel_chunk_functions(tmp_path):
    """``adc compile --target numba`` writes a prange loop as chunk functions and a loop function
    compiled with parallel=True (targets.numba.parallel): the tangent loop, and reverse mode's primal
    and adjoint loops."""
    pytest.importorskip("numba")
    from adcompiler.cli.main import main

    path = tmp_path / "mc.py"
    path.write_text(
        "import math\nfrom adcompiler import prange\n\n\ndef f(x, c):\n    total = 0.0\n"
        "    for i in prange(x.shape[0]):\n        total += math.sin(x[i] * c)\n    return total\n"
    )
    out = tmp_path / "mc_ad.py"
    assert main(["compile", str(path), "--function", "f", "--target", "numba", "-o", str(out)]) == 0
    text = out.read_text()
    assert text.count("parallel=True") == 3 and "def f_reverse_chunk" in text and "def f_forward_chunk" in text
    assert "prange(" in text and "thread_id" not in text


@pytest.mark.slow  # (a parallel compile in a new process: written modules are checked by default in test_numba_cli)
@pytest.mark.filterwarnings("ignore:Cannot cache")  # (the suite's NUMBA_OPT=0: Numba caches no parallel function)
def test_adc_compile_numba_module_with_arrays_carried_in_an_iteration_runs(tmp_path):
    """The module ``adc compile --target numba`` writes (no argument types known) for a prange loop
    whose iterations carry arrays through an inner loop, as the paper's particles do: its reset
    adjoints are zeros typed from the arrays (``zero_of``; before, Numba could not unify 0.0 with an
    array), and its gradient and tangent agree with central differences."""
    pytest.importorskip("numba")
    from adcompiler.cli.main import main

    source = """import numpy as np
from adcompiler import prange


def f(w, X):
    total = 0.0
    for i in prange(X.shape[0]):
        x = X[i]
        v = x * 0.0
        for t in range(3):
            v = v + w * np.sin(x)
            x = x + 0.1 * v
        total += np.sum(x * x)
    return total
"""
    (tmp_path / "carried.py").write_text(source)
    out = tmp_path / "carried_ad.py"
    assert main(["compile", str(tmp_path / "carried.py"), "--target", "numba", "-o", str(out)]) == 0
    plain = load_module(source, str(tmp_path), "carried")
    spec = importlib.util.spec_from_file_location("carried_ad", out)  # (imported as a user would: cached)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = (0.7, np.random.default_rng(5).random((6, 2)))
    value, grads = module.f_reverse(*args)
    assert value == pytest.approx(plain.f(*args), rel=1e-13)
    assert _worst(grads, _gradient_by_differences(plain.f, args), "numba module") < 1e-6
    tangent = module.f_forward(*args, *grads)[1]
    assert tangent == pytest.approx(sum(np.sum(np.square(g)) for g in grads), rel=1e-10)


@pytest.mark.parametrize(
    "name, args",
    [
        ("squares_each_step", (np.array([1.0, 2.0, 3.0]),)),
        ("updated_in_place", (np.array([1.0, 2.0, 3.0]),)),
        ("a_number_each_step", (np.array([1.0, 2.0, 3.0]), 0.5)),
        ("own_vector_each_iteration", (np.arange(6.0).reshape(3, 2) / 6,)),
    ],
)
def test_a_prange_loop_inside_a_time_step_loop(name, args):
    """Under Numba the parallel adjoint of a prange loop read the last step's values for every step
    (squares_each_step's gradient 4 u0**4 for 4 u0**3, no error): inside another loop its adjoint is the
    serial sweep's now; a vector each iteration makes anew was refused as shared inside a time loop."""
    import prange_steps_funcs as S

    f = getattr(S, name)
    python = adcompiler.differentiate(f).grad(*args)
    want = python if isinstance(python, tuple) else (python,)
    h = 1e-6
    x = args[0]
    moved = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[k] += h
        down[k] -= h
        moved[k] = (f(up, *args[1:]) - f(down, *args[1:])) / (2 * h)
    np.testing.assert_allclose(want[0], moved, rtol=1e-6)
    if importlib.util.find_spec("numba") is not None:
        got = adcompiler.differentiate(f, backend="numba").grad(*args)
        for a, b in zip(want, got if isinstance(got, tuple) else (got,)):
            np.testing.assert_allclose(b, a, rtol=1e-12)
