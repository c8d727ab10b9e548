"""The public API contract of adcompiler.differentiate."""

import ast
import inspect
import math
import re

import black
import pytest

import adcompiler
import e2e_funcs as F
from oracle import anf_violations, assert_allclose, check_grads, wasteful_terms

STAGES = ("anf", "dup", "forward", "reverse")


@adcompiler.differentiate
def dec_plain(x, y):
    return x * math.sin(y) + y**2


@adcompiler.differentiate(wrt=("x", "y"))
def dec_wrt(x, y):
    return x * math.sin(y) + y**2


@adcompiler.differentiate(wrt=("y",))
def dec_wrt_y(x, y, z=2.0):
    return x * y * z + y**3


@adcompiler.differentiate(wrt=("z", "x"))
def dec_wrt_order(x, y, z):
    return x * y + 3.0 * z * x


@adcompiler.differentiate
def dec_tuple(x, y):
    s = x * y
    return s, x + y, math.exp(x)


@adcompiler.differentiate(wrt=("x",))
def dec_default(x, y=2.0):
    return x * x * y


# ----------------------------------------------------------- decorators


def test_decorator_without_arguments():
    assert_allclose(dec_plain.grad(0.5, 1.2), (math.sin(1.2), 0.5 * math.cos(1.2) + 2.4))


def test_decorator_with_wrt_same_as_default():
    assert_allclose(dec_wrt.grad(0.5, 1.2), dec_plain.grad(0.5, 1.2), rtol=0.0)


def test_call_is_original_function():
    assert (dec_plain(0.5, 1.2), dec_plain(y=1.2, x=0.5), dec_plain(2, 3)) == (
        0.5 * math.sin(1.2) + 1.44,
        0.5 * math.sin(1.2) + 1.44,
        2 * math.sin(3) + 9,
    )


def test_call_with_defaults_unchanged():
    assert (dec_wrt_y(1.0, 2.0), dec_wrt_y(1.0, 2.0, 3.0)) == (12.0, 14.0)


def test_functional_form_without_wrt():
    df = adcompiler.differentiate(F.op_mul)
    assert df.grad(3.0, 5.0) == (5.0, 3.0)


def test_functional_form_with_wrt():
    df = adcompiler.differentiate(F.op_mul, wrt=("x",))
    assert df.grad(3.0, 5.0) == 5.0


def test_functional_form_leaves_original_alone():
    adcompiler.differentiate(F.op_mul)
    assert (F.op_mul(3.0, 5.0), hasattr(F.op_mul, "grad")) == (15.0, False)


# ------------------------------------------------------------- wrt


def test_single_wrt_grad_is_a_float():
    g = dec_wrt_y.grad(1.5, 2.0)
    assert (type(g), g) == (float, pytest.approx(1.5 * 2.0 + 3 * 4.0, rel=1e-14))


def test_several_wrt_grad_is_a_tuple_in_wrt_order():
    # wrt=("z", "x"): d/dz = 3x, d/dx = y + 3z
    assert dec_wrt_order.grad(2.0, 5.0, 7.0) == pytest.approx((6.0, 26.0), rel=1e-14)


def test_wrt_order_in_jvp_tangents():
    # tangents are (tz, tx)
    _, tan = dec_wrt_order.jvp((2.0, 5.0, 7.0), (1.0, 0.0))
    assert tan == pytest.approx(6.0, rel=1e-14)


def test_wrt_order_in_vjp_cotangents():
    _, cts = dec_wrt_order.vjp((2.0, 5.0, 7.0), 2.0)
    assert cts == pytest.approx((12.0, 52.0), rel=1e-14)


def test_wrt_subset_jvp_and_vjp():
    val, tan = dec_wrt_y.jvp((1.5, 2.0, 3.0), (1.0,))
    val2, cts = dec_wrt_y.vjp((1.5, 2.0, 3.0), 1.0)
    assert (val, tan, val2, type(cts), cts) == (
        17.0,
        pytest.approx(16.5, rel=1e-14),
        17.0,
        tuple,
        pytest.approx((16.5,), rel=1e-14),
    )


