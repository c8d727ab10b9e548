"""backend="numba": derivatives compiled by numba.njit, checked against autograd, central
differences and the inner-product identity <u, J v> == <J^T u, v>; cotangents in their primal's
structure; what the target cannot compile refused at the user's line.  Skipped without Numba."""

import ast
import inspect
import math
import os
import re
import textwrap
import types

import pytest

numba = pytest.importorskip("numba")
np = pytest.importorskip("numpy")
autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

import adcompiler  # noqa: E402
import numba_funcs as F  # noqa: E402
import callee_into_funcs  # noqa: E402
from adcompiler.errors import UnsupportedSyntaxError  # noqa: E402
from oracle import central_grad, check_grads  # noqa: E402
from shared import derivative  # noqa: E402


def on_autograd(fn):
    """fn reading autograd.numpy where it reads np: the same code, for autograd's gradient."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp}, fn.__name__)


def numba_d(fn, **options):
    """The derivative under backend="numba", compiled once per session (shared with tests/test_numba_agrees.py)."""
    return derivative(fn, backend="numba", **options)


SLOW = pytest.mark.slow  # a second shape of a path a default case covers, or a path whose parts default
# cases cover (here or in tests/test_numba_agrees.py's table): run with --runslow


def compiled(d, mode="grad"):
    """The Numba dispatcher behind a derivative (so a test knows the code ran compiled)."""
    return next(iter(d._built.compiled_for.values()))[mode].compiled


@pytest.mark.parametrize(
    "fn, args, wrt",
    [
        pytest.param(F.poly, (0.7, 1.3), None, marks=SLOW),  # (straight-line code: every other case has some)
        (F.branchy, (0.4, 1.1), None),
        pytest.param(F.branchy, (1.4, 0.3), None, marks=SLOW),
        pytest.param(F.early_return, (0.3,), None, marks=SLOW),  # early returns: the control-flow rows of the table
        pytest.param(F.early_return, (2.0,), None, marks=SLOW),
        (F.calls, (0.3, -0.8), None),
        (F.loop_jumps, (0.9, 12), ("x",)),
    ],
)
def test_scalar_code_both_modes_against_differences(fn, args, wrt):
    d = numba_d(fn, wrt=wrt)
    check_grads(d, args, wrt=wrt, original=fn)
    assert isinstance(compiled(d, "reverse"), numba.core.registry.CPUDispatcher)


def test_newton_while_loop_reverse():
    d = numba_d(F.newton_sqrt)
    for a in (0.5, 2.0, 9.0, 1e4):
        assert d.grad(a) == pytest.approx(0.5 / math.sqrt(a), rel=1e-10)
    assert d.jvp((2.0,), (1.0,))[1] == pytest.approx(0.5 / math.sqrt(2.0), rel=1e-10)


@pytest.mark.slow  # recursion: test_determinant_by_minors_recursion... by default
def test_recursion_both_modes_with_recomputed_residuals():
    d = numba_d(F.power, wrt=("x",))
    assert d.jvp((1.3, 7), (1.0,))[1] == pytest.approx(7 * 1.3**6, rel=1e-12)
    assert d.grad(1.3, 7) == pytest.approx(7 * 1.3**6, rel=1e-12)
    assert d.vjp((1.3, 0), 2.0) == (1.0, (0.0,))
    d = numba_d(F.tower, wrt=("x",))  # the inner call's cotangent depends on its value
    g = d.grad(0.7, 6)
    assert g == pytest.approx(float(central_grad(F.tower, (0.7, 6), 0)), rel=1e-8)
    assert g == pytest.approx(derivative(F.tower, wrt=("x",)).grad(0.7, 6), rel=1e-13)
    assert d.jvp((0.7, 6), (1.0,))[1] == pytest.approx(g, rel=1e-13)


@SLOW
def test_recursion_over_arrays_recomputes_where_nothing_changes_in_place():
    """No function of the program writes into an array or a list: the adjoint runs the recursive call
    again on the arrays it had (the same values), as for numbers."""
    d = numba_d(F.array_depth, wrt=("a",))
    a = np.array([0.3, -0.7, 1.1])
    g = d.grad(a, 3)
    assert np.allclose(g, central_grad(F.array_depth, (a, 3), 0), rtol=1e-7, atol=1e-9)
    assert np.allclose(g, derivative(F.array_depth, wrt=("a",)).grad(a, 3), rtol=1e-13, atol=0)
    v = np.array([1.0, 0.5, -2.0])
    assert d.jvp((a, 3), (v,))[1] == pytest.approx(float(g @ v), rel=1e-12)


@SLOW
def test_recursion_over_arrays_written_in_place_shares_its_tapes():
    """Each level writes into the array it made: its levels push onto one set of tapes (the old values
    among them) and the reverse sweeps pop them, so nothing is run again on what an array held then."""
    d = numba_d(F.array_depth_written, wrt=("a",))
    a = np.array([0.3, -0.7, 1.1])
    g = d.grad(a, 3)
    assert np.allclose(g, central_grad(F.array_depth_written, (a, 3), 0), rtol=1e-7, atol=1e-9)
    assert np.allclose(g, derivative(F.array_depth_written, wrt=("a",)).grad(a, 3), rtol=1e-13, atol=0)


def test_a_function_calling_itself_on_every_path_is_refused_where_it_calls(tmp_path):
    """``return f(x) * 2.0``: nothing ends the recursion (the python backend raises RecursionError, as the primal
    does; compiled code would overflow its stack).  Refused at the line, not an IndexError inside adcompiler."""
    path = tmp_path / "endless.py"
    path.write_text("def f(x):\n    y = x * 3.0\n    return f(y) * 2.0\n")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with pytest.raises(UnsupportedSyntaxError) as caught:
        numba_d(namespace["f"]).grad(1.5)
    assert caught.value.filename == str(path) and "calls itself on every path" in str(caught.value)
    with pytest.raises(RecursionError):
        adcompiler.differentiate(namespace["f"]).grad(1.5)


@SLOW
@pytest.mark.parametrize("name", ["steady_weights", "swapped_weights"])
def test_recursion_sharing_tapes_keeps_a_parameter_handed_down_as_it_is_once(name):
    """A parameter every level of a recursion sharing its tapes hands down unchanged is one object, kept
    once with the tapes (det's A); one rebound or handed down in another place is kept level by level:
    gradients of every parameter against central differences and the python backend."""
    fn = getattr(F, name)
    rng = np.random.default_rng(11)
    args = (rng.normal(size=3), rng.uniform(0.5, 1.5, size=3), rng.uniform(0.5, 1.5, size=3), 3)
    d = numba_d(fn, wrt=("a", "w", "v"))
    grads = d.grad(*args)
    for k, g in enumerate(grads):
        assert np.allclose(g, central_grad(fn, args, k), rtol=1e-6, atol=1e-8)
    for g, want in zip(grads, derivative(fn, wrt=("a", "w", "v")).grad(*args), strict=True):
        assert np.allclose(g, want, rtol=1e-12, atol=1e-14)
    module = _module_of(compiled(d, "grad"))
    tapes = re.search(r"^    tapes = \((.*)\)$", module, re.M).group(1).split(", ")
    assert ("w" in tapes) == (name == "steady_weights") and "v" not in tapes, tapes


def test_no_dead_shadow_of_an_index_tuple():
    """The shadow list of ``(rows, cols)`` (zeros of each array's shape: the target's shadows of lists of arrays)
    is read by nothing: the compiled module has no such line, and the gradient is the python backend's."""
    qk, lk = np.array([0.1, -0.3, 0.2]), np.array([0.5, -1.0, 2.0])
    d = numba_d(F.lower_filled)
    for g, want in zip(d.grad(qk, lk), derivative(F.lower_filled).grad(qk, lk), strict=True):
        assert np.allclose(g, want, rtol=1e-13, atol=0)
    module = _module_of(compiled(d, "grad"))
    assert "def lower_filled_grad(" in module and "write_at(" in module  # (the module of this gradient)
    assert not re.search(r"= \[\w*zeros_like\w*\(rows\)", module), module


def _module_of(dispatcher) -> str:
    with open(dispatcher.py_func.__code__.co_filename) as fh:  # (the module written for Numba's cache)
        return fh.read()


@pytest.mark.slow  # recursion: test_recursion_both_modes_with_recomputed_residuals by default
def test_a_recursive_call_pushes_onto_its_callers_tapes():
    """The reverse sweep of det by minors hands its tapes to its calls of itself, and runs no forward
    sweep again (each level's residuals are on the tapes the first level made): the module Numba
    compiles has the forward sweep onto given tapes, and no reverse sweep that calls a forward sweep."""
    d = numba_d(F.det_by_minors)
    A = np.random.default_rng(5).normal(size=(4, 4))
    assert np.allclose(d.grad(A), np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-10, atol=1e-12)
    module = _module_of(compiled(d, "grad"))
    assert re.search(r"^    tapes = \(.*, A\)$", module, re.M)  # A, handed down as it is: kept once
    sweeps = re.findall(r"^def (\w+_reverse_sweep)\(.*?(?=^@|\Z)", module, re.M | re.S)
    assert sweeps and re.search(r"^def \w+_onto\(", module, re.M)
    for sweep in re.finditer(r"^def \w+_reverse_sweep\(.*?(?=^@|\Z)", module, re.M | re.S):
        assert "forward_sweep" not in sweep.group(0), sweep.group(0)


def _rebound_in_a_loop(x, v):
    """v (one element) rebound at the top level to a vector, then in a loop to another of that length."""
    t2 = np.sum(x)
    v = v * (x if math.tanh(t2) >= -0.31 else x)
    j = 0
    while j < 2:
        j += 1
        v = 0.74 * np.broadcast_to(v, (2,))
    return np.sum(v)


def test_the_adjoint_of_a_variable_bound_again_starts_from_its_earlier_bindings_zeros():
    """The accumulator of ``v``, started again where the adjoint undoes ``v = v * x``, belongs to the
    parameter (one element), not to the vector v holds last: zeros of that vector's shape added into the
    parameter's cotangent failed in Numba's broadcasting (fuzz seed 371, program 11)."""
    x, v = np.array([1.1, 0.9]), np.array([-0.52])
    got = numba_d(_rebound_in_a_loop).vjp((x, v), 1.0)[1]
    expected = derivative(_rebound_in_a_loop).vjp((x, v), 1.0)[1]
    for g, e, a in zip(got, expected, (x, v), strict=True):
        assert np.shape(g) == np.shape(a)
        np.testing.assert_allclose(g, e, rtol=1e-12)


def test_determinant_by_minors_recursion_over_an_array_with_slices_and_joins_of_index_lists():
    """GradBench's det: d det(A) / dA = det(A) inv(A)^T, in both modes, agreeing with the python backend."""
    A = np.random.default_rng(3).normal(size=(5, 5))
    d = numba_d(F.det_by_minors)
    expected = np.linalg.det(A) * np.linalg.inv(A).T
    g = d.grad(A)
    assert np.allclose(g, expected, rtol=1e-10, atol=1e-12)
    assert np.allclose(g, derivative(F.det_by_minors).grad(A), rtol=1e-12, atol=1e-14)
    V = np.random.default_rng(4).normal(size=(5, 5))
    value, tangent = d.jvp((A,), (V,))
    assert value == pytest.approx(np.linalg.det(A), rel=1e-12)
    assert tangent == pytest.approx(float(np.sum(expected * V)), rel=1e-10)


@pytest.mark.slow
def test_a_user_function_handed_a_list_runs_generated_code():
    """doubled_length(cols) is len(cols[1:] + cols[1:]) = 4 in Python; compiled as written, on the
    array cols is there, + adds (2): the call runs the generated code, whose join is Python's."""
    x, cols = np.array([2.0, 3.0, 5.0, 7.0, 11.0]), [0, 1, 2]
    d = numba_d(F.read_at_joined_length, wrt=("x",))
    assert np.array_equal(d.grad(x, cols), [7.0, 0.0, 0.0, 2.0, 0.0])
    assert d.jvp((x, cols), (np.ones(5),))[1] == 9.0


def test_njit_function_and_njit_callee():
    d = numba_d(F.jitted)
    x, y = 0.6, -1.7
    expected = autograd.grad(lambda x, y: x * anp.log(1.0 + y * y) * y + x, argnum=(0, 1))(x, y)
    assert d.grad(x, y) == pytest.approx(tuple(map(float, expected)), rel=1e-12)
    assert d(x, y) == F.jitted(x, y)
    on_python = adcompiler.differentiate(F.jitted, backend="python")  # (its Python function, as Numba runs it)
    assert on_python.grad(x, y) == pytest.approx(tuple(map(float, expected)), rel=1e-12)
    assert adcompiler.grad(F.jitted, argnums=(0, 1))(x, y) == pytest.approx(tuple(map(float, expected)), rel=1e-12)


def test_lists_of_floats_gradients_are_lists():
    xs, ys = [1.0, -2.0, 0.5], [0.3, 0.2, -1.5]
    d = numba_d(F.dot)
    gx, gy = d.grad(xs, ys)
    assert gx == ys and gy == xs and type(gx[0]) is float
    rows = [[0.1, 0.2, 0.3], [-0.4, 0.5, 0.6]]
    v = [1.0, -1.0, 2.0]
    g_rows, g_v = numba_d(F.mat_vec_sum).grad(rows, v)
    assert isinstance(g_rows, list) and isinstance(g_rows[0], list)
    assert np.allclose(g_rows, central_grad(F.mat_vec_sum, (rows, v), 0), atol=1e-8)
    assert np.allclose(g_v, central_grad(F.mat_vec_sum, (rows, v), 1), atol=1e-8)


def test_tuple_output_vjp_against_jvp():
    xs = [0.7, -1.1, 2.0]
    d = numba_d(F.three_outputs)
    value, (ct,) = d.vjp((xs,), (1.0, -2.0, 0.5))
    assert value == F.three_outputs(xs)
    v = [0.3, 0.9, -0.4]
    _, tangent = d.jvp((xs,), (v,))
    assert np.dot([1.0, -2.0, 0.5], tangent) == pytest.approx(np.dot(ct, v), rel=1e-12)
    expected = autograd.jacobian(lambda a: anp.array([a[0] * a[1], anp.cos(a[2]), a[0] / a[2]]))(np.array(xs))
    assert np.allclose(adcompiler.jacobian(d)(xs), expected)


def test_list_output_built_with_append():
    xs = [0.5, -1.5]
    value, (ct,) = numba_d(F.list_out).vjp((xs,), [1.0, 2.0])
    assert value == F.list_out(xs) and isinstance(value, list)
    assert ct == pytest.approx([2 * 0.5, 2 * 2 * -1.5])


@pytest.mark.slow  # NumPy code: the rows and the rule sample of tests/test_numba_agrees.py by default
def test_numpy_against_autograd():
    rng = np.random.default_rng(0)
    w, x = rng.normal(size=(4, 3)), rng.normal(size=3)
    d = numba_d(F.softmax_np)
    gw, gx = d.grad(w, x)
    ew, ex = autograd.grad(on_autograd(F.softmax_np), argnum=(0, 1))(w, x)
    assert np.allclose(gw, ew, rtol=1e-10) and np.allclose(gx, ex, rtol=1e-10)
    assert gw.shape == w.shape and gw.dtype == w.dtype
    tw, tx = rng.normal(size=(4, 3)), rng.normal(size=3)
    _, tangent = d.jvp((w, x), (tw, tx))
    assert tangent == pytest.approx(np.sum(ew * tw) + np.sum(ex * tx), rel=1e-10)


def test_numpy_layers_in_a_list_of_tuples():
    rng = np.random.default_rng(1)
    layers = [(rng.normal(size=(4, 3)), rng.normal(size=4)), (rng.normal(size=(2, 4)), rng.normal(size=2))]
    x = rng.normal(size=3)
    g_layers, g_x = numba_d(F.layers_np).grad(layers, x)
    e_layers, e_x = autograd.grad(on_autograd(F.layers_np), argnum=(0, 1))(layers, x)
    assert isinstance(g_layers, list) and isinstance(g_layers[0], tuple)
    for (gw, gb), (ew, eb) in zip(g_layers, e_layers):
        assert np.allclose(gw, ew, rtol=1e-10) and np.allclose(gb, eb, rtol=1e-10)
    assert np.allclose(g_x, e_x, rtol=1e-10)


@SLOW
def test_a_list_argument_and_a_built_list_in_one_variable():
    """h = xs then h = z (z built by append): the argument copied into a list (it is an array in
    compiled code); where the code changes the argument's list through h, refused at the user's line."""
    g = numba_d(F.relayer, wrt=("xs",)).grad([1.0, 2.0], 2)
    assert type(g) is list and g == pytest.approx(derivative(F.relayer, wrt=("xs",)).grad([1.0, 2.0], 2))
    with pytest.raises(UnsupportedSyntaxError) as caught:
        numba_d(F.relayer_appending, wrt=("xs",)).grad([1.0, 2.0], 2)
    message = str(caught.value)
    assert os.path.basename(F.__file__) in message and 'backend="python"' in message
    assert caught.value.lineno > F.relayer_appending.__code__.co_firstlineno
    assert "a list argument (an array there) and a list the code builds" in message


@pytest.mark.slow  # lists of arrays: test_numpy_layers_in_a_list_of_tuples covers them by default
def test_network_on_lists_against_autograd_both_modes():
    rng = np.random.default_rng(12)
    shapes = ((4, 3), (2, 4))
    layers = [(rng.normal(size=s).tolist(), rng.normal(size=s[0]).tolist()) for s in shapes]
    x = rng.normal(size=3).tolist()
    d = numba_d(F.network)
    g_layers, g_x = d.grad(layers, x)
    assert isinstance(g_layers, list) and type(g_layers[0][0]) is list and type(g_x) is list
    flat = [np.array(w) for w, _ in layers] + [np.array(b) for _, b in layers] + [np.array(x)]

    def on_arrays(w1, w2, b1, b2, xv):
        scope = {**F.network.__globals__, "math": types.SimpleNamespace(exp=anp.exp)}
        return types.FunctionType(F.network.__code__, scope)([(w1, b1), (w2, b2)], xv)

    expected = autograd.grad(on_arrays, argnum=(0, 1, 2, 3, 4))(*flat)
    got = [g_layers[0][0], g_layers[1][0], g_layers[0][1], g_layers[1][1], g_x]
    for a, e in zip(got, expected, strict=True):
        assert np.allclose(a, e, rtol=1e-10, atol=1e-14)
    tangents = (
        [(rng.normal(size=s).tolist(), rng.normal(size=s[0]).tolist()) for s in shapes],
        rng.normal(size=3).tolist(),
    )
    _, tangent = d.jvp((layers, x), tangents)
    t_flat = [tangents[0][0][0], tangents[0][1][0], tangents[0][0][1], tangents[0][1][1], tangents[1]]
    assert tangent == pytest.approx(sum(float(np.sum(np.multiply(e, t))) for e, t in zip(expected, t_flat)), rel=1e-10)


def test_layers_as_lists_of_a_matrix_and_a_vector_go_in_and_agree_with_python():
    """layers = [[W, b], ...], each layer a list of two lists of different depths: numpy.array of such a list
    raised its ValueError (an inhomogeneous shape) from the conversion of the arguments; a tuple of them now."""
    rng = np.random.default_rng(5)
    layers = [[rng.normal(size=s).tolist(), rng.normal(size=s[0]).tolist()] for s in ((2, 3), (2, 2))]
    x = rng.normal(size=3).tolist()
    g_layers, g_x = numba_d(F.network).grad(layers, x)
    e_layers, e_x = adcompiler.differentiate(F.network).grad(layers, x)
    assert type(g_layers[0]) is list and type(g_layers[0][0]) is list
    np.testing.assert_allclose(g_x, e_x, rtol=1e-12)
    for (gw, gb), (ew, eb) in zip(g_layers, e_layers, strict=True):
        np.testing.assert_allclose(gw, ew, rtol=1e-12)
        np.testing.assert_allclose(gb, eb, rtol=1e-12)


@pytest.mark.slow
def test_array_parameter_read_in_a_loop_and_after_it_against_autograd():
    """w's two uses are two dup copies: its adjoint accumulator starts as zeros of w's shape (one type)."""
    rng = np.random.default_rng(3)
    w, x = rng.normal(size=(3, 3)), rng.normal(size=3)
    gw, gx = numba_d(F.array_loop).grad(w, x)
    ew, ex = autograd.grad(on_autograd(F.array_loop), argnum=(0, 1))(w, x)
    assert gw.shape == w.shape and gx.shape == x.shape
    assert np.allclose(gw, ew, rtol=1e-12) and np.allclose(gx, ex, rtol=1e-12)


def test_unknown_backend_refused():
    with pytest.raises(ValueError, match="backend"):
        adcompiler.differentiate(F.poly, backend="jax")


@pytest.mark.slow  # slices and joins: the minors row of tests/test_numba_agrees.py by default
def test_slices_and_gathers_of_arrays_against_autograd():
    rng = np.random.default_rng(2)
    state = rng.normal(size=(3, 4))
    d = numba_d(F.particles_np, wrt=("state",))
    g = d.grad(state, 40)
    expected = autograd.grad(on_autograd(F.particles_np))(state, 40)
    assert g.shape == state.shape and g.dtype == state.dtype and np.allclose(g, expected, rtol=1e-10)
    tangent = rng.normal(size=(3, 4))
    assert d.jvp((state, 40), (tangent,))[1] == pytest.approx(np.sum(expected * tangent), rel=1e-10)
    x, idx = rng.normal(size=5), np.array([0, 3, 3, 1, 0, 0])
    d = numba_d(F.gathered, wrt=("x",))
    g = d.grad(x, idx)
    assert np.allclose(g, autograd.grad(on_autograd(F.gathered))(x, idx), rtol=1e-12)
    assert np.allclose(g, central_grad(F.gathered, (x, idx), 0), atol=1e-8)


def test_adjoint_loops_run_forward_summing_in_another_order_and_indices_stay_checked():
    rng = np.random.default_rng(4)
    rows, v = rng.normal(size=(7, 5)).tolist(), rng.normal(size=5).tolist()
    d = numba_d(F.mat_vec_sum)
    d_rows, d_v = d.grad(rows, v)
    assert d_rows == [[math.cos(r) * w for r, w in zip(row, v)] for row in rows]  # to the bit: one product each
    sums = [math.fsum(math.sin(row[j]) for row in rows) for j in range(5)]  # the exact sums, rounded once
    assert d_v == pytest.approx(sums, rel=1e-15, abs=1e-15)
    assert d_v == pytest.approx(derivative(F.mat_vec_sum).grad(rows, v)[1], rel=1e-15, abs=1e-15)
    source = inspect.getsource(compiled(d).py_func)
    assert "for j in range(t2):" in source and "for i in range(t1):" in source  # both loops forward
    with pytest.raises(IndexError):  # ys shorter than xs: Python's IndexError, not a read past the end
        numba_d(F.dot).grad([1.0, 2.0, 3.0], [1.0, 2.0])


@pytest.mark.slow
@pytest.mark.parametrize(
    "lengths", [pytest.param((5, 5, 5), marks=SLOW), pytest.param((7, 7, 7), marks=SLOW), (5, 7, 6)]
)
def test_rows_of_a_shadow_made_without_zeros_keep_zeros_where_nothing_is_stored(lengths):
    """The shadow of a list of lists is made empty when its adjoint loop stores every row; elements
    past len(v) get no store and stay zero (equal rows reach compiled code as a 2-D array, ragged ones
    as a typed list)."""
    rng = np.random.default_rng(6)
    rows, v = [rng.normal(size=n).tolist() for n in lengths], rng.normal(size=5).tolist()
    d = numba_d(F.mat_vec_product_sum)
    d_rows, d_v = d.grad(rows, v)
    e_rows, e_v = derivative(F.mat_vec_product_sum).grad(rows, v)
    assert [len(r) for r in d_rows] == list(lengths) and all(r[5:] == [0.0] * (len(r) - 5) for r in d_rows)
    assert d_rows == [v + [0.0] * (n - 5) for n in lengths] == e_rows
    assert d_v == pytest.approx([math.fsum(r[j] for r in rows) for j in range(5)], rel=1e-15, abs=1e-15)
    assert "empty_rows(M)" in inspect.getsource(compiled(d).py_func)
    _, ct = d.vjp((rows, v), 2.0)
    assert ct[0] == [[2.0 * x for x in r] for r in e_rows]
    assert d.jvp((rows, v), (rows, v))[1] == pytest.approx(2 * F.mat_vec_product_sum(rows, v), rel=1e-14)


_LOOP = """def f(d_x, v, M):
    d_v = np.zeros(3)
    d_w = np.zeros(3)
    d_M = np.zeros((3, 3))
    d_row = np.zeros(3)
    d_s = 0.0
    t = 0.0
    for j in reversed(range(3)):
        BODY
    return d_s, d_v, d_M
"""


@pytest.mark.parametrize(
    "body, forward",
    [
        ("t = v[j]\nd_v[j] += row[j]\nd_row[j] = math.cos(t) * t", True),
        ("d_s = d_s + v[j]", False),  # carried from one iteration to the next
        ("d_v[j + 1] += v[j]", True),  # a sum: its terms added in another order
        ("d_v[j + 1] += v[j]\nd_w[j] = d_v[j]", False),  # a sum read in the loop
        ("d_v[j] = v[j]\nd_w[j] = d_v[j + 1]", False),  # another iteration's element
        ("np.add(d_v[j], v[j], d_v)", False),  # an out argument: writes all of d_v
        ("d_x[j] = v[j]", False),  # d_x is a parameter: it may be a view of anything
        ("t = v[j]\nd_v[j] = t\nd_v[j] += helper(t)", False),  # a call that may write
        ("r = d_M[j]\nr[:2] = v[:2]\nfor k in range(3):\n    d_w[k] += r[k] * M[j][k]", True),  # own rows
        ("r = d_M[j]\nr[0] = d_M[0][1]", False),  # another iteration's row
        ("r = d_M[j]\nd_M[0] += v", False),  # a row of its own, and a sum into every row
        ("if v[j] > 0.0:\n    t = v[j]\nd_v[j] = t", False),  # t carried where the branch is not taken
        ("while v[j] > 0.0:\n    d_v[j] = 1.0", False),  # a while loop
        ("d_w[j] = d_v[0]\nd_v[j] = 1.0", False),  # reads the element another iteration writes
        ("t = v[j]", False),  # t is read after the loop
        ("d_v[j] *= v[j]\nd_v[0] += v[j]", False),  # a product and a sum into one element: order matters
        ("np.copyto(d_w, v)", False),  # writes into its first argument
        ("d_w[j] = v[j]\nnp.fill_diagonal(d_M, v[j])", False),
    ],
)
def test_which_adjoint_loops_may_run_forward(body, forward):
    import ast
    from adcompiler.targets.numba.loops import runs_forward

    source = _LOOP.replace("BODY", body.replace("\n", "\n        "))
    if body == "t = v[j]":
        source = source.replace("return d_s,", "return t,")
    function = ast.parse(source).body[0]
    loop = next(n for n in ast.walk(function) if isinstance(n, ast.For))
    assert runs_forward(loop, function, {"np", "math"}, "__adc_comment__", {"np.zeros"}) is forward


@pytest.mark.slow  # broadcasts: the broadcast rows of tests/test_numba_agrees.py by default
@pytest.mark.parametrize(
    "fn, shapes",
    [
        (F.broadcast_ones, [(3, 1), (1, 4), (4,)]),
        pytest.param(F.broadcast_ones, [(2, 1, 3), (2, 4, 1), (1, 1, 3)], marks=SLOW),
        pytest.param(F.broadcast_ones, [(1, 1), (2, 3), (1, 3)], marks=SLOW),
        pytest.param(F.broadcast_ones, [(5,), (1,), (1,)], marks=SLOW),
        pytest.param(F.broadcast_one, [(3,), (1,)], marks=SLOW),
        pytest.param(F.broadcast_one, [(1,), (3,)], marks=SLOW),
    ],
)
def test_axes_of_length_one_broadcast_against_autograd(fn, shapes):
    """Compiled unbroadcast sums over the axes of length 1 that broadcast (it refused them at run time)."""
    rng = np.random.default_rng(7)
    args = [rng.normal(size=s) for s in shapes]
    d = numba_d(fn)
    grads = d.grad(*args)
    expected = autograd.grad(on_autograd(fn), argnum=tuple(range(len(args))))(*args)
    for g, e, a in zip(grads, expected, args):
        assert g.shape == a.shape and g.dtype == a.dtype and np.allclose(g, e, rtol=1e-12, atol=1e-14)
    tangents = [rng.normal(size=s) for s in shapes]
    assert d.jvp(tuple(args), tuple(tangents))[1] == pytest.approx(
        sum(np.sum(e * t) for e, t in zip(expected, tangents)), rel=1e-10
    )


@SLOW
def test_sums_along_an_axis_against_autograd_and_differences():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(2, 5, 3))
    d = numba_d(F.along_axes)
    ga, gb = d.grad(a, b)
    ea, eb = autograd.grad(on_autograd(F.along_axes), argnum=(0, 1))(a, b)
    assert ga.shape == a.shape and gb.shape == b.shape
    assert np.allclose(ga, ea, rtol=1e-12) and np.allclose(gb, eb, rtol=1e-12)
    assert np.allclose(ga, central_grad(F.along_axes, (a, b), 0), atol=1e-7)
    ta, tb = rng.normal(size=(3, 4)), rng.normal(size=(2, 5, 3))
    assert d.jvp((a, b), (ta, tb))[1] == pytest.approx(np.sum(ea * ta) + np.sum(eb * tb), rel=1e-10)


