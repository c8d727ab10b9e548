"""The adjoints of an array's reads added up in one array (optimize/scatters.py, issue 35): the
gradient against autograd, vjp against jvp, float32 kept, and no sum of scattered arrays left."""

import re

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import adcompiler
import scatter_funcs as S


def _autograd_version(fn):
    """The same function on autograd's NumPy (its source, with np bound to autograd.numpy)."""
    import inspect
    import textwrap

    scope = {"np": anp}
    exec(textwrap.dedent(inspect.getsource(fn)), scope)
    return scope[fn.__name__]


RNG = np.random.default_rng(7)
CASES = [
    (S.slices, (RNG.normal(size=6), RNG.normal(size=3)), 0),
    (S.gates, (RNG.normal(size=16),), 0),
    (S.in_a_loop, (RNG.normal(size=6), 4), 0),
    (S.in_a_branch, (RNG.normal(size=3), 1.0), 0),
    (S.in_a_branch, (RNG.normal(size=3), -1.0), 0),
    (S.entries_of_a_matrix, (RNG.normal(size=(2, 2)),), 0),
    (S.read_after, (RNG.normal(size=3),), 0),
    (S.reads_and_a_product, (RNG.normal(size=2), RNG.normal(size=2)), 0),
]


@pytest.mark.parametrize("fn, args, argnum", CASES, ids=lambda c: getattr(c, "__name__", None))
def test_the_gradient_is_autograds(fn, args, argnum):
    d = adcompiler.differentiate(fn, wrt=fn.__code__.co_varnames[argnum])
    want = autograd.grad(_autograd_version(fn), argnum)(*args)
    got = d.grad(*args)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert got.shape == args[argnum].shape and got.dtype == args[argnum].dtype
    assert not np.shares_memory(got, args[argnum])
    # vjp against jvp: <u, J v> == <J^T u, v>
    v = RNG.normal(size=args[argnum].shape)
    value, tangent = d.jvp(args, (v,))
    _, (ct,) = d.vjp(args, 1.0)
    np.testing.assert_allclose(np.sum(ct * v), tangent, rtol=1e-12)


def test_float32_is_kept():
    w = RNG.normal(size=16).astype(np.float32)
    g = adcompiler.differentiate(S.gates).grad(w)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, autograd.grad(_autograd_version(S.gates))(w.astype(float)), rtol=1e-4)


@pytest.mark.parametrize("fn, args", [(S.slices, CASES[0][1]), (S.gates, CASES[1][1])], ids=["slices", "gates"])
def test_no_sum_of_scattered_arrays_is_left(fn, args):
    """Each read's adjoint adds into the one array (scatter_add(d_w_k, ...)), not into a fresh one
    summed after: one array of w's shape made, not one per read plus one per sum."""
    d = adcompiler.differentiate(fn, wrt=fn.__code__.co_varnames[0])
    d.grad(*args)
    for mode in ("grad", "reverse"):
        source = d.source(mode)
        body = source[source.index(f"def {fn.__name__}_{mode}") :]
        fresh = re.findall(r"(\w+) = scatter_add\(0\.0,", body)
        assert len(fresh) == 1, body
        for name in fresh:
            assert not re.search(rf"= \w+ \+ {name}\b|= {name} \+ \w+", body), body


def test_scattered_entries_add_into_a_new_array_made_before_them():
    """d's adjoint is a product (a new array) plus four scattered entries: each scatter_add starts from
    the one before it, the first from the product, and no array of zeros is made for any of them."""
    args = (RNG.normal(size=2), RNG.normal(size=2))
    d = adcompiler.differentiate(S.reads_and_a_product, wrt="c")
    d.grad(*args)
    body = d.source("reverse")
    body = body[body.index("def reads_and_a_product_reverse") :]
    assert not re.search(r"scatter_add\(0\.0, d,", body), body
    assert len(re.findall(r"scatter_add\(d_d", body)) == 4, body
