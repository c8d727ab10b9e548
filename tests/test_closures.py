"""Closures and nested functions (issue 18): local functions reading the enclosing function's
variables (their derivatives included) and functions a factory returns, reading what it captured as
constants.  Both modes against central differences and the dot-product identity (check_both_modes),
the gradient against autograd (which differentiates closures itself), and second order (Hessian,
forward over reverse) against central differences of the gradient."""

import types

import numpy as np
import pytest

import adcompiler
import closure_funcs as F
from adcompiler.testing.oracle import check_both_modes, check_second_order, leaves

XS = [0.7, -1.3, 2.1, 0.4]
RNG = np.random.default_rng(3)
W1, B1, W2, X3 = RNG.normal(size=(4, 3)), RNG.normal(size=4), RNG.normal(size=(2, 4)), RNG.normal(size=3)
A3 = RNG.normal(size=(3, 3))
DATA, TARGETS = RNG.normal(size=(5, 3)), RNG.normal(size=5)

CASES = [
    (F.nested_reads_active, (0.7, 1.3)),
    (F.named_lambda, (0.7, -1.3)),
    (F.local_function_fills_a_list, ([0.3, -1.2, 0.8], 0.7)),
    (F.local_functions_passed_to_helpers, (0.7, 1.3)),
    (F.nested_with_control_flow, (XS, 1.5)),
    (F.nested_in_loop, (XS, 0.6)),
    (F.key_of_local_function, (XS, 0.5)),
    (F.local_calls_local, (0.7, 1.3)),
    (F.nested_twice, (0.7, 1.3)),
    (F.mlp, (W1, B1, W2, X3)),
    (F.captured_array, (A3, X3)),
    (F.quad_through_helper, (A3, X3)),
    (F.make_loss(DATA, TARGETS), (X3, 0.3)),
    (F.make_scaled(1.7, [0.1, -0.4, 0.9]), (0.8,)),
    (F.make_regularised(DATA[:, :3], 0.3), (X3,)),
    (F.make_indexed(2), (XS,)),
    (F.reads_module_list, (0.7,)),
    (F.make_with_activation(F.softplus, 0.8), (0.7,)),
    (F.make_with_activation(F.softplus, 0.8), (0.9,)),
    (F.comprehension_scope, (0.7,)),
]


def _id(case):
    return case[0].__name__


def _plain(cases):
    """The cases without their second-order marks."""
    return [tuple(c.values) if hasattr(c, "values") else c for c in cases]


@pytest.mark.parametrize("f, args", _plain(CASES), ids=[_id(c) for c in _plain(CASES)])
def test_both_modes_against_differences(f, args):
    check_both_modes(f, args)


def autograd_twin(f):
    """The same code with ``np`` as autograd.numpy (its closures, and those of its local functions, too)."""
    anp = pytest.importorskip("autograd.numpy")
    g = dict(f.__globals__, np=anp)
    return types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)