def _products_arguments():
    rng = np.random.default_rng(9)
    return (rng.normal(size=(3, 2)), rng.normal(size=(2, 4)), rng.normal(size=4), rng.normal(size=2)), rng


def test_matrix_products_against_autograd_in_both_modes():
    """a @ b of matrices and vectors (matmul_vjp_a/b compiled: refused for their import until 2026-11-26)."""
    args, rng = _products_arguments()
    d = numba_d(F.products)
    grads = d.grad(*args)
    expected = autograd.grad(on_autograd(F.products), argnum=(0, 1, 2, 3))(*args)
    for g, e, a in zip(grads, expected, args):
        assert g.shape == a.shape and np.allclose(g, e, rtol=1e-12, atol=1e-14)
    tangents = tuple(rng.normal(size=np.shape(a)) for a in args)
    assert d.jvp(args, tangents)[1] == pytest.approx(sum(np.sum(e * t) for e, t in zip(expected, tangents)), rel=1e-10)


@pytest.mark.slow  # the Numba form of matmul_vjp_a/b differentiated in forward mode: one long compile
def test_matrix_products_at_second_order():
    """hvp of a @ b under Numba against the python backend's."""
    args, rng = _products_arguments()
    v = tuple(rng.normal(size=np.shape(a)) for a in args)
    hvp = adcompiler.hvp(numba_d(F.products), argnums=(0, 1, 2, 3))(args, v)
    want = adcompiler.hvp(derivative(F.products), argnums=(0, 1, 2, 3))(args, v)
    assert all(np.allclose(h, w) and np.shape(h) == np.shape(a) for h, w, a in zip(hvp, want, args))


