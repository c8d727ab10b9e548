"""The derivative code of a vector norm that is one number (GradBench's particle takes two in each Euler
step, inside the objective): the guard against a zero norm is ``z if z else 1.0`` on the number, not
``np.where`` (a 0-d array, about 5 us a call), and the sum of ``np.asarray(x) * dx`` is the array's
``.sum()``.  References: central differences, and the value 0 at the origin (the convention kept)."""

import numpy as np
import pytest

import adcompiler


def inverse_distance(x, c):
    return 1.0 / np.linalg.norm(x - c) + np.linalg.norm(x)


def norms_along_rows(x):
    return np.sum(np.linalg.norm(x, axis=1))


def _central(f, args, i, t, h=1e-6):
    plus = list(args)
    minus = list(args)
    plus[i], minus[i] = args[i] + h * t, args[i] - h * t
    return (f(*plus) - f(*minus)) / (2 * h)


def test_the_guard_of_one_number_is_a_conditional_expression():
    d = adcompiler.differentiate(inverse_distance, wrt="x")
    x, c, t = np.array([0.3, -1.2, 2.0]), np.array([10.0, 0.5, 1.0]), np.array([1.0, -0.5, 0.25])
    d.jvp((x, c), (t,))
    for stage in ("forward", "grad"):
        code = d.source(stage)
        assert "np.where" not in code and "if t" in code, code
    assert "np.sum(" not in d.source("forward")  # (np.asarray(x) * dx).sum()


def test_along_an_axis_the_guard_stays_elementwise():
    d = adcompiler.differentiate(norms_along_rows)
    x = np.array([[0.0, 0.0], [3.0, 4.0]])
    d.grad(x)
    assert "np.where" in d.source("grad")
    np.testing.assert_allclose(d.grad(x), [[0.0, 0.0], [0.6, 0.8]], rtol=1e-15)  # the origin's row: 0


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_norm_derivatives_against_central_differences(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    d = adcompiler.differentiate(inverse_distance, wrt="x", backend=backend)
    x, c, t = np.array([0.3, -1.2, 2.0]), np.array([10.0, 0.5, 1.0]), np.array([1.0, -0.5, 0.25])
    value, tangent = d.jvp((x, c), (t,))
    assert value == pytest.approx(inverse_distance(x, c), rel=1e-14)
    assert tangent == pytest.approx(_central(inverse_distance, (x, c), 0, t), rel=1e-8)
    g = d.grad(x, c)
    assert np.dot(g, t) == pytest.approx(tangent, rel=1e-13)  # <J^T 1, t> = J t
    origin = np.zeros(3)  # |x| at 0: its derivative taken as 0, the other term's as usual
    expected = -(origin - c) / np.linalg.norm(origin - c) ** 3
    np.testing.assert_allclose(d.grad(origin, c), expected, rtol=1e-14)
    assert d.jvp((origin, c), (t,))[1] == pytest.approx(np.dot(expected, t), rel=1e-14)


def test_numba_code_takes_the_norm_of_a_vector_by_a_loop_as_numpy_computes_it():
    """Under backend="numba" ``np.linalg.norm(x)`` is ``vector_norm(x)`` (targets.numba.reductions): a loop
    for a vector of float64 (Numba's own norm scales against overflow, two to three times the time of the
    loop on a short vector), Numba's norm for anything else; each the number NumPy gives."""
    numba = pytest.importorskip("numba")
    from adcompiler.targets.numba.live import vector_norm

    @numba.njit
    def norm(x):
        return vector_norm(x)

    rng = np.random.default_rng(7)
    for x in (
        np.zeros(3),
        np.array([3.0, 4.0]),
        rng.normal(size=17),
        rng.normal(size=(4, 3)),
        rng.normal(size=2)[::-1],
    ):
        assert norm(x) == pytest.approx(np.linalg.norm(x), rel=1e-15, abs=0)
    assert norm(np.ones(4, dtype=np.float32)) == pytest.approx(2.0, rel=1e-7)  # (float32: Numba's norm)
    d = adcompiler.differentiate(inverse_distance, wrt="x", backend="numba")
    x, c = np.array([0.3, -1.2, 2.0, 0.7, -0.4]), np.array([10.0, 0.5, 1.0, 2.0, 3.0])  # (five: not held as numbers)
    d.grad(x, c)
    compiled = next(iter(d._built.compiled_for.values()))["grad"].compiled
    with open(compiled.py_func.__code__.co_filename) as fh:  # (the module written for Numba's cache)
        assert "vector_norm(" in fh.read()
