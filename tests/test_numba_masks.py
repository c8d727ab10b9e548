"""Writes through boolean masks under backend="numba" (``y[x > 0.3] = 0.0``, ``y[y < 0] *= 3.0``): every one
was refused, a mask of two or more axes with Numba's own assertion ("AssertionError: ", at the def line) and
one of one axis for want of a ``take_and_clear`` of masks; float32 adjoints grown to float64 inside
``scatter_add`` refused to type (found by a red-team run).  A generator of masked writes (the mask of the
argument or of the array written, a number or the masked entries of an array written, ``=``, ``*=``, ``+=``,
one to three axes, float64 and float32), each checked on Numba against the python target in both modes,
and the python target against central differences."""

import importlib.util
import random

import numpy as np
import pytest

import adcompiler

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="needs numba")

STARTS = ("X.copy()", "X * 1.0", "np.zeros_like(X)", "np.sin(X)")
MASKS = ("X > 0.3", "X < 0.0", "np.abs(X) > 0.5", "Y > 0.1")
OPS = ("=", "*=", "+=")
TAILS = ("Y * X", "np.sin(Y) * c", "Y ** 2")
SHAPES = ((7,), (4, 3), (2, 3, 2))


def program(rng: random.Random) -> str:
    """A function ``f(X, c)`` writing into a copy of X through one or two boolean masks."""
    lines = ["import numpy as np", "", "", "def f(X, c):", f"    Y = {rng.choice(STARTS)}"]
    for _ in range(rng.randint(1, 2)):
        mask, op = rng.choice(MASKS), rng.choice(OPS)
        value = rng.choice(("0.0", "c", f"{rng.choice(('X', 'Y'))}[{mask}] * c", f"X[{mask}] ** 2"))
        lines.append(f"    Y[{mask}] {op} {value}")
    lines.append(f"    return np.sum({rng.choice(TAILS)})")
    return "\n".join(lines) + "\n"


def _load(tmp_path, source: str, k: int):
    path = tmp_path / f"masked_{k}.py"
    path.write_text(source)
    namespace: dict = {}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace["f"]


@pytest.mark.parametrize("seed", range(10))
def test_masked_writes_on_numba_agree_with_python_and_differences(seed, tmp_path):
    rng = random.Random(seed)
    source = program(rng)
    f = _load(tmp_path, source, seed)
    shape = rng.choice(SHAPES)
    dtype = np.float32 if seed % 3 == 2 else np.float64
    g = np.random.default_rng(seed)
    X = g.standard_normal(shape).astype(dtype)
    X[np.abs(np.abs(X) - 0.3) < 0.05] += 0.2  # (no entry near a mask's edge: differences see one branch)
    X[np.abs(X - 0.5) < 0.05] += 0.2
    V, c = g.standard_normal(shape).astype(dtype), 0.7
    python = adcompiler.differentiate(f, wrt=("X",))
    numba = adcompiler.differentiate(f, backend="numba", wrt=("X",))
    rtol = 1e-5 if dtype is np.float32 else 1e-12
    gp, gn = python.grad(X, c), numba.grad(X, c)
    assert gn.dtype == gp.dtype == dtype and gn.shape == gp.shape == shape, source
    np.testing.assert_allclose(gn, gp, rtol=rtol, atol=rtol, err_msg=source)
    tp, tn = python.jvp((X, c), (V,))[1], numba.jvp((X, c), (V,))[1]
    assert tn == pytest.approx(tp, rel=rtol, abs=rtol), source
    assert float(np.sum(gp * V)) == pytest.approx(float(tp), rel=10 * rtol, abs=10 * rtol), source
    if dtype is np.float64:
        h = 1e-6
        central = (f(X + h * V, c) - f(X - h * V, c)) / (2 * h)
        assert float(tp) == pytest.approx(central, rel=1e-6, abs=1e-6), source


def test_a_mask_of_another_shape_is_numpy_s_index_error_on_both_targets(tmp_path):
    source = "import numpy as np\n\n\ndef f(X):\n    Y = X.copy()\n    Y[X.T > 0.0] = 0.0\n    return np.sum(Y)\n"
    f = _load(tmp_path, source, 0)
    for backend in ("python", "numba"):
        with pytest.raises(IndexError):
            adcompiler.differentiate(f, backend=backend).grad(np.ones((3, 2)))