@pytest.mark.parametrize("idx", [[0, 2], [2, 2], [-1, 0]])
def test_a_write_at_an_array_of_indices(idx):
    """An index array may name an element twice (the last write gets the cotangent, as NumPy's buffered write
    keeps the last value): ``take_and_clear``'s form of a vector's places (refused at the line until 2026-12-03)."""
    x, idx = np.array([1.0, 2.0]), np.array(idx)
    got = numba_d(F.written_at_indices, wrt=("x",)).grad(x, idx)
    np.testing.assert_allclose(got, derivative(F.written_at_indices, wrt=("x",)).grad(x, idx), rtol=1e-14)
    np.testing.assert_allclose(got, central_grad(F.written_at_indices, (x, idx), 0), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize(
    "fn, args",
    [
        (F.joined, (1.5, 0.5)),
        pytest.param(F.repeated, (1.5, [1.0, 2.0]), marks=SLOW),
        pytest.param(F.appended, (0.7, [1.0, -2.0]), marks=SLOW),
    ],
)
def test_lists_joined_and_repeated_in_both_modes_and_at_second_order(fn, args):
    """xs + ys and xs * n of lists are calls in compiled code, where lists are arrays (+ added and *
    multiplied there: joined's gradient took ys[0]'s derivative too, until 2026-11-26)."""
    d, python = numba_d(fn), derivative(fn)
    expected = {"joined": (0.0, 1.0), "repeated": (2.0, [0.0, 1.5]), "appended": (2.0, [1.4, 1.0])}[fn.__name__]
    assert d.grad(*args) == python.grad(*args) == expected
    assert "join_lists" in inspect.getsource(compiled(d).py_func) or fn is F.repeated
    value, tangent = d.jvp(args, args)
    assert value == fn(*args) and tangent == pytest.approx(python.jvp(args, args)[1], rel=1e-12)
    assert np.allclose(
        adcompiler.hessian_matrix(d)(*args), adcompiler.hessian_matrix(python)(*args), rtol=1e-10, atol=1e-12
    )


@pytest.mark.slow
def test_a_slice_of_a_list_is_a_new_list_in_both_modes():
    """A slice of a list is a copy in Python and would be a view of the array the list is in compiled code
    (forward mode gave 22.0 where Python gives 20.0, until it was refused on 2026-11-26): each slice is
    copied, so a write into it leaves the list as it was."""
    args = (1.5, [1.0, 2.0, 3.0])
    d, python = numba_d(F.sliced_then_written), derivative(F.sliced_then_written)
    assert d.grad(*args) == python.grad(*args) == (2.0, [0.0, 2.5, 0.0])
    assert d.jvp(args, args) == python.jvp(args, args) == (5.0, 8.0)
    assert np.allclose(adcompiler.hessian_matrix(d)(*args), adcompiler.hessian_matrix(python)(*args))
    assert "copy_list" in inspect.getsource(compiled(d).py_func)


def test_slices_of_an_active_list_against_differences():
    xs, x = [0.5, -1.2, 2.0, 0.7], 1.3
    d = numba_d(F.slices_of_a_list)
    g_xs, g_x = d.grad(xs, x)
    assert np.allclose(g_xs, central_grad(F.slices_of_a_list, (xs, x), 0), rtol=1e-7)
    assert g_x == pytest.approx(float(central_grad(F.slices_of_a_list, (xs, x), 1)), rel=1e-7)
    python_xs, python_x = derivative(F.slices_of_a_list).grad(xs, x)
    assert g_xs == pytest.approx(python_xs, rel=1e-13) and g_x == pytest.approx(python_x, rel=1e-13)
    u = [0.3, -0.2, 0.9, 1.4]
    tangent = d.jvp((xs, x), (u, 0.5))[1]
    assert tangent == pytest.approx(float(np.dot(g_xs, u)) + 0.5 * g_x, rel=1e-12)


def test_scipy_functions_of_constants_are_computed_as_scipy_does():
    """GradBench gmm's multigammaln(0.5 * n, d) of the shapes and an int argument (Numba types neither
    SciPy's Python nor its ufuncs): compiled from math.lgamma (multigammaln, gammaln of numbers), else the
    function itself called in object mode."""
    q = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]])
    d = numba_d(F.wishart_constant, wrt=("q",))
    g = d.grad(q, 2)
    assert np.allclose(g, derivative(F.wishart_constant, wrt=("q",)).grad(q, 2), rtol=1e-13, atol=0)
    assert np.allclose(g, central_grad(F.wishart_constant, (q, 2), 0), rtol=1e-7)
    assert d(q, 2) == pytest.approx(F.wishart_constant(q, 2), rel=1e-14)


