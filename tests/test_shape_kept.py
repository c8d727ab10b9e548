"""Arrays the adjoint reads only for their shapes are kept as ``shape_like(x)`` (modes.shape_kept, issue 35,
GradBench ode): on a loop's tape and among a called function's residuals.  Values against central
differences on both targets (the stand-ins must carry the shapes unbroadcast sums down to); the code
and the memory a call keeps (a step of rk4 kept about sixteen arrays of the state's length, now five)."""

import re
import tracemalloc

import numpy as np
import pytest

import adcompiler
from oracle import central_grad
from shared import BACKENDS
import shape_kept_funcs as F

RNG = np.random.default_rng(35)

CELLS = (RNG.normal(size=8) * 0.5, RNG.normal(size=8) * 0.5, RNG.normal(size=4), 3)
CASES = [
    (F.cells, CELLS, 0),
    (F.cells, CELLS, 1),
    (F.cells, CELLS, 2),
    (F.rk4_last, (RNG.random(70), 3), 0),
    (F.rk4_last, (RNG.random(5), 2), 0),  # small arrays: the python target keeps them as they are
    (F.broadcast_steps, (RNG.normal(size=(3, 80)), RNG.normal(size=80), 2), 0),
    (F.broadcast_steps, (RNG.normal(size=(3, 80)), RNG.normal(size=80), 2), 1),
    (F.broadcast_steps, (RNG.normal(size=(3, 80)), RNG.normal(size=(1, 80)), 3), 1),
    (F.sum_rows, (RNG.normal(size=(5, 80)), RNG.normal(size=(1, 80)), 2), 0),
    (F.sum_rows, (RNG.normal(size=(5, 80)), RNG.normal(size=(1, 80)), 2), 1),
    (F.sum_rows, (RNG.normal(size=(5, 80)), RNG.normal(size=(5, 80)), 2), 1),
]


@pytest.mark.parametrize("backend", BACKENDS)  # (Numba: the shapes rows of tests/test_numba_agrees.py by default)
@pytest.mark.parametrize("fn, args, k", CASES)
def test_gradient(fn, args, k, backend):
    """Each gradient against central differences, python and numba."""
    if backend == "numba":
        pytest.importorskip("numba")
    names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    got = adcompiler.differentiate(fn, wrt=(names[k],), backend=backend).grad(*args)
    want = central_grad(fn, args, k)
    assert np.asarray(got).shape == np.shape(args[k]) and np.allclose(got, want, rtol=1e-5, atol=1e-7)


def test_code_keeps_shapes():
    """rk4's tape keeps the stages as shape_like and each sum of them as the shape they broadcast to
    (shape_like(k1, k2, k3, k4)), so the update is one line again, as the user wrote it (one loop under
    Numba); rhs's residuals keep the joined result and the product (as the shape of its factors) as
    shape_like, its argument y itself; broadcast_steps keeps c's; sum_rows keeps u = p + q as the shape
    of w and b, the arrays p and q have the shapes of."""
    d = adcompiler.differentiate(F.rk4_last, wrt=("x",))
    d.grad(RNG.random(70), 2)
    code = str(d.source("reverse"))
    for kept in ("shape_like(k1)", "shape_like(k4)", "shape_like(k1, k2, k3, k4)", "shape_like(t8)"):
        assert kept in code, code
    assert "shape_like(y)" not in code and "y = y_2 + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)\n" in code, code
    assert "np.concatenate([t2, t4 * t6], axis=0)" in code and "shape_like(t4, t6)" in code, code
    code = str(adcompiler.differentiate(F.broadcast_steps, wrt=("b",)).source("reverse"))
    assert "shape_like(c)" in code, code
    d = adcompiler.differentiate(F.sum_rows, wrt=("w", "b"))
    d.grad(*CASES[-2][1])
    assert "shape_like(w, b)" in str(d.source("reverse")), d.source("reverse")


@pytest.mark.parametrize("backend", BACKENDS)
def test_parameters_read_for_their_shapes_on_numba(backend):
    """cell's gates reach the adjoint only as the shape its slices' cotangents are added into (scatter_add's
    array): kept as the shape of what they are made of, on both targets.  Its parameter x reaches it only as a
    piece of the join whose cotangent is cut up: the python target keeps the caller's array (no cost), the
    Numba target its shape, as each array a residual holds costs reference counts there (cell written in
    place in the loop there, ``Options.inline_looped_calls``: the loop's tape holds them)."""
    if backend == "numba":
        pytest.importorskip("numba")
    d = adcompiler.differentiate(F.cells, wrt=("weight", "bias", "x"), backend=backend)
    args = CELLS
    got = d.grad(*args)
    for k, g in enumerate(got):
        assert np.allclose(g, central_grad(F.cells, args, k), rtol=1e-5, atol=1e-8)
    code = str(d.source("reverse"))  # (under Numba, cell is written in place in the loop: its names renamed)
    assert re.search(r"shape_like\(t1(_\d+)?, weight, bias\)", code), code
    assert bool(re.search(r"shape_like\(x(_\d+)?\)", code)) == (backend == "numba"), code


