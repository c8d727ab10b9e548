"""The checks of code holding short vectors as numbers under Numba (``lower.small_arrays``), shared by
``test_rows_as_numbers`` and ``test_vectors_as_numbers``."""

import re

import numpy as np
import pytest

import adcompiler
from oracle import central_grad


def agree(fn, args, wrt, seed=0, held=True, rtol=1e-11):
    """The Numba gradient against the python target's (to ``rtol``), central differences on every argument
    differentiated, its jvp against the gradient, and ``d.value``; ``held``: whether some vector must be held
    as numbers (the anf then names a number ``..._at0``) or none may (None: either)."""
    d = adcompiler.differentiate(fn, wrt=wrt, backend="numba")
    python = adcompiler.differentiate(fn, wrt=wrt)
    got, want = d.grad(*args), python.grad(*args)
    got, want = (got, want) if len(wrt) > 1 else ((got,), (want,))
    positions = [fn.__code__.co_varnames.index(w) for w in wrt]
    for g, w, k in zip(got, want, positions):
        assert np.shape(g) == np.shape(args[k]) and np.asarray(g).dtype == np.float64
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12)
        np.testing.assert_allclose(g, central_grad(fn, args, k), rtol=1e-5, atol=1e-6)
    rng = np.random.default_rng(seed)
    tangents = tuple(rng.normal(size=np.shape(args[k])) if np.ndim(args[k]) else rng.normal() for k in positions)
    value, t = d.jvp(tuple(args), tangents)
    assert value == pytest.approx(fn(*args), rel=1e-11, abs=1e-12)
    assert t == pytest.approx(sum(np.sum(g * v) for g, v in zip(got, tangents)), rel=1e-9, abs=1e-10)
    assert d.value(*args) == pytest.approx(fn(*args), rel=1e-11, abs=1e-12)
    if held is not None:
        assert ("_at0 = " in d.source("anf")) == held, d.source("anf")
    return d


def refused_alike(fn, args) -> bool:
    """Whether the python target refuses ``fn`` (a change in place another name would see), the Numba target
    then refusing it with the same message."""
    try:
        adcompiler.differentiate(fn).grad(*args)
    except adcompiler.UnsupportedSyntaxError as refused:
        with pytest.raises(adcompiler.UnsupportedSyntaxError) as also:
            adcompiler.differentiate(fn, backend="numba").grad(*args)
        assert str(also.value) == str(refused)
        return True
    return False


def renamed(expr: str, old: str, new: str) -> str:
    """``expr`` with the name ``old`` written ``new``."""
    return re.sub(rf"\b{old}\b", new, expr)
