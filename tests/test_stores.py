"""The gradient passes of optimize/bounds.py and optimize/stores.py: the rewritten gradients agree
with autograd on the same programs (and with the reverse vjp, which neither pass touches), their
cotangents are lists of floats, stores appear only where an element gets one contribution, and a
gradient raises where its primal raises."""

import inspect
import re
import types

import autograd
import autograd.numpy as anp
import pytest

import adcompiler
from adcompiler.optimize import bounds, stores
from tests import store_funcs as S

ROW = [0.3, -1.2, 0.7, 2.1, -0.4]
CASES = {
    "dot": (S.dot, ([1.5, -2.0, 0.25, 3.0], [0.5, 1.0, -1.5, 2.0]), (0, 1)),
    "square_sum": (S.square_sum, (list(ROW),), (0,)),
    "twice_over": (S.twice_over, (list(ROW),), (0,)),
    "two_loops": (S.two_loops, (list(ROW),), (0,)),
    "neighbours": (S.neighbours, (list(ROW),), (0,)),
    "mat_vec": (S.mat_vec, ([list(ROW), [r * 0.5 for r in ROW], [1.0] * 5], list(ROW)), (0, 1)),
    "mat_vec_shared_rows": (S.mat_vec, ([ROW, ROW], ROW), (0, 1)),  # one list object everywhere
    "scaled_by_ints": (S.scaled_by_ints, ([0.5, 1.5, -2.0], [3, -1, 2]), (0,)),
    "strided": (S.strided, (list(ROW),), (0,)),
    "branchy": (S.branchy, (list(ROW), [1.0, 2.0, 3.0, 4.0, 5.0]), (0, 1)),
    "while_rows": (S.while_rows, ([list(ROW), list(ROW)], list(ROW)), (0, 1)),
    "overwritten_then_read": (S.overwritten_then_read, (list(ROW), [1.0, -2.0, 0.5, 3.0, 0.25]), (0, 1)),
    "copy_and_accumulate": (S.copy_and_accumulate, ([list(ROW), [r * 0.5 for r in ROW]], list(ROW)), (0, 1)),
    "copy_and_accumulate_shared": (S.copy_and_accumulate, ([ROW, ROW], ROW), (0, 1)),  # one list object
    "copies_from_an_offset": (S.copies_from_an_offset, (list(ROW), [1.0, -2.0, 0.5, 3.0, 0.25, 4.0]), (0, 1)),
}