def test_wrt_subset_check_grads():
    check_grads(dec_wrt_y, (1.5, 2.0, 3.0), wrt=("y",))


def test_default_argument_used_by_grad():
    assert dec_default.grad(3.0) == 12.0


def test_default_argument_used_by_jvp_and_vjp():
    assert (dec_default.jvp((3.0,), (1.0,)), dec_default.vjp((3.0,), 1.0)) == (
        (18.0, 12.0),
        (18.0, (12.0,)),
    )


def test_value_and_grad():
    val, g = dec_plain.value_and_grad(0.5, 1.2)
    assert (val, g) == (dec_plain(0.5, 1.2), dec_plain.grad(0.5, 1.2))


def test_value_and_grad_single_wrt():
    assert dec_default.value_and_grad(3.0, 0.5) == (4.5, 3.0)


# -------------------------------------------------------- tuple outputs


def test_tuple_output_jvp_tangent_is_tuple():
    val, tan = dec_tuple.jvp((0.5, 2.0), (1.0, 0.0))
    expected = (2.0, 1.0, math.exp(0.5))
    assert (type(tan), val, tan) == (
        tuple,
        (1.0, 2.5, math.exp(0.5)),
        pytest.approx(expected, rel=1e-14),
    )


def test_tuple_output_vjp():
    val, cts = dec_tuple.vjp((0.5, 2.0), (1.0, 10.0, 0.0))
    assert (type(cts), val, cts) == (
        tuple,
        (1.0, 2.5, math.exp(0.5)),
        pytest.approx((12.0, 10.5), rel=1e-14),
    )


def test_tuple_output_check_grads():
    check_grads(dec_tuple, (0.5, 2.0))


# ----------------------------------------------------------- int args


def test_int_wrt_argument_grad_raises_type_error():
    """A parameter wrt names is refused an integer (JAX refuses integers as inputs of grad)."""
    with pytest.raises(TypeError, match="integer 2"):
        dec_wrt.grad(2, 1.0)


def test_int_wrt_argument_jvp_raises_type_error():
    with pytest.raises(TypeError, match="integer 2"):
        dec_wrt.jvp((1.0, 2), (1.0, 1.0))


def test_int_wrt_argument_vjp_raises_type_error():
    with pytest.raises(TypeError, match="integer 2"):
        dec_wrt.vjp((2, 1.0), 1.0)


def test_int_argument_is_a_constant_by_default():
    """With wrt left to its default, an argument that is an integer at the call is a constant, as a
    parameter the code reads only as an integer is: the derivative is with respect to the others
    (analytic: d/dy of x sin y + y^2 at x = 2 is 2 cos y + 2 y); its tangent may be left out or be
    None or 0; every parameter an integer is refused."""
    y = 1.0
    expected = 2 * math.cos(y) + 2 * y
    assert dec_plain.grad(2, y) == pytest.approx(expected, rel=1e-14)
    assert dec_plain.value_and_grad(2, y) == pytest.approx((2 * math.sin(y) + y * y, expected), rel=1e-14)
    assert dec_plain.vjp((2, y), 1.5)[1] == pytest.approx((1.5 * expected,), rel=1e-14)
    for tangents in ((1.0,), (None, 1.0), (0, 1.0)):
        assert dec_plain.jvp((2, y), tangents)[1] == pytest.approx(expected, rel=1e-14)
    with pytest.raises(ValueError, match="x is an integer, a constant"):
        dec_plain.jvp((2, y), (1.0, 1.0))
    with pytest.raises(TypeError, match="integer"):
        dec_plain.grad(2, 3)