def test_numpy_array_of_a_named_list_is_numbas_own():
    """numpy.array of a list the function makes (t = [a, b]; numpy.array(t)) stays Numba's numpy.array, which
    takes a list made in place without making it (16 ns against 57 for the list handed to array_of: particle's
    and saddle's unit vectors); of an array, a copy (array_of); values against the python target."""
    x, A = np.array([0.3, -0.7, 1.1]), np.array([[0.5, -0.2], [0.1, 0.9]])
    d = numba_d(F.arrays_of_named_lists)
    g = d.grad(x, A)
    want = derivative(F.arrays_of_named_lists).grad(x, A)
    for got, expected in zip(g, want):
        np.testing.assert_allclose(got, expected, rtol=1e-13)
    for k, got in enumerate(g):  # (an oracle of neither target)
        np.testing.assert_allclose(got, central_grad(F.arrays_of_named_lists, (x, A), k), rtol=1e-7, atol=1e-9)
    source = inspect.getsource(compiled(d).py_func)
    assert "array_of(e)" not in source and "np.array(e)" in source, source
    assert "array_of(A)" in source


def test_a_power_of_two_scales_a_products_cotangent_after_it():
    """matmul_vjp_b(2.0 * -g, a, b) is -2.0 * matmul_vjp_b(g, a, b) (and dot's): no array of g's shape made
    for the factor, and the same numbers bit for bit (a power of two scales every product and sum exactly)."""
    rng = np.random.default_rng(12)
    P, C = rng.random((40, 3)), rng.random((5, 3))
    d = numba_d(F.distances_by_products, wrt=("C",))  # (kmeans': only C's, so the product's cotangent is read once)
    np.testing.assert_array_equal(d.grad(P, C), derivative(F.distances_by_products, wrt=("C",)).grad(P, C))
    np.testing.assert_allclose(d.grad(P, C), central_grad(F.distances_by_products, (P, C), 1), rtol=1e-6, atol=1e-9)
    source = inspect.getsource(compiled(d).py_func)
    assert re.search(r"-2\.0 \* matmul_vjp_b\(", source) and not re.search(r"matmul_vjp_b\(2\.0", source), source