def test_memory_a_call_keeps():
    """The peak memory of rk4's gradient (python) at n = 2000, s = 40: under six arrays of the state's
    length a step (sixteen before: 10.1 MB, now 3.2 MB)."""
    d = adcompiler.differentiate(F.rk4_last, wrt=("x",))
    x, s = RNG.random(2000), 40
    d.grad(x, s)
    tracemalloc.start()
    try:
        d.grad(x, s)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 6 * x.nbytes * s, peak


@pytest.mark.slow  # (the stand-in's code is the python target's, checked by default)
def test_numba_stand_in_makes_no_array():
    """Under Numba, shape_like makes no array (a broadcast of a constant zero): rk4's gradient makes 35
    arrays a step (38 keeping the arrays themselves: the sums of the update are one array now)."""
    pytest.importorskip("numba")
    import numba
    from numba.core.runtime import _nrt_python, rtsys

    grad = adcompiler.differentiate(F.rk4_last, wrt=("x",), backend="numba")
    x = RNG.random(100)
    grad.grad(x, 2)
    _nrt_python.memsys_enable_stats()
    counts = []
    for s in (2, 12):
        before = rtsys.get_allocation_stats().alloc
        grad.grad(x, s)
        counts.append(rtsys.get_allocation_stats().alloc - before)
    assert (counts[1] - counts[0]) / 10 <= 35, counts
    assert numba  # (imported for its runtime's statistics)


def test_arrays_any():
    """arrays="any" (array-api-strict): shape_like keeps the array, with others broadcast to their shape."""
    xp = pytest.importorskip("array_api_strict")
    w, b, s = CASES[-2][1]
    got = adcompiler.differentiate(F.sum_rows, wrt=("w", "b"), arrays="any").grad(xp.asarray(w), xp.asarray(b), s)
    for k in (0, 1):
        assert np.allclose(np.asarray(got[k]), central_grad(F.sum_rows, (w, b, s), k), rtol=1e-5, atol=1e-7)


def test_hessian_over_code_keeping_several_shapes():
    """Forward mode over the reverse code, which keeps ``shape_like(k1, k2, k3, k4)`` (several names, read for a
    shape): the Hessian of rk4's last entry against central differences of its gradient (the activity
    analysis took shape_like for a one-argument helper until 2026-11-29)."""
    x = np.linspace(0.3, 0.9, 4)
    code = adcompiler.differentiate(F.rk4_last, wrt=("x",)).source("reverse")
    assert any(line.count(",") >= 1 and "shape_like(" in line for line in code.splitlines())
    h = adcompiler.hessian(F.rk4_last, argnums=0)(x, 2)
    grad = adcompiler.grad(F.rk4_last, argnums=0)
    want = np.stack([central_grad(lambda v: grad(v, 2)[k], (x,), 0) for k in range(4)])
    np.testing.assert_allclose(h, want, rtol=1e-5, atol=1e-7)


def _stages_program(rng) -> str:
    """A Runge-Kutta-like loop of random stages: each stage the right-hand side at ``y`` plus a random sum
    of earlier stages, the update a random sum of them all (sums of several arrays read only for their
    shapes: what ``shape_like(k1, k2, ...)`` keeps), ending in a random reduction."""
    n = int(rng.integers(1, 5))
    lines = ["def f(x, s):", "    h = 1.0 / s", "    y = np.zeros(len(x))", "    for _ in range(s):"]
    for k in range(1, n + 1):
        earlier = " + ".join(f"{rng.uniform(0.1, 0.9):.2f} * k{j}" for j in range(1, k) if rng.random() < 0.8)
        lines.append(f"        k{k} = rhs(x, y{' + h * (' + earlier + ')' if earlier else ''})")
    update = " + ".join(f"{rng.uniform(0.1, 2.0):.2f} * k{j}" for j in range(1, n + 1))
    lines.append(f"        y = y + h * ({update})")
    lines.append("    return " + rng.choice(["y[-1]", "np.sum(y * y)", "y[-1] * y[0]"]))
    return "import numpy as np\nfrom shape_kept_funcs import rhs\n\n\n" + "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", [0, 1, 2, *(pytest.param(s, marks=pytest.mark.slow) for s in range(3, 15))])
def test_generated_stages_gradient_and_hessian(seed, tmp_path):
    """A generator of the programs shape_like serves (the Hessian over such code failed until 2026-11-29): each
    program's gradient against central differences, and its Hessian against differences of the gradient."""
    from adcompiler.testing.fuzz.check import load_module

    rng = np.random.default_rng(seed)
    source = _stages_program(rng)
    f = load_module(source, str(tmp_path), f"stages{seed}").f
    x, s = rng.uniform(0.2, 0.9, 4), int(rng.integers(1, 4))
    grad = adcompiler.grad(f, argnums=0)
    np.testing.assert_allclose(grad(x, s), central_grad(f, (x, s), 0), rtol=1e-6, atol=1e-8, err_msg=source)
    want = np.stack([central_grad(lambda v: grad(v, s)[k], (x,), 0) for k in range(4)])
    np.testing.assert_allclose(adcompiler.hessian(f, argnums=0)(x, s), want, rtol=1e-5, atol=1e-7, err_msg=source)