def test_fast_paths_still_check_after_numbers_warmed_them():
    """After calls with floats, f.grad is the generated function and jvp/vjp skip binding: an integer,
    a wrong number of tangents or a cotangent of the wrong structure is still refused."""
    f, e = adcompiler.differentiate(F.poly), adcompiler.differentiate(F.poly, wrt=("x", "y"))
    g = adcompiler.differentiate(dec_tuple.fn)
    for h in (f, e):
        h.grad(0.5, 2.0), h.jvp((0.5, 2.0), (1.0, 0.0)), h.vjp((0.5, 2.0), 1.0)
    g.vjp((0.5, 2.0), (1.0, 1.0, 1.0))
    for call in (
        lambda: f.grad(2, 3),
        lambda: f.jvp((2, True), (1.0, 0.0)),
        lambda: f.vjp((1, 2), 1.0),
        lambda: e.grad(2, 2.0),
        lambda: e.jvp((0.5, True), (1.0, 0.0)),
    ):
        with pytest.raises(TypeError, match="integer"):
            call()
    assert f.grad(2, 2.0) == pytest.approx(3.0 * 4 - 4.0 * 2 * 2.0 - 2 / 4.0, rel=1e-14)  # x a constant: d/dy
    assert f.vjp((0.5, 2), 1.0)[1] == pytest.approx((6.0 * 0.5 * 2 - 2.0 * 4 + 1 / 2,), rel=1e-14)
    with pytest.raises(ValueError, match="tangents"):
        f.jvp((0.5, 2.0), (1.0,))
    with pytest.raises(ValueError, match="cotangent"):
        g.vjp((0.5, 2.0), (1.0, 1.0))
    assert g.vjp([0.5, 2.0], [1.0, 10.0, 0.0])[1] == pytest.approx((12.0, 10.5), rel=1e-14)
    assert f.jvp((0.5, 2.0), (1.0, 0.0))[1] == pytest.approx(f.grad(0.5, 2.0)[0], rel=1e-14)


def test_int_non_wrt_argument_is_fine():
    assert dec_wrt_y.grad(2, 1.5, 3) == 2 * 3 + 3 * 1.5**2


# ------------------------------------------------------------- source

SOURCE_FUNCS = [
    F.poly,
    F.m_composite2,
    F.aug_assign,
    F.tuple_unpack,
    F.with_default,
    F.b_min_expr,
    F.pc_mix,
    F.clash_locals,
    F.call_nested,
    F.call_tuple,
    F.spherical,
    F.bs_call,
    F.rotate_vec_by_quat,
]


@pytest.fixture(scope="module")
def sources():
    cache = {}

    def get(func, stage):
        if (func, stage) not in cache:
            cache[func, stage] = adcompiler.differentiate(func).source(stage)
        return cache[func, stage]

    return get


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("func", SOURCE_FUNCS, ids=lambda f: f.__name__)
def test_source_is_str_and_compiles(sources, func, stage):
    src = sources(func, stage)
    assert isinstance(src, str) and compile(src, f"<{stage}>", "exec")


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("func", SOURCE_FUNCS, ids=lambda f: f.__name__)
def test_source_is_black_formatted(sources, func, stage):
    src = sources(func, stage)
    assert black.format_str(src, mode=black.Mode()) == src


_LITERAL_RX = {
    "0 *": re.compile(r"(?<![\w.])0(\.0*)? \*"),
    "* 1.0": re.compile(r"\* 1(\.0*)?(?![\w.])"),
    "+ 0.0": re.compile(r"\+ 0(\.0*)?(?![\w.])"),
}


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("func", SOURCE_FUNCS, ids=lambda f: f.__name__)
def test_source_has_no_wasteful_terms(sources, func, stage):
    src = sources(func, stage)
    found = wasteful_terms(src) + [p for p, rx in _LITERAL_RX.items() if rx.search(src)]
    assert found == [], src


@pytest.mark.parametrize("func", SOURCE_FUNCS, ids=lambda f: f.__name__)
def test_anf_stage_is_in_a_normal_form(sources, func):
    assert anf_violations(sources(func, "anf")) == []