def _field_of_five(x, w):
    """charged_field in five dimensions (numba_funcs: GradBench particle's force, its constants as it writes them)."""
    d1 = x - np.array([10.0, 10.0 - w, 1.0, 2.0, 3.0])
    d2 = x - np.array([10.0, 0.0, 0.5, 0.5, 0.5])
    f = d1 / np.linalg.norm(d1) ** 3 + d2 / np.linalg.norm(d2) ** 3
    return np.sum(-np.array([f[0], f[1] * w]) * np.array([[1.0, -2.0], [0.5, 3.0]]))


@pytest.mark.parametrize("cached", [True, False])
def test_arrays_of_numbers_in_arithmetic_are_constants_of_the_module(cached, monkeypatch, tmp_path):
    """numpy.array of literal numbers as an operand of arithmetic is made once, a constant of the compiled
    module (Numba freezes it), and -numpy.array([a, b]) is numpy.array([-a, -b]): the python target's numbers
    (to rounding: Numba's norm adds in another order), with the module on disk (a global of it) and without (a
    closure variable).  (Five numbers: a vector of two to four is numbers, the test below.)"""
    monkeypatch.setenv("ADCOMPILER_CACHE_DIR", str(tmp_path) if cached else "")
    x, w = np.array([0.3, 7.5, 1.0, -2.0, 0.4]), 0.7
    d = adcompiler.differentiate(_field_of_five, backend="numba")
    python = adcompiler.differentiate(_field_of_five)
    g = d.grad(x, w)
    for k, (got, want) in enumerate(zip(g, python.grad(x, w))):
        np.testing.assert_allclose(got, want, rtol=1e-13)
        np.testing.assert_allclose(got, central_grad(_field_of_five, (x, w), k), rtol=1e-6)  # (neither target's)
    tangent = (np.array([1.0, -1.0, 0.5, 0.2, 0.1]), 0.5)
    assert d.jvp((x, w), tangent) == pytest.approx(python.jvp((x, w), tangent), rel=1e-13)
    assert d.jvp((x, w), tangent)[1] == pytest.approx(float(g[0] @ tangent[0] + g[1] * tangent[1]), rel=1e-12)
    source = inspect.getsource(compiled(d).py_func)
    assert re.search(r"x - constant\b", source), source
    forward = inspect.getsource(compiled(d, "forward").py_func)
    code = "\n".join(line for line in forward.splitlines() if not line.lstrip().startswith("#"))
    assert re.search(r"np\.array\(\[\s*-f\[0\]", code) and "-np.array(" not in code, forward


def _list_shadow_then_rows(A, p):
    """Found by the numpy fuzzer (seed 1140): the adjoint of max(ys) writes into ys's shadow, a list popped from
    a tape, and the rows' adjoint loop below adds into d_A element by element (targets.numba.by_element)."""
    acc = np.zeros(4)
    for i in range(A.shape[0]):
        r = A[i]
        acc = 0.5 * acc + np.square(r)
    for j in range(0, 3, 2):
        p = A[(j + 1) % 2, (j + 1) % 4]
        ys = []
        for k in range(1):
            ys.append(np.min(A))
        p -= max(ys)
    return p + np.mean(acc)


def test_a_write_into_a_list_popped_from_a_tape_is_kept():
    """The write d_ys[t] += ... into a list popped from a tape, dead as a variable after it, was removed by the
    dead-code elimination Numba ran when it inlined the by-element loop's helper (inline="always"): A's
    gradient lost min(A)'s -1, silently.  The python target's gradient and central differences."""
    A = np.array([[-0.16, 0.24, -0.97, 0.26], [0.91, 1.37, -0.89, -0.11]])
    got = adcompiler.differentiate(_list_shadow_then_rows, wrt="A", backend="numba").grad(A, 0.3)
    want = adcompiler.differentiate(_list_shadow_then_rows, wrt="A").grad(A, 0.3)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    np.testing.assert_allclose(got, central_grad(_list_shadow_then_rows, (A, 0.3), 0), rtol=1e-6, atol=1e-8)


def test_a_field_of_two_vectors_is_numbers():
    """charged_field of a vector of two: its arrays of two numbers are numbers (lower.small_arrays; not the last
    line's, which meets a matrix), the python target's numbers to rounding (its norms math.hypot's), forward against
    reverse."""
    x, w = np.array([0.3, 7.5]), 0.7
    d, python = adcompiler.differentiate(F.charged_field, backend="numba"), adcompiler.differentiate(F.charged_field)
    g = d.grad(x, w)
    for k, (got, want) in enumerate(zip(g, python.grad(x, w))):
        np.testing.assert_allclose(got, want, rtol=1e-13)
        np.testing.assert_allclose(got, central_grad(F.charged_field, (x, w), k), rtol=1e-6)
    tangent = (np.array([1.0, -1.0]), 0.5)
    assert d.jvp((x, w), tangent) == pytest.approx(python.jvp((x, w), tangent), rel=1e-13)
    assert d.jvp((x, w), tangent)[1] == pytest.approx(float(g[0] @ tangent[0] + g[1] * tangent[1]), rel=1e-12)
    code = [line for line in inspect.getsource(compiled(d).py_func).splitlines() if not line.lstrip().startswith("#")]
    assert not any("np.array([10.0" in line or "norm" in line for line in code) and type(g[0]) is np.ndarray, code