@pytest.mark.parametrize("f, args", _plain(CASES), ids=[_id(c) for c in _plain(CASES)])
def test_against_autograd(f, args):
    ag = pytest.importorskip("autograd")
    twin = autograd_twin(f)
    expected = [ag.grad(twin, k)(*args) for k in range(len(args))]
    got = adcompiler.differentiate(f).grad(*args)
    got = got if len(args) > 1 else (got,)
    np.testing.assert_allclose(leaves(got), leaves(expected), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("f, args", CASES, ids=[_id(c) for c in _plain(CASES)])
def test_second_order_against_differences_of_the_gradient(f, args):
    """The Hessian of each parameter against central differences of the gradient."""
    check_second_order(f, args)


def test_a_local_function_is_lifted_with_what_it_reads_first():
    """The generated code calls ``g`` with the enclosing variables it reads, then its own argument."""
    text = str(adcompiler.differentiate(F.nested_reads_active).source("reverse"))
    assert "def g_forward_sweep(a, x, t):" in text, text


def test_a_factory_function_reads_its_captured_values_by_name():
    text = str(adcompiler.differentiate(F.make_loss(DATA, TARGETS)).source("reverse"))
    assert "data @ w" in text and "targets" in text, text


def test_a_changed_captured_value_is_read_when_the_code_runs():
    f, set_k = F.make_counter_in_cell()
    d = adcompiler.differentiate(f)
    assert d.grad(1.5) == 6.0 and d.jvp((1.5,), (1.0,)) == (4.5, 6.0)
    set_k(3.0)
    assert d.grad(1.5) == 9.0 and d.jvp((1.5,), (1.0,)) == (6.75, 9.0)
    assert adcompiler.hessian_matrix(f)(1.5) == 6.0


def test_a_captured_integer_or_array_changed_in_kind_builds_the_code_again():
    pick = F.make_indexed(2)
    d = adcompiler.differentiate(pick)
    assert d.grad([1.0, 2.0, 3.0]) == [1.0, 0.0, 6.0]
    pick.__closure__[0].cell_contents = 1  # the cell the code read its index from
    assert d.grad([1.0, 2.0, 3.0]) == [1.0, 4.0, 0.0]
    loss = F.make_loss(DATA, TARGETS)
    d = adcompiler.differentiate(loss, wrt="w")
    first = d.grad(X3, 0.3)
    loss.__closure__[0].cell_contents = DATA[0]  # a vector now: data @ w is a number
    np.testing.assert_allclose(d.grad(X3, 0.3), adcompiler_twin_grad(loss, X3, 0.3), rtol=1e-12)
    assert first.shape == (3,)


def adcompiler_twin_grad(f, w, b):
    ag = pytest.importorskip("autograd")
    return ag.grad(autograd_twin(f), 0)(w, b)


@pytest.mark.parametrize("f, args", [(F.nested_in_loop, (XS, 0.6)), (F.make_loss(DATA, TARGETS), (X3, 0.3))])
def test_written_out_both_modes_agree(f, args):
    """Forward over the closure's variables, jvp against vjp: <u, J v> == <J^T u, v> at random u, v."""
    check_both_modes(f, args, seed=5)


NESTED_FILE = """
import math


def f(x, y):
    a = x * y

    def g(t):
        return t * a + math.sin(x)

    square = lambda u: u * u  # noqa: E731
    return g(x) + g(y) * y + square(a)
"""


def test_adc_compile_writes_a_module_with_local_functions_lifted(tmp_path):
    """The written module runs without adcompiler; its gradient against central differences of the file's f."""
    from shared import adc

    src, out = tmp_path / "nested.py", tmp_path / "nested_ad.py"
    src.write_text(NESTED_FILE)
    done = adc("compile", src, "-o", out)
    assert done.returncode == 0, done.stderr
    space: dict = {}
    exec(compile(out.read_text(), str(out), "exec"), space)
    primal: dict = {}
    exec(compile(NESTED_FILE, str(src), "exec"), primal)
    value, grad = space["f_reverse"](0.7, 1.3)
    h = 1e-6
    fd = [(primal["f"](0.7 + h, 1.3) - primal["f"](0.7 - h, 1.3)) / (2 * h)]
    fd += [(primal["f"](0.7, 1.3 + h) - primal["f"](0.7, 1.3 - h)) / (2 * h)]
    assert value == primal["f"](0.7, 1.3)
    np.testing.assert_allclose(grad, fd, rtol=1e-7)


def test_one_decorator_on_two_functions_differentiated_together():
    """Each wrapper calls its own fn (a cell per wrapper, called, not read by name): both in one derivative, and
    ``adc compile --import`` writing both (it stopped the whole file: "read different variables named fn")."""
    assert adcompiler.grad(F.both_doubled)(1.5) == pytest.approx(4 * 1.5 + 6 * 1.5**2, rel=1e-14)
    assert adcompiler.grad(F.both_scaled_bound)(1.5) == pytest.approx(2 * 2 * 1.5 + 3 * 3 * 1.5**2, rel=1e-14)


def test_two_closures_reading_different_values_by_one_name_each_read_their_own():
    """A decorator factory's k, 2.0 in one wrapper and 3.0 in the other, both in one derivative: the code reads
    each cell by a name of its own (k, k_1); it raised a ValueError from inside the loader ("read different
    variables named k"), and adc compile stopped the file.  Against the derivative written out, and the
    variables' values changed afterwards (the code reads each cell as it runs)."""
    expected = lambda x, p, q: 2 * p * x + 3 * q * x**2  # noqa: E731
    d = adcompiler.differentiate(F.both_scaled)
    assert d.grad(1.5) == pytest.approx(expected(1.5, 2.0, 3.0), rel=1e-14)
    assert d.jvp((1.5,), (1.0,))[1] == pytest.approx(expected(1.5, 2.0, 3.0), rel=1e-14)
    source = d.source("grad")
    assert "k * " in source and "k_1 * " in source, source
    cells = {
        c.cell_contents: c
        for f in (F.square_by_two, F.cube_by_three)
        for c in f.__closure__
        if c.cell_contents in (2.0, 3.0)
    }
    cells[2.0].cell_contents, cells[3.0].cell_contents = 5.0, 7.0
    try:
        assert d.grad(1.5) == pytest.approx(expected(1.5, 5.0, 7.0), rel=1e-14)
    finally:
        cells[2.0].cell_contents, cells[3.0].cell_contents = 2.0, 3.0


def test_adc_compile_import_writes_one_decorator_on_two_functions(tmp_path):
    import subprocess
    import sys

    from shared import adc

    source = (
        "def twice(fn):\n    def wrapper(x):\n        return 2.0 * fn(x)\n    return wrapper\n\n\n"
        "def scaled(k):\n    def deco(fn):\n        def wrapper(x):\n            return k * fn(x)\n"
        "        return wrapper\n    return deco\n\n\n"
        "@twice\ndef a(x):\n    return x * x\n\n\n@twice\ndef b(x):\n    return x * x * x\n\n\n"
        "@scaled(3.0)\ndef c(x):\n    return x * x\n\n\n@scaled(5.0)\ndef e(x):\n    return x * x * x\n\n\n"
        "def both(x):\n    return c(x) + e(x)\n"
    )
    (tmp_path / "twodeco.py").write_text(source)
    proc = adc("compile", "twodeco.py", "--import", "-o", "twodeco_ad.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    code = "import twodeco_ad as m; print(m.a_reverse(1.5)[1][0], m.b_reverse(1.5)[1][0], m.both_reverse(1.5)[1][0])"
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert [float(v) for v in run.stdout.split()] == [4 * 1.5, 6 * 1.5**2, 3 * 2 * 1.5 + 5 * 3 * 1.5**2]
