"""Reductions that select entries, of views in other layouts, under backend="numba": ``np.min(A.T)``'s tangent
failed to compile ("incompatible shape for array": the mask ``x == z`` of a transposed x is in Fortran order,
which Numba's reshape refuses; found by the numpy fuzzer on Numba, seed 1600, program 17).  Each selection
record of each view, over all of it and along an axis, in both modes against the python target."""

import importlib.util

import numpy as np
import pytest

import adcompiler

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="needs numba")

SELECTIONS = ("min", "max", "amin", "amax", "ptp", "prod")
VIEWS = ("A.T", "A[:, ::2]", "np.transpose(A)[::-1]")


def _function(tmp_path, call: str):
    path = tmp_path / "selected.py"
    path.write_text(f"import numpy as np\n\n\ndef f(A):\n    return np.sum(np.sin({call}) * 1.5)\n")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace["f"]


@pytest.mark.parametrize("name", SELECTIONS)
@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("axis", ("", ", axis=0"))
def test_a_selection_of_a_view_in_another_layout(tmp_path, name, view, axis):
    f = _function(tmp_path, f"np.{name}({view}{axis})")
    a = np.random.default_rng(len(name) + len(view)).standard_normal((4, 3))
    v = np.arange(12.0).reshape(4, 3) / 7.0
    python, numba = adcompiler.differentiate(f), adcompiler.differentiate(f, backend="numba")
    np.testing.assert_allclose(numba.grad(a), python.grad(a), rtol=1e-12, atol=1e-14)
    assert numba.jvp((a,), (v,))[1] == pytest.approx(python.jvp((a,), (v,))[1], rel=1e-12, abs=1e-14)