def test_scipy_special_of_numbers_compiled_from_math():
    """The stand-ins compiled code calls for scipy.special's multigammaln and gammaln of numbers are compiled
    (math.lgamma, no object mode: 12 us of Python a call in gmm's gradient): SciPy's values to rounding, its
    ValueError where a <= (d - 1) / 2; gammaln of an array still calls SciPy in object mode."""
    import scipy.special
    from adcompiler.targets.numba.library import in_object_mode

    multi, lgam = in_object_mode(scipy.special.multigammaln), in_object_mode(scipy.special.gammaln)

    @numba.njit
    def both(a, d, x):
        return multi(a, d), lgam(x)

    @numba.njit
    def of_array(x):
        return lgam(x)

    for a, d, x in [(2.5, 3, 0.3), (7.25, 12, -2.5), (40.0, 1, 17.0), (0.75, 2, 1e-3)]:
        m, g = both(a, d, x)
        assert m == pytest.approx(scipy.special.multigammaln(a, d), rel=1e-14, abs=1e-15)
        assert g == pytest.approx(scipy.special.gammaln(x), rel=1e-14)
    with pytest.raises(ValueError, match="condition a > 0.5"):  # (SciPy's says "a (1.0) > 0.5": compiled)
        both(1.0, 4, 0.5)
    xs = np.array([0.5, 2.0, 7.5])
    np.testing.assert_array_equal(of_array(xs), scipy.special.gammaln(xs))


@SLOW
def test_writes_and_reads_at_arrays_of_coordinates():
    """Q[rows, cols] = lk with rows, cols from np.triu_indices (GradBench gmm), both modes and second
    order, against the python backend and central differences."""
    qk, lk = np.array([0.1, -0.3, 0.2, 0.4]), np.array([0.5, -0.1, 0.3, 0.2, -0.4, 0.6])
    w = np.random.default_rng(5).normal(size=(4, 4))
    d, python = numba_d(F.lower_triangular, wrt=("qk", "lk")), derivative(F.lower_triangular, wrt=("qk", "lk"))
    g_qk, g_lk = d.grad(qk, lk, w)
    p_qk, p_lk = python.grad(qk, lk, w)
    assert np.allclose(g_qk, p_qk, rtol=1e-13, atol=1e-15) and np.allclose(g_lk, p_lk, rtol=1e-13, atol=1e-15)
    assert np.allclose(g_lk, central_grad(F.lower_triangular, (qk, lk, w), 1), rtol=1e-7)
    u, v = np.array([1.0, 0.5, -0.5, 2.0]), np.linspace(-1.0, 1.0, 6)
    assert d.jvp((qk, lk, w), (u, v))[1] == pytest.approx(float(g_qk @ u + g_lk @ v), rel=1e-12)
    assert "write_at" in inspect.getsource(compiled(d).py_func)


@pytest.mark.slow  # writes: the writes row of tests/test_numba_agrees.py by default
def test_a_place_written_twice_keeps_the_last_value_and_its_cotangent():
    v, x = np.array([1.5, -2.0, 0.7]), 0.3
    d, python = numba_d(F.written_twice), derivative(F.written_twice)
    assert d(v, x) == pytest.approx(F.written_twice(v, x), rel=1e-15)
    g_v, g_x = d.grad(v, x)
    p_v, p_x = python.grad(v, x)
    assert np.allclose(g_v, p_v, rtol=1e-14) and g_x == pytest.approx(p_x, rel=1e-14)
    assert np.allclose(g_v, central_grad(F.written_twice, (v, x), 0), rtol=1e-7)


@pytest.mark.slow
def test_the_diagonal_of_a_matrix():
    M = np.arange(9.0).reshape(3, 3) / 7.0
    g = numba_d(F.diagonal_of).grad(M)
    assert np.allclose(g, derivative(F.diagonal_of).grad(M), rtol=1e-14)
    assert np.allclose(g, central_grad(F.diagonal_of, (M,), 0), rtol=1e-7)


@pytest.mark.slow
def test_a_loop_accumulator_of_an_array_adds_in_place():
    """d_w = d_w + e in the adjoint loop is d_w += e (no array of w's shape made each iteration), with the
    python backend's gradient."""
    w, X = np.array([0.3, -0.5, 0.8]), np.random.default_rng(6).normal(size=(6, 3))
    d = numba_d(F.rows_weighted, wrt=("w",))
    assert np.allclose(d.grad(w, X), derivative(F.rows_weighted, wrt=("w",)).grad(w, X), rtol=1e-13, atol=0)
    assert np.allclose(d.grad(w, X), central_grad(F.rows_weighted, (w, X), 0), rtol=1e-7)
    assert re.search(r"\bd_w\w* \+= ", inspect.getsource(compiled(d).py_func))


@pytest.mark.parametrize(
    "body, in_place",
    [
        ("d = zeros_like(x)\nfor i in range(3):\n    d = d + e\nreturn d", True),
        ("d = zeros_like(x)\nfor i in range(3):\n    d = d + e\n    y = d\nreturn y", False),  # read in the loop
        ("d = zeros_like(x)\nd = d + e\ny = d\nd = d + e\nreturn y", False),  # read before the last sum
        ("d = zeros_like(x)\nd = e\nd = d + e\nreturn d", False),  # bound to another array
        ("d = zeros_like(x)\nd = d + d * e\nreturn d", False),  # the sum reads d itself
        ("d = zeros_like(x)\nfor i in numba.prange(3):\n    d = d + e\nreturn d", False),  # Numba's reduction
        # scatter_add(d, ...) adds into d itself (or makes a new array): det's d_A at each level
        ("d = zeros_like(x)\nfor i in range(3):\n    d = d + e\n    d = scatter_add(d, x, i, 1.0)\nreturn d", True),
        ("d = zeros_like(x)\nfor i in range(3):\n    d = d + e\n    y = scatter_add(d, x, i, 1.0)\nreturn y", False),
        ("d = zeros_like(x)\nfor i in range(3):\n    d = d + e\n    d = other(d, x, i, 1.0)\nreturn d", False),
    ],
)
def test_accumulators_added_in_place_only_where_nothing_else_holds_them(body, in_place):
    from adcompiler.targets.numba.in_place import added_in_place

    function = ast.parse("def f(x, e):\n" + textwrap.indent(body, "    ")).body[0]
    added_in_place(function, {"d"}, {"scatter_add"})
    assert ("d += " in ast.unparse(function)) == in_place


@pytest.mark.parametrize(
    "body, into",
    [
        ("d = zeros_like(x)\nfor i in range(3):\n    d = scatter_add(d, x, i, e)\nreturn d", True),
        ("d = zeros_like(x)\nfor i in range(3):\n    d = scatter_add(d, x, i, e)\n    y = d\nreturn y", False),
        ("d = zeros_like(x)\nfor i in range(3):\n    d = scatter_add(d, x, i, d[0])\nreturn d", False),  # g reads d
        ("d = zeros_like(x)\nd = e\nd = scatter_add(d, x, 0, e)\nreturn d", False),  # bound to another array
        ("d = zeros_like(x)\nfor i in range(3):\n    y = scatter_add(d, x, i, e)\nreturn y", False),
    ],
)
def test_scatter_adds_into_an_owned_accumulator_add_into_it_itself(body, into):
    """``d = scatter_add(d, x, index, g)`` of an accumulator the function made zeros of its array's shape,
    which nothing else holds, is ``d = scatter_into(d, x, index, g)``: no test for another shape, no array."""
    from adcompiler.targets.numba.in_place import added_in_place

    function = ast.parse("def f(x, e):\n" + textwrap.indent(body, "    ")).body[0]
    added_in_place(
        function, {"d"}, {"scatter_add"}, into=lambda args: ast.Call(ast.Name("scatter_into", ast.Load()), args, [])
    )
    assert ("scatter_into(d, x" in ast.unparse(function)) == into


@pytest.mark.parametrize(
    "body, unwrapped",
    [
        (
            "d = zeros_like(x)\nd = scatter_add(d, x, 0, e)\nd = g_reverse_sweep(r, e, array_like(d, x))\nreturn array_like(d, x)",
            2,
        ),
        ("d = zeros_like(x)\nd = d + e\nreturn array_like(d, x)", 1),
        ("d = zeros_like(x)\nd = e\nreturn array_like(d, x)", 0),  # bound to another array: its shape not known
        ("d = zeros_like(x)\ny = array_like(d, x)\nd = d + e\nreturn d", 0),  # read before its last sum
    ],
)
def test_array_like_of_an_accumulator_added_into_in_place_is_the_accumulator(body, unwrapped):
    """``array_like(d, x)`` of an accumulator added into in place (zeros of x's shape, or its caller's) is ``d``:
    the call that tests the shape goes (det's ``d_A``, handed down and returned at each level)."""
    from adcompiler.targets.numba.in_place import added_in_place

    function = ast.parse("def f(x, e, r):\n" + textwrap.indent(body, "    ")).body[0]
    before = ast.unparse(function).count("array_like(")
    into = lambda args: ast.Call(ast.Name("scatter_into", ast.Load()), args, [])  # noqa: E731
    added_in_place(function, {"d"}, {"scatter_add"}, {"array_like"}, into)
    assert before - ast.unparse(function).count("array_like(") == unwrapped, ast.unparse(function)


