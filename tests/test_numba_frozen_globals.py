"""Under ``backend="numba"`` the values of the module's numbers, arrays and lists the code reads are compiled
into it (Numba freezes globals), where the python target reads them as the code runs.  A global changed since
the code was compiled (a float rebound, an array rebound to one of the same kind, or changed in place, a list's
number) builds the code again, so that the derivative is always that of the function as it runs now (it gave
the old values' gradient before, while the value was the new one's).  Checked against the python target and
central differences after each change."""

import numpy as np
import pytest

import adcompiler
from shared import written

pytest.importorskip("numba")

MODULE = """
import numpy as np

W = np.array([[1.0, 2.0], [3.0, 4.0]])
S = 1.0
OFFSETS = [0.5, -0.25]


def f(x):
    return np.sum(np.tanh(W @ x)) * S + OFFSETS[0] * x[0] + OFFSETS[1] * x[1]
"""


def _central(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def test_a_global_changed_since_compiling_builds_again(tmp_path):
    ns = written(tmp_path, "frozen_globals_mod", MODULE)
    f, x = ns["f"], np.array([0.1, 0.2])
    d = adcompiler.differentiate(f, backend="numba")
    changes = [
        lambda: ns["W"].__imul__(2.0),  # in place
        lambda: ns.__setitem__("S", 3.0),  # a float rebound
        lambda: ns.__setitem__("W", np.array([[5.0, 2.0], [3.0, 4.0]])),  # an array of the same kind
        lambda: ns["OFFSETS"].__setitem__(1, 2.0),  # a list's number
    ]
    np.testing.assert_allclose(d.grad(x), _central(f, x), rtol=1e-6)
    for change in changes:
        change()
        expected = adcompiler.grad(f)(x)
        np.testing.assert_allclose(expected, _central(f, x), rtol=1e-6)
        np.testing.assert_allclose(d.grad(x), expected, rtol=1e-12)
        assert d(x) == pytest.approx(f(x), rel=1e-12)
        _, tangent = d.jvp((x,), (np.array([1.0, -1.0]),))
        assert tangent == pytest.approx(expected @ np.array([1.0, -1.0]), rel=1e-10)


def test_unchanged_globals_keep_the_compiled_code(tmp_path):
    ns = written(tmp_path, "frozen_globals_kept", MODULE)
    d = adcompiler.differentiate(ns["f"], backend="numba")
    x = np.array([0.1, 0.2])
    d.grad(x)
    built = d._built.programs.copy()
    ns["W"][...] = ns["W"].copy()  # the same numbers written again
    ns["S"] = 1.0  # an equal float
    d.grad(x)
    assert d._built.programs == built


RECORDS = """
import numpy as np


class Layer:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return self.W @ x


class Holder:
    def __init__(self):
        self.inner = Layer(np.array([[1.0, 2.0], [3.0, 4.0]]))


HOLDER = Holder()
PARAMS = {"W": np.array([[0.5, -1.0], [2.0, 0.25]]), "scale": 2.0}


def f(x):
    return np.sum(np.tanh(HOLDER.inner.W @ x)) + np.sum(HOLDER.inner(x) ** 2) + PARAMS["scale"] * np.sum(PARAMS["W"] @ x)
"""


def test_dicts_and_objects_of_the_module_under_numba(tmp_path):
    """``PARAMS["W"]`` and ``HOLDER.inner.W`` read, and ``HOLDER.inner(x)`` called, under Numba (which types no
    dict or object of the module: "Untyped global name" before): each item a constant of the code, followed
    when it changes in place."""
    ns = written(tmp_path, "frozen_records_mod", RECORDS)
    f, x = ns["f"], np.array([0.1, 0.2])
    d = adcompiler.differentiate(f, backend="numba")
    for change in (
        lambda: None,
        lambda: ns["HOLDER"].inner.W.__imul__(-0.5),
        lambda: ns["PARAMS"].__setitem__("scale", 3.0),
    ):
        change()
        expected = adcompiler.grad(f)(x)
        np.testing.assert_allclose(expected, _central(f, x), rtol=1e-6)
        np.testing.assert_allclose(d.grad(x), expected, rtol=1e-12)
