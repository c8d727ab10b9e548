"""Array adjoints whose other operand is a number keep no operand for its shape (no unbroadcast),
and stay right: each gradient against autograd, with its shape and dtype, float32 included."""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import adcompiler
from tests import array_adjoint_funcs as A


def _on_autograd(fn):
    import types

    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp}, fn.__name__)


RNG = np.random.default_rng(3)
CASES = {
    "springs": (A.springs, (RNG.normal(size=(3, 4)), 0.3)),
    "mixed": (A.mixed, (RNG.normal(size=(2, 3)), 1.7, np.array(0.4))),
    "mixed_float32": (A.mixed, (RNG.normal(size=(2, 3)).astype(np.float32), 1.7, np.array(0.4))),
    "broadcast_rows": (A.broadcast_rows, (RNG.normal(size=(3, 2)), RNG.normal(size=(1, 2)))),
}


@pytest.mark.parametrize("name", CASES)
def test_gradient_matches_autograd(name):
    fn, args = CASES[name]
    f = adcompiler.differentiate(fn)
    got = f.grad(*args)
    for i, g in enumerate(got):
        want = autograd.grad(_on_autograd(fn), i)(*args)
        assert np.shape(g) == np.shape(args[i]), (i, g)
        assert isinstance(g, np.ndarray) if isinstance(args[i], np.ndarray) else isinstance(g, float), (i, g)
        if isinstance(args[i], np.ndarray):
            assert g.dtype == args[i].dtype
        np.testing.assert_allclose(g, want, rtol=2e-5 if name.endswith("32") else 1e-11)


def test_numbers_need_no_unbroadcast():
    f = adcompiler.differentiate(A.springs)
    f.grad(*CASES["springs"][1])
    text = f.source("grad")
    body = text[text.index("def springs_grad") :]
    assert "unbroadcast(STEP *" not in body and "unbroadcast(-K" not in body, body
    pushed = body[body.index("tape.append(") :].split("\n")[0]
    # the products (-K * P, STEP * A, ...) are read only for their shapes, their arrays': not kept (six before);
    # A and P too, kept as their shapes (modes.shape_kept: A = -K * P - damping * V as the shape P and V broadcast to)
    assert pushed == "tape.append((V_2, shape_like(P_2, V_2), shape_like(P_2)))", pushed
