"""Hessian-vector products of random programs of two vectors (second_order_gen.py): forward over reverse
(``hvp``, jointly in both arguments) against central differences of the gradient, and the Hessian's blocks
against the same.  A red-team generator of this kind found a curvature lost where an entry of a copy is set."""

import importlib.util
import random

import numpy as np
import pytest

import adcompiler
import second_order_gen

PROGRAMS, SEED = 70, 20261202  # (programs 56 and 67 lost a curvature before the fix)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    sources = [second_order_gen.program(random.Random(SEED + k), f"f{k}") for k in range(PROGRAMS)]
    path = tmp_path_factory.mktemp("second_order") / "second_order_programs.py"
    path.write_text(second_order_gen.module(sources))
    spec = importlib.util.spec_from_file_location("second_order_programs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [(getattr(module, f"f{k}"), source) for k, source in enumerate(sources)]


@pytest.mark.parametrize("k", range(PROGRAMS))
def test_hessian_vector_product_against_differences_of_the_gradient(programs, k):
    f, source = programs[k]
    rng = np.random.default_rng(SEED + k)
    x, y, u, v = (rng.normal(size=4) for _ in range(4))
    with np.errstate(all="ignore"):
        if not np.isfinite(f(x, y)):
            pytest.skip("not finite at the point drawn")
    grad = adcompiler.grad(f, argnums=(0, 1))
    h = 1e-5
    plus, minus = grad(x + h * u, y + h * v), grad(x - h * u, y - h * v)
    expected = [(np.asarray(p) - np.asarray(m)) / (2 * h) for p, m in zip(plus, minus)]
    got = adcompiler.hvp(f, argnums=(0, 1))((x, y), (u, v))
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-6, err_msg=source)
    assert got[0] is not got[1]
    H = adcompiler.hessian(f, argnums=(0, 1))(x, y)
    hv = [np.asarray(H[i][0]) @ u + np.asarray(H[i][1]) @ v for i in range(2)]
    for g, e in zip(hv, expected):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-6, err_msg=source)