def _on_autograd(fn):
    """``fn`` reading autograd's NumPy where it reads ``math`` (math.sin cannot take autograd's boxes)."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "math": anp}, fn.__name__)


def _copy(x):
    return [_copy(e) for e in x] if isinstance(x, list) else x


def _close(got, want):
    if isinstance(want, (list, tuple)):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    else:
        assert type(got) is float, f"{got!r} is a {type(got).__name__}, not a float"
        assert got == pytest.approx(float(want), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("name", CASES)
def test_gradient_matches_autograd_and_vjp(name):
    fn, args, wrt = CASES[name]
    params = list(inspect.signature(fn).parameters)
    f = adcompiler.differentiate(fn, wrt=tuple(params[i] for i in wrt))
    got = f.grad(*args)
    got = got if len(wrt) > 1 else (got,)
    for g, i in zip(got, wrt):
        _close(g, autograd.grad(_on_autograd(fn), i)(*_copy(args)))
    _, by_vjp = f.vjp(args, 1.0)
    assert len(by_vjp) == len(got) == len(wrt)
    for g, v in zip(got, by_vjp):
        _close(g, v)


def _grad_source(name):
    fn, args, _ = CASES[name]
    f = adcompiler.differentiate(fn)
    f.grad(*args)
    return f.source("grad")


@pytest.mark.parametrize("name", ["dot", "mat_vec"])
def test_one_contribution_is_a_store(name):
    text = _grad_source(name)
    assert re.search(r"d_\w+\[:?\w+\] = ", text), text
    assert "d_xs[i] +=" not in text and "d_row[j] +=" not in text, text


@pytest.mark.parametrize("name", ["square_sum", "twice_over", "two_loops", "neighbours", "strided", "while_rows"])
def test_several_contributions_stay_added(name):
    text = _grad_source(name)
    assert not re.search(r"d_xs\[\w+\] = ", text), text


def test_seed_folded_where_the_factor_is_a_float():
    assert "* d_s" not in _grad_source("dot")
    text = _grad_source("scaled_by_ints")  # ks[i] * 1.0 is a float, ks[i] is not
    assert "ks[i] * 1.0" in text or "+=" in text, text


def test_dot_checks_only_its_last_index():
    text = _grad_source("dot")
    assert "xs[t1 - 1]" in text and "for i in range(t1)" not in text, text
    with pytest.raises(IndexError):
        S.dot([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(IndexError):  # the gradient fails where its primal fails
        adcompiler.differentiate(S.dot).grad([1.0, 2.0, 3.0], [1.0, 2.0])


def test_element_copies_become_slice_copies():
    """dot's adjoint loop copies ys into d_xs and xs into d_ys: two slice copies and no loop, which
    still raise IndexError where the loop would."""
    text = _grad_source("dot")
    assert "d_xs[:t1] = ys if len(ys) == t1 else ys[:t1]" in text and "d_ys[:t1] = xs if" in text, text
    assert "for i in reversed" not in text, text
    f = adcompiler.differentiate(S.dot_rows)  # the row's copy leaves the loop; d_v's sum stays in it
    f.grad([[0.5, -1.0], [2.0, 0.25]], [1.5, -0.5])
    text = f.source("grad")
    assert re.search(r"d_row\[:\w+\] = v if len\(v\) == ", text) and "d_v[j] +=" in text, text
    with pytest.raises(IndexError):
        adcompiler.differentiate(S.dot).grad([1.0, 2.0, 3.0], [1.0, 2.0, 5.0, 6.0][:2])


def test_no_copy_where_the_source_changes_in_the_loop():
    """The reverse loop puts back ys[i] before reading it: a slice taken before the loop would read
    the doubled values."""
    text = _grad_source("overwritten_then_read")
    assert not re.search(r"\[:\w+\] = ", text), text


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_seed_times_an_array_is_a_copy(dtype):
    """np.dot's adjoints with the seed 1.0 folded: copies of the other vector, of its dtype, never the
    argument itself (a caller may change a gradient in place), and two even for dot(x, x)."""
    import numpy as np

    x, y = np.array([1.5, -2.0, 0.25], dtype=dtype), np.array([0.5, 1.0, -1.5], dtype=dtype)
    f = adcompiler.differentiate(S.dot_np)
    gx, gy = f.grad(x, y)
    assert "ys.copy()" in f.source("grad"), f.source("grad")
    assert gx.dtype == gy.dtype == np.dtype(dtype) and gx is not y and gy is not x
    assert np.array_equal(gx, y) and np.array_equal(gy, x)
    gx, gy = f.grad(x, x)
    assert gx is not gy and gx is not x and np.array_equal(gx, x) and np.array_equal(gy, x)


def test_index_read_after_the_loop_keeps_the_loop():
    """Generated code reading the loop's index afterwards (user code may not) keeps the loop."""
    from adcompiler.ir.nodes import INDEX, Assign, Def, ForS, Ret
    from adcompiler.ir import expr as E

    read = Assign(("t",), E.Subscript(E.Name("xs"), E.Name("i")), 1, INDEX)
    loop = ForS("i", E.Call("range", (E.Name("n"),)), (read,))
    kept = Def("f", ("xs", "n"), (), (loop, Ret(E.Name("i"))))
    assert bounds.hoist_index_checks(kept) is kept
    dropped = bounds.hoist_index_checks(Def("f", ("xs", "n"), (), (loop, Ret(E.Num(0.0)))))
    assert not any(isinstance(s, ForS) for s in dropped.body)


def test_passes_leave_other_code_alone():
    """A function without loops or shadow lists comes back the same object."""
    from adcompiler.ir.nodes import Assign, Def, Ret
    from adcompiler.ir import expr as E

    d = Def("f", ("x",), (), (Assign(("y",), E.Name("x") * E.Name("x")), Ret(E.Name("y"))))
    assert bounds.hoist_index_checks(d) is d
    assert stores.fold_seed_and_stores(d, {}) is d


def test_accumulator_that_is_one_wherever_read_is_folded():
    """sum_mat_vec's d_r is 0.0 where each row starts and 1.0 after d_r += 1.0: read as 1.0."""
    fn, args = S.dot_rows, ([[0.5, -1.0], [2.0, 0.25]], [1.5, -0.5])
    f = adcompiler.differentiate(fn)
    got = f.grad(*args)
    want = [autograd.grad(fn, i)(*_copy(args)) for i in (0, 1)]
    for g, w in zip(got, want):
        _close(g, w)
    text = f.source("grad")
    assert not re.search(r"\bd_r\b", text[text.index("def dot_rows_grad") :]), text


def test_constants_are_not_confused_across_a_loop():
    """An accumulator 1.0 on the first iteration and 2.0 on the next is no constant."""
    fn, args = S.growing_seed, ([0.5, -1.0, 2.0],)
    got = adcompiler.differentiate(fn).grad(*args)
    assert got == [3.0, 2.0, 1.0]  # xs[i] counts once per later iteration: len(xs) - i
    _close(got, autograd.grad(fn)(*_copy(args)))