@pytest.mark.parametrize(
    "body, links",
    [
        ("a = scatter_add(0.0, x, 0, e)\nb = scatter_add(a, x, 1, e)\nc = scatter_add(b, x, 0, e)\nreturn c", 2),
        ("a = scatter_add(e, x, 0, e)\ny = e * 2\nb = scatter_add(a, x, 1, y)\nreturn b", 1),  # a line between
        ("a = scatter_add(0.0, x, 0, e)\nx = e\nb = scatter_add(a, x, 1, e)\nreturn b", 0),  # x bound again
        ("a = scatter_add(0.0, x, 0, e)\nb = scatter_add(a, e, 1, e)\nreturn b", 0),  # another array
        ("a = scatter_add(0.0, x, 0, e)\nb = scatter_add(a, x, 1, e)\nreturn a + b", 0),  # a read again
        ("a = scatter_add(0.0, x, 0, e)\nb = scatter_add(a, x, 1, a[0])\nreturn b", 0),  # g reads a
        ("a = scatter_add(0.0, x, 0, e)\nif e:\n    b = scatter_add(a, x, 1, e)\nreturn b", 0),  # another block
        ("for i in x:\n    a = scatter_add(0.0, x, i, e)\n    b = scatter_add(a, x, 1, e)\n    e = b", 1),
    ],
)
def test_a_chain_of_scatters_of_one_array_adds_into_its_own_result(body, links):
    """``b = scatter_add(a, x, ...)`` of ``a``, a scatter of the same x in the same block read by nothing else,
    is ``scatter_into``: a scatter's result has x's shape (det, particle, ba: an array's elements read one by one)."""
    from adcompiler.targets.numba.in_place import chained_in_place

    function = ast.parse("def f(x, e):\n" + textwrap.indent(body, "    ")).body[0]
    into = lambda args: ast.Call(ast.Name("scatter_into", ast.Load()), args, [])  # noqa: E731
    chained_in_place(function, {"scatter_add"}, into, "scatter_into")
    assert ast.unparse(function).count("scatter_into(") == links


def test_a_slice_of_a_list_of_lists_is_refused_at_its_line():
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as refused:
        numba_d(F.rows_sliced).grad([[1.0, 2.0], [3.0, 4.0]], 0.5)
    line = inspect.getsourcelines(F.rows_sliced)[1] + 2
    assert f"numba_funcs.py:{line}:" in str(refused.value) and "a slice of a list of lists" in str(refused.value)
    assert 'backend="python"' in str(refused.value)


def test_lists_of_lists_joined_are_refused_at_their_line():
    """Joining rows would copy what Python's lists share: left to backend="python", said at the line."""
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as refused:
        numba_d(F.rows_joined).grad([[1.0, 2.0]], [[3.0, 4.0]])
    assert "numba_funcs.py:" in str(refused.value) and 'backend="python"' in str(refused.value)


def test_a_draw_is_refused_at_its_line():
    """Compiled code draws from Numba's own generator, which np.random.seed does not reach and which the
    passes of a Jacobian cannot restart: refused at the draw, in every entry point."""
    d = adcompiler.differentiate(F.scaled_by_a_draw, backend="numba")
    line = inspect.getsourcelines(F.scaled_by_a_draw)[1] + 1
    calls = [lambda: d.vjp(([1.0, 2.0],), (1.0, 0.0)), lambda: d.jvp(([1.0, 2.0],), ([1.0, 0.0],))]
    calls += [lambda: adcompiler.jacobian(d, mode=mode)([1.0, 2.0]) for mode in ("forward", "reverse")]
    for call in calls:
        with pytest.raises(adcompiler.UnsupportedSyntaxError) as refused:
            call()
        assert f"numba_funcs.py:{line}:" in str(refused.value) and "np.random.rand" in str(refused.value)
        assert 'backend="python"' in str(refused.value)


@pytest.mark.slow
def test_reverse_jacobian_rows_by_compiled_vjps():
    """The reverse Jacobian under Numba: one compiled vjp per output number, against autograd's, on
    later calls with other values too, and through the checking path for other kinds of arguments."""
    d = numba_d(F.rotate_by_quaternion)
    jac = adcompiler.jacobian(d, mode="reverse")

    def expected(v, q):
        flat = lambda a: anp.array(F.rotate_by_quaternion(a[:3], a[3:]))  # noqa: E731
        return autograd.jacobian(flat)(np.array(list(v) + list(q), dtype=float))

    for v, q in [([1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]), ([0.5, -1.0, 0.25], [0.1, -0.2, 0.3, 0.9])]:
        assert np.allclose(jac(v, q), expected(v, q), rtol=1e-12)
    v, q = (0.5, -1.0, 0.25), [0.1, -0.2, 0.3, 0.9]  # a tuple where the first call had a list
    assert np.allclose(jac(v, q), expected(v, q), rtol=1e-12)
    v, q = [1, 2, 3], [4.0, 5.0, 6.0, 7.0]  # integers: the checking path, as under backend="python"
    assert np.array_equal(jac(v, q), adcompiler.jacobian(F.rotate_by_quaternion, mode="reverse")(v, q))


def test_a_variable_whose_ndim_grows_in_a_loop_is_refused_with_its_reason():
    """x of shape (5,) times a (3, 5) array in a loop: a 1-d then a 2-d array in one variable, which
    compiled code cannot hold; refused at the loop, saying so."""
    d = numba_d(F.grows_in_a_loop)
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as refused:
        d.grad(np.ones(5), np.ones((3, 5)))
    message = str(refused.value)
    assert "numba_funcs.py:" in message and "arrays of two ndims" in message and 'backend="python"' in message


def test_an_integer_matrix_product_is_refused_saying_what_to_write():
    """An integer matrix times a float vector: Numba's @ takes one float dtype, so the derivative is refused at
    the product's line with the cast to write, not Numba's "No implementation of function _impl"."""
    x, A = np.array([0.3, -0.2, 0.5]), np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as refused:
        numba_d(F.laplacian_form, wrt=("x",)).grad(x, A)
    message = str(refused.value)
    line = inspect.getsourcelines(F.laplacian_form)[1] + 3
    assert f"numba_funcs.py:{line}:" in message and "A.astype(np.float64)" in message, message
    assert "No implementation" not in message and "int64 and float64" in message
    W, xs = np.eye(3, dtype=np.float32) * 0.5, np.ones((4, 3), dtype=np.float32)
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as refused:  # (no integer array: say which dtypes)
        numba_d(F.rnn_of_two_dtypes).grad(W, xs)
    message = str(refused.value)
    assert "float32 and float64" in message and "integer" not in message and "h.astype(W.dtype)" in message, message


def test_reverse_mode_of_a_list_of_array_and_number_tuples_is_refused_not_out_of_memory():
    """Reverse mode of ``out.append((h, x[t]))`` made a shadow list of an array and a number, on which Numba's
    type inference took all the memory there was (the process was killed); now refused at the user's line.
    Forward mode (tangents in tuples) compiles, and agrees with the python target."""
    x = np.array([0.5, -1.0, 2.0])
    d = numba_d(F.tuples_of_array_and_number)
    with pytest.raises(
        adcompiler.UnsupportedSyntaxError, match=r"numba_funcs\.py:\d+:\d+: reverse mode of a list of tuples"
    ):
        d.grad(x)
    value, tangent = d.jvp((x,), (np.ones(3),))
    want = derivative(F.tuples_of_array_and_number).jvp((x,), (np.ones(3),))
    assert value == pytest.approx(want[0]) and tangent == pytest.approx(want[1])


def test_builtin_sum_of_a_vector_times_a_number():
    """sum(d) * 2.0 of a vector d: its adjoint spreads a number along the vector's one axis, which the Numba helper
    refused (no overload for an axis and a number); against the python target and analytic values."""
    x, c = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    gx, gc = numba_d(F.builtin_sum_scaled).grad(x, c)
    np.testing.assert_allclose(gx, 2.0 * c, rtol=1e-14)
    np.testing.assert_allclose(gc, 2.0 * x, rtol=1e-14)


@pytest.mark.parametrize("kind", [list, tuple])
def test_a_list_of_weight_matrices_gets_its_gradient(kind):
    """``for W in Ws`` of a list (or tuple) of matrices differentiated in Ws: its shadow was a tuple in compiled
    code, into which ``d_Ws[k] += d_W`` could not write ("a write into a tuple"); now a list of zeros.  Against
    the python target and central differences; the cotangent in the argument's structure."""
    rng = np.random.default_rng(3)
    Ws, x = kind(rng.standard_normal((3, 3)) * 0.5 for _ in range(3)), rng.standard_normal(3)
    g_Ws, g_x = numba_d(F.mlp_of_a_weight_list).grad(Ws, x)
    want_Ws, want_x = derivative(F.mlp_of_a_weight_list).grad(Ws, x)
    assert type(g_Ws) is kind and len(g_Ws) == 3
    for got, want in zip(g_Ws, want_Ws):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(g_x, want_x, rtol=1e-12)
    np.testing.assert_allclose(g_x, central_grad(F.mlp_of_a_weight_list, (Ws, x), 1), rtol=1e-6)