def test_forward_and_reverse_source_define_functions():
    names = {
        stage: [n.name for n in ast.walk(ast.parse(dec_plain.source(stage))) if isinstance(n, ast.FunctionDef)]
        for stage in ("forward", "reverse")
    }
    assert all(names.values()), names


# ----------------------------------------------------------- errors

THIS_FILE = __file__


def uses_try(x):
    try:
        y = x * 2.0
    except ValueError:
        y = x
    return y


def uses_with(x):
    with open("f") as fh:
        y = x
    return y


def uses_lambda(x):
    f, g = lambda t: t * t, lambda t: t  # a named lambda is a local function: these are a tuple's
    return f(x) + g(x)


counter = 0


def uses_global(x):
    global counter
    return x * 2.0


UNSUPPORTED = [
    (uses_try, "try", 1, 4),
    (uses_with, "with", 1, 4),
    (uses_lambda, "lambda", 1, 11),
    (uses_global, "global", 1, 4),
]


def _raise_for(func):
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as info:
        df = adcompiler.differentiate(func)
        df.grad(1.0)
    return info.value


def test_unsupported_syntax_error_is_a_syntax_error():
    assert issubclass(adcompiler.UnsupportedSyntaxError, SyntaxError)


@pytest.mark.parametrize("func,construct,dline,col", UNSUPPORTED, ids=[u[1] for u in UNSUPPORTED])
def test_unsupported_syntax_is_located(func, construct, dline, col):
    err = _raise_for(func)
    line = inspect.getsourcelines(func)[1] + dline
    got = (
        err.filename.endswith("test_e2e_api.py"),
        err.lineno,
        err.offset in (col, col + 1),
    )
    assert got == (True, line, True), (err.filename, err.lineno, err.offset)


@pytest.mark.parametrize("func,construct,dline,col", UNSUPPORTED, ids=[u[1] for u in UNSUPPORTED])
def test_unsupported_syntax_message_names_construct_and_place(func, construct, dline, col):
    err = _raise_for(func)
    msg = str(err)
    line = inspect.getsourcelines(func)[1] + dline
    assert (construct in msg.lower(), "test_e2e_api.py" in msg, str(line) in msg) == (
        True,
        True,
        True,
    ), msg


def uses_attribute(x):
    return x.strides * 2.0  # (.real and .imag are supported)


def test_unsupported_attribute_access_names_the_attribute():
    # x is a parameter: the message must be about the attribute, not x
    err = _raise_for(uses_attribute)
    msg = str(err).lower()
    assert ("attribute" in msg or ".strides" in msg) and "undefined" not in msg, msg


def test_unsupported_syntax_error_via_decorator_or_first_use():
    with pytest.raises(adcompiler.UnsupportedSyntaxError):
        adcompiler.differentiate(uses_try).jvp((1.0,), (1.0,))


# -------------------------------------------------------------- cache


def _count_calls(monkeypatch, module, name):
    calls = []
    original = getattr(module, name)

    def wrapper(*a, **k):
        calls.append(a)
        return original(*a, **k)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def test_transformation_is_cached(monkeypatch):
    df = adcompiler.differentiate(F.long_chain)
    df.grad(0.3)
    parses = _count_calls(monkeypatch, ast, "parse")
    sources = _count_calls(monkeypatch, inspect, "getsource")
    df.grad(0.3)
    df.value_and_grad(0.4)
    df.vjp((0.5,), 1.0)
    assert (len(parses), len(sources)) == (0, 0)


def test_source_is_cached():
    df = adcompiler.differentiate(F.long_chain)
    assert df.source("reverse") == df.source("reverse")