@pytest.mark.parametrize("fn", [S.breaks_with_a_constant, S.while_with_a_constant])
@pytest.mark.parametrize("xs", [[0.2, 0.9, 0.1], [0.1, 0.2, 0.3]])
def test_constants_are_not_carried_past_a_break(fn, xs):
    got = adcompiler.differentiate(fn).grad(list(xs))
    assert len(got) == len(xs)
    _close(got, autograd.grad(fn)(_copy(xs)))


def test_a_shadow_assigned_twice_keeps_its_additions():
    """Generated code never assigns a shadow twice, but if it did the writes would not be first ones."""
    from adcompiler.ir import expr as E
    from adcompiler.ir.nodes import Assign, AugAssign, Def, ForS, Ret

    zeros = E.BinOp("*", E.List((E.Num(0.0),)), E.Call("len", (E.Name("xs"),)))
    write = AugAssign(E.Subscript(E.Name("d"), E.Name("i")), "+", E.Subscript(E.Name("xs"), E.Name("i")))
    loop = ForS("i", E.Call("range", (E.Name("n"),)), (write,))
    body = (Assign(("d",), zeros), Assign(("d",), E.Name("other")), loop, Ret(E.Name("d")))  # d: not fresh
    d = Def("f", ("xs", "n", "other"), (), body)
    out = stores.fold_seed_and_stores(
        d, {"xs": adcompiler.analysis.values.Seq("list", None, adcompiler.analysis.values.FLOAT)}
    )
    assert [s for s in out.body if isinstance(s, ForS)][0].body == (write,)


def test_slice_copy_from_a_longer_list_keeps_each_shadow_its_length():
    """dot of a shorter xs and a longer ys: d_xs is the first len(xs) entries of ys, d_ys is xs then zeros."""
    xs, ys = [1.5, -2.0], [0.5, 1.0, -1.5, 2.0]
    d_xs, d_ys = adcompiler.differentiate(S.dot).grad(xs, ys)
    assert d_xs == [0.5, 1.0] and d_ys == [1.5, -2.0, 0.0, 0.0]
    assert all(type(v) is float for v in d_xs + d_ys) and d_xs is not ys and d_ys is not xs
    d_xs, d_ys = adcompiler.differentiate(S.dot).grad(ys, ys)  # the same list twice: two new lists
    assert d_xs == ys == d_ys and d_xs is not d_ys and d_xs is not ys


def test_jacobian_rows_store_their_one_contribution():
    """Each row copies its shadows into one list (``row_0 = d_v + d_q``): a copy only reads them, so
    the writes before it are first writes, stored as in a gradient."""
    from tests import jacobian_funcs as J

    jac = adcompiler.jacobian(J.rotate, mode="reverse")
    args = ([1.0, -2.0, 0.5], [0.3, 0.4, -0.6, 0.7])
    got = jac(*args)
    d = adcompiler.differentiate(J.rotate)
    text = _rows_text(d, args)
    assert re.search(r"d_v\[0\] = ", text) and not re.search(r"d_v\w*\[\d\] \+= ", text), text
    # straight-line rows are named alike (each row's numbers let go when the next binds the names)
    assert text.count("d_v = [0.0] * len(v)") == 3 and "row_2 = d_v + d_q" in text, text
    rows = [d.vjp(args, [1.0 if j == k else 0.0 for j in range(3)])[1] for k in range(3)]
    assert got.tolist() == [list(v) + list(q) for v, q in rows]


def _rows_text(d, args):
    from adcompiler.compile import emit

    _, sig = d._bound(args)
    built = d.program.build(d.fn, "jacobian", d.wrt, sig)
    return emit.render_module(built, d.program.ns, lambda: d.program.helper_sources(built))


def test_a_shadow_named_again_keeps_its_additions():
    """``r = d`` is a second name to write ``d`` through (``r[0] += x`` before ``d[0] += y``): not a
    copy, so ``d[0] += y`` is no first write; a concatenation ``r = d + e`` is a copy."""
    from adcompiler.ir import expr as E
    from adcompiler.ir.nodes import Assign, AugAssign, Def, Ret

    zeros = E.BinOp("*", E.List((E.Num(0.0),)), E.Call("len", (E.Name("xs"),)))
    first = E.Subscript(E.Name("xs"), E.Num(0))
    avals = {"xs": adcompiler.analysis.values.Seq("list", None, adcompiler.analysis.values.FLOAT)}
    for value, stored in [(E.Name("d"), False), (E.BinOp("+", E.Name("d"), E.Name("e")), True)]:
        late = AugAssign(E.Subscript(E.Name("d"), E.Num(0)), "+", first)
        body = (Assign(("d",), zeros), Assign(("e",), zeros), Assign(("r",), value))
        body += (AugAssign(E.Subscript(E.Name("r"), E.Num(0)), "+", first), late, Ret(E.Name("r")))
        out = stores.fold_seed_and_stores(Def("f", ("xs",), (), body), avals)
        assert (late not in out.body) == stored, out.body