def test_dot_shadows_made_without_zeros_where_every_element_is_stored_first():
    """dot's shadows are ``numpy.empty`` (the slice copies store every element before any read) and
    the elements no copy stores are zeros: the same gradients as the python backend's."""
    d = numba_d(F.dot)
    for xs, ys in [([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]), ([1.0, 2.0], [4.0, 5.0, 6.0]), ([0.5], [2.0, -1.0])]:
        assert d.grad(xs, ys) == derivative(F.dot).grad(xs, ys)
    source = inspect.getsource(compiled(d).py_func)
    assert "numpy.zeros" not in source and source.count("numpy.empty(") == 2


@pytest.mark.parametrize(
    "between, store, empty",
    [
        ("check_index(d, n - 1)", "d[:n] = v", True),
        ("", "d[:n] = v", True),
        ("t = d[0]", "d[:n] = v", False),  # an element read before the store
        ("", "d[:n] = d[::-1]", False),  # the store reads d itself
        ("", "d[1:n] = v", False),  # d[0] never stored
        ("g(d)", "d[:n] = v", False),  # a call that may read it
    ],
)
def test_which_shadows_are_made_without_zeros(between, store, empty):
    import ast
    from adcompiler.targets.numba.empty import empty_shadows

    source = f"def f(xs, v):\n    d = numpy.zeros(len(xs))\n    n = len(xs)\n    if n > 0:\n        {between or 'pass'}\n        {store}\n    return d\n"
    function = ast.parse(source).body[0]
    empty_shadows(function, "numpy", "check_index", ("zeros_rows", "empty_rows"))
    text = ast.unparse(function)
    assert ("numpy.empty(len(xs))" in text and "d[n:] = 0.0" in text) is empty
    assert ("numpy.zeros(len(xs))" in text) is not empty


_ROWS = """def f(M, v):
    d_M = zeros_rows(M)
    t1 = len(M)
    if t1 > 0:
        t2 = len(v)
        for i in range(t1):
            if t2 > 0:
                row = M[i]
                d_row = d_M[i]
                BETWEEN
                if t2 > 0:
                    check_index(d_row, t2 - 1)
                    STORE
                AFTER
    return d_M
"""


@pytest.mark.parametrize(
    "change, empty",
    [
        ({}, True),
        ({"for i in range(t1):": "for i in range(t1 - 1, -1, -1):"}, True),  # counting down: every row too
        ({"BETWEEN": "t = d_row[0]"}, False),  # read before the store
        ({"AFTER": "t = d_M[0][0]"}, False),  # another row, which a later iteration stores
        ({"STORE": "d_row[1:t2] = v"}, False),  # d_row[0] never stored
        ({"STORE": "d_row[:t2] = d_row[::-1]"}, False),  # the store reads the row itself
        ({"for i in range(t1):": "for i in range(t1 - 1):"}, False),  # the last row never stored
        ({"t1 = len(M)": "t1 = len(v)"}, False),  # not the number of rows
        ({"        t2 = len(v)\n": "", "AFTER": "t2 = len(v)"}, False),  # t2 set in the loop: may change
        ({"d_M = zeros_rows(M)": "d_M = zeros_rows(M)\n    g(d_M)"}, False),  # a call that may read it
        (
            {
                "            if t2 > 0:\n                row": "            if v[i] > 0.0:\n                continue\n            if t2 > 0:\n                row"
            },
            False,
        ),
    ],
)
def test_which_shadow_rows_are_made_without_zeros(change, empty):
    import ast
    from adcompiler.targets.numba.empty import empty_shadows

    source = _ROWS
    for old, new in {"BETWEEN": "pass", "AFTER": "pass", "STORE": "d_row[:t2] = v", **change}.items():
        source = source.replace(old, new)
    function = ast.parse(source).body[0]
    assert empty_shadows(function, "numpy", "check_index", ("zeros_rows", "empty_rows")) is empty
    text = ast.unparse(function)
    assert ("d_M = empty_rows(M)" in text and "d_row[t2:] = 0.0" in text and "d_M_row[:] = 0.0" in text) is empty


def test_a_shadow_is_kept_zeros_where_the_length_may_be_negative_or_set_twice():
    import ast
    from adcompiler.targets.numba.empty import empty_shadows

    for head in ("n = len(xs) - 2", "n = len(xs)\n    n = n - 2"):
        source = (
            f"def f(xs, v):\n    d = numpy.zeros(len(xs))\n    {head}\n    if n > 0:\n        d[:n] = v\n    return d\n"
        )
        function = ast.parse(source).body[0]
        empty_shadows(function, "numpy", "check_index", ("zeros_rows", "empty_rows"))
        assert "numpy.empty" not in ast.unparse(function)


def test_a_sum_of_products_is_summed_without_the_array_of_them():
    """``sum_all(a * b)`` and ``(a * b).sum()`` of the derivative code are ``sum_product(a, b)`` under Numba:
    for two float64 vectors of one length a loop (the sum Numba's makes of the products, in the same order);
    broadcasting, other arrays and numbers as before."""
    from adcompiler.targets.numba.live import sum_product
    from adcompiler.targets.numba.fewer_arrays import _summed_product

    @numba.njit
    def summed(a, b):
        return sum_product(a, b)

    @numba.njit
    def numbas(a, b):
        return np.sum(a * b)

    rng = np.random.default_rng(8)
    x, y = rng.normal(size=9), rng.normal(size=9)
    assert summed(x, y) == numbas(x, y)  # (bit for bit: the same products added in the same order)
    assert summed(x[::2], y[::2]) == numbas(x[::2], y[::2])  # (strided views)
    assert summed(x, y[:1]) == pytest.approx(float(np.sum(x * y[0])), rel=1e-14)  # (broadcast from length 1)
    assert summed(x, 2.0) == pytest.approx(2.0 * np.sum(x), rel=1e-14)
    M = rng.normal(size=(3, 4))
    assert summed(M, M) == pytest.approx(float(np.sum(M * M)), rel=1e-14)
    assert summed(1.5, 2.0) == 3.0
    with pytest.raises(ValueError):
        summed(x, y[:4])
    for text, found in (
        ("sum_all(a * b)", True),
        ("(a * b).sum()", True),
        ("sum_all(a + b)", False),
        ("f(a * b)", False),
    ):
        assert (_summed_product(ast.parse(text, mode="eval").body, {"sum_all"}) is not None) == found


@pytest.mark.parametrize(
    "i, j",
    [
        (slice(None, 2), slice(3, None)),  # det's cols[:j] + cols[j + 1:]
        (slice(None, 0), slice(1, None)),
        (slice(None, 4), slice(5, None)),  # (the second empty)
        (slice(1, None, 2), slice(None, None, -1)),
        (slice(-2, None), slice(None, -3)),
        (slice(3, 1), slice(4, 2)),  # (both empty)
    ],
)
def test_two_slices_of_lists_joined_at_once_as_python_joins_them(i, j):
    """``join_parts(a, i, b, j)``, the Numba target's ``a[i] + b[j]`` made as one new list (or array, where the
    lists are arrays in compiled code): Python's elements, in Python's order, of the same kind, for slices with
    steps, negative bounds and empty parts; and det's gradient through it against the cofactor matrix."""
    from adcompiler.targets.numba.live import join_parts

    @numba.njit
    def joined(a, i, b, j):
        return join_parts(a, i, b, j)

    @numba.njit
    def listed(n, i, j):
        a = list(range(n))
        return joined(a, i, a, j)

    xs = [0, 1, 2, 3, 4]
    assert list(listed(5, i, j)) == xs[i] + xs[j]
    floats = np.array([0.5, 1.5, 2.5, 3.5, 4.5])
    got = joined(floats, i, np.arange(5), j)
    assert got.dtype == np.float64 and list(got) == list(floats[i]) + list(np.arange(5.0)[j])
    assert joined(np.arange(5), i, np.arange(5), j).dtype == np.int64

    A = np.random.default_rng(4).normal(size=(4, 4))
    d = numba_d(callee_into_funcs.det)  # (GradBench det, the eval's)
    np.testing.assert_allclose(d.grad(A), np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-10, atol=1e-12)
    onto = compiled(d).py_func.__globals__["det_of_minor_A_forward_sweep_onto"]  # (a level of the recursion)
    assert "join_parts(cols, " in inspect.getsource(onto.py_func), inspect.getsource(onto.py_func)
