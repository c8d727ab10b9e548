"""The fast entries of ``f.grad`` and ``f.value_and_grad`` take NumPy's float64 scalars (``w[j]`` of a
float array: what GradBench ba's tool passes per observation) as the floats they are: the signature
describes them alike, so the same generated code runs, without the checking method's binding (which
cost about 20 us a call)."""

import numpy as np
import pytest

import adcompiler
from adcompiler.api.differentiable import Differentiable
import jacobian_plan_funcs as F


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_float64_takes_the_fast_entry(backend, monkeypatch):
    if backend == "numba":
        pytest.importorskip("numba")
    d = adcompiler.differentiate(F.weight_error, backend=backend)
    assert d.grad(0.3) == pytest.approx(-0.6) and d.value_and_grad(0.3) == pytest.approx((0.91, -0.6))
    bound = []
    real = Differentiable._bound
    monkeypatch.setattr(Differentiable, "_bound", lambda self, *a, **k: bound.append(1) or real(self, *a, **k))
    w = np.array([0.3, -1.5])
    assert d.grad(w[0]) == d.grad(0.3) and d.grad(w[1]) == 3.0
    assert d.value_and_grad(w[1]) == (1.0 - 2.25, 3.0)
    assert bound == []


def test_other_float_subclasses_take_the_checking_method():
    class Tagged(float):  # an object of its own class: the checking method reads it, and says it is refused
        pass

    d = adcompiler.differentiate(F.weight_error)
    d.grad(0.3)
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match="Tagged"):
        d.grad(Tagged(0.3))