def test_grad_after_numbers_still_takes_arrays_keywords_and_can_be_differentiated():
    """The fast entry f.grad gets after a call with floats hands anything else to the full method."""
    np = pytest.importorskip("numpy")
    f = adcompiler.differentiate(F.poly)
    first = f.grad(0.5, 2.0)
    assert f.grad(x=0.5, y=2.0) == first and f.grad(0.5, y=2.0) == first
    xs, ys = np.array([0.5, 0.25]), np.array([2.0, 3.0])
    with pytest.raises(TypeError, match="needs a number as the output"):  # grad would sum the outputs silently
        f.grad(xs, ys)
    gx, gy = f.vjp((xs, ys), np.ones(2))[1]
    for k in range(2):
        assert (gx[k], gy[k]) == pytest.approx(f.grad(float(xs[k]), float(ys[k])), rel=1e-14)
    with pytest.raises(TypeError, match="int64"):
        adcompiler.differentiate(F.poly, wrt=("x", "y")).grad(np.array([1, 2]), ys)
    second = adcompiler.differentiate(f.grad, wrt="x")  # d/dx of the gradient: a row of the Hessian
    h = 1e-5
    expected = [(a - b) / (2 * h) for a, b in zip(f.grad(0.5 + h, 2.0), f.grad(0.5 - h, 2.0))]
    assert second.jvp((0.5, 2.0), (1.0,))[1] == pytest.approx(tuple(expected), rel=1e-6)
    assert f.grad(np.int64(2), 2.0) == f.grad(2, 2.0) == pytest.approx(12.0 - 16.0 - 0.5)  # a constant by default


def test_fast_entries_are_made_once_and_take_lists():
    """An entry is made on the first call and kept (making one per call would compile code every
    time). With lists it tests each list's type and first leaf (what picks the generated code) and,
    for jvp, checks a list tangent's structure as the method does; anything else takes the method."""

    def total(xs, y):
        return sum(xs) * y

    f = adcompiler.differentiate(total)
    assert f.grad([1.0, 2.0], 3.0) == ([3.0, 3.0], 3.0)
    assert f.vjp(([1.0, 2.0], 3.0), 1.0)[1] == ([3.0, 3.0], 3.0)
    assert f.jvp(([1.0, 2.0], 3.0), ([1.0, 0.0], 0.5))[1] == pytest.approx(4.5)
    entries = (f.grad, f.vjp, f.jvp)
    for _ in range(2):
        assert f.grad([1.0, 2.0], 3.0) == ([3.0, 3.0], 3.0)
        assert f.grad((1.0, 2.0, 4.0), 0.5) == ((0.5, 0.5, 0.5), 7.0)  # a tuple: the method
        assert f.vjp(([1.0, 2.0, 4.0], 3.0), 2.0)[1] == ([6.0, 6.0, 6.0], 14.0)
        assert f.jvp(([1.0, 2.0, 4.0], 3.0), ([1.0, 0.0, 1.0], 0.0))[1] == pytest.approx(6.0)
    assert (f.grad, f.vjp, f.jvp) == entries
    assert f.grad([1.0, 2.0], 3) == [3.0, 3.0]  # an integer y: a constant by default
    with pytest.raises(TypeError, match="integer"):
        f.grad([1, 2], 3)
    with pytest.raises(ValueError, match="2 elements but the tangent has 3"):
        f.jvp(([1.0, 2.0], 3.0), ([1.0, 0.0, 1.0], 0.0))
    with pytest.raises(ValueError, match="tangent is float"):
        f.jvp(([1.0, 2.0], 3.0), (1.0, 0.0))
    g = adcompiler.differentiate(F.poly)
    g.grad(0.5, 2.0)
    entry = g.grad
    g.grad(0.5, 2.0)
    assert g.grad is entry


def test_a_partial_is_refused_with_advice():
    """functools.partial objects: a clear TypeError saying what to write instead (issue 19)."""
    import functools
    import math

    def scaled(x, k):
        return k * math.sin(x)

    with pytest.raises(TypeError, match=r"functools.partial\(scaled, \.\.\.\): differentiate scaled itself"):
        adcompiler.differentiate(functools.partial(scaled, k=2.0))
