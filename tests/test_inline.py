"""Folding single-use temporaries (adcompiler/inline.py): what is folded, what must not be, and that
the folded code computes the same numbers."""

import math

import pytest

import adcompiler
from adcompiler.ir import expr as E
from adcompiler.optimize.inline import fold_temporaries
from adcompiler.ir.nodes import Assign, AugAssign, Do, ForS, IfS, Ret, WhileS


def N(x):
    return E.Name(x)


def fold(stmts, after=(), user_names=frozenset()):
    return fold_temporaries(list(stmts), set(after), None, user_names)


def test_a_chain_of_temporaries_becomes_one_expression():
    body = [Assign(("t1",), N("x") * N("y")), Assign(("t2",), N("t1") + N("z")), Ret(N("t2") * N("x"))]
    assert fold(body) == [Ret((N("x") * N("y") + N("z")) * N("x"))]


def test_negations_a_fold_brings_together_cancel():
    """A fold of ``d = -(u * g)`` into ``-(t2 * d)`` reads ``t2 * (u * g)`` (the adjoint of lstm's sigmoids was
    ``-(t2 * -(outgate / t3 * g))``), ``-(-(u * g))`` is ``u * g`` (not ``-(-g)``: ``g`` would be the array itself)
    and ``a + -b`` is ``a - b``; a negation alone in a
    product stays where the code put it; the numbers are the same (a negation is exact)."""
    neg = lambda e: E.Unary("-", e)  # noqa: E731
    product = E.BinOp("*", N("u"), N("g"))
    body = [Assign(("d_t1",), neg(product)), Ret(neg(E.BinOp("*", N("t2"), N("d_t1"))))]
    assert fold(body) == [Ret(E.BinOp("*", N("t2"), product))]
    body = [Assign(("d_t1",), neg(product)), Ret(neg(N("d_t1")))]
    assert fold(body) == [Ret(product)]
    body = [Assign(("d_t1",), neg(N("g"))), Ret(neg(N("d_t1")))]  # (g itself would be an alias of a new array:
    assert fold(body) == [Ret(neg(neg(N("g"))))]  # written into later, it would change what -(-g) was)
    body = [Assign(("d_t1",), neg(product)), Ret(E.BinOp("+", N("a"), N("d_t1")))]
    assert fold(body) == [Ret(E.BinOp("-", N("a"), product))]
    body = [Assign(("d_t1",), neg(product)), Ret(E.BinOp("*", N("a"), N("d_t1")))]
    assert fold(body) == [Ret(E.BinOp("*", N("a"), neg(product)))]
    values = {"u": 0.3, "g": -1.7, "t2": 2.5, "a": 0.1}
    assert values["t2"] * (values["u"] * values["g"]) == -(values["t2"] * -(values["u"] * values["g"]))


def test_user_names_and_their_derivatives_stay():
    body = [Assign(("t1",), N("x") * N("y")), Assign(("dt1",), N("x") + N("y")), Ret(E.Tuple((N("t1"), N("dt1"))))]
    assert fold(body, user_names=frozenset({"t1"})) == body
    body = [Assign(("d_t0",), N("x") * N("y")), Ret(N("d_t0"))]
    assert fold(body, user_names=frozenset({"_t0"})) == body  # d_t0: the adjoint of the user's _t0
    body = [Assign(("s",), N("x") * N("y")), Ret(N("s"))]
    assert fold(body) == body  # not a temporary's name


def test_not_past_a_store_append_or_call_when_the_value_reads_a_list():
    read = Assign(("t1",), E.Subscript(N("xs"), N("i")))
    for effect in (
        AugAssign(E.Subscript(N("xs"), N("i")), "+", N("x")),
        Do(E.Method(N("xs"), "pop", ())),
        Do(E.Call("g", (N("xs"),))),
    ):
        body = [read, effect, Ret(N("t1"))]
        assert fold(body) == body


def test_not_past_an_assignment_to_a_name_it_reads():
    body = [Assign(("t1",), N("x") * N("y")), Assign(("x",), N("x") + N("y")), Ret(N("t1"))]
    assert fold(body) == body


def test_not_when_read_twice_or_live_after_the_block():
    twice = [Assign(("t1",), N("x") * N("y")), Ret(N("t1") * N("t1"))]
    assert fold(twice) == twice
    body = [Assign(("t1",), N("x") * N("y")), Assign(("s",), N("t1") + N("x"))]
    assert fold(body, after={"t1", "s"}) == body


def test_not_into_a_loop_body_or_a_while_test():
    into_loop = [
        Assign(("t1",), N("x") * N("y")),
        ForS("i", E.Call("range", (N("n"),)), (AugAssign("s", "+", N("t1")),)),
    ]
    assert fold(into_loop) == into_loop
    into_while = [Assign(("t1",), N("x") * N("y")), WhileS((), E.Compare("<", N("s"), N("t1")), ())]
    assert fold(into_while) == into_while


def test_inside_a_while_body_but_not_its_header():
    """A while body folds with what is live at the loop's head live after it (the next test, the next
    iteration's reads); the header, which runs before every test, stays as it is."""
    chain = (Assign(("t1",), N("x") * N("y")), AugAssign("s", "+", N("t1")))
    loop = WhileS((), E.Compare("<", N("s"), N("n")), chain)
    assert fold([loop]) == [WhileS((), loop.test, (AugAssign("s", "+", N("x") * N("y")),))]
    header = WhileS(chain, loop.test, ())
    assert fold([header]) == [header]
    read_by_the_test = WhileS((), E.Compare("<", N("t1"), N("n")), chain)
    assert fold([read_by_the_test]) == [read_by_the_test]  # t1 is live at the head: the test reads it


def test_into_a_branch_test_and_a_loop_range():
    body = [
        Assign(("t1",), E.Call("len", (N("xs"),))),
        ForS("i", E.Call("range", (N("t1"),)), (AugAssign("s", "+", N("x")),)),
    ]
    assert fold(body) == [ForS("i", E.Call("range", (E.Call("len", (N("xs"),)),)), (AugAssign("s", "+", N("x")),))]
    body = [Assign(("t2",), E.Compare(">", N("x"), N("m"))), IfS(N("t2"), (Assign(("m",), N("x")),), ())]
    assert fold(body) == [IfS(E.Compare(">", N("x"), N("m")), (Assign(("m",), N("x")),), ())]


def polynomial(x, y):
    a = 3.0 * x * x * y + math.sin(x * y) / (1.0 + y * y)
    b = a * a - x / (2.0 + math.cos(a))
    return b * y + a


def test_folded_code_gives_the_analytic_numbers():
    """The generated code reads like the user's lines again and its gradient matches central differences."""
    f = adcompiler.differentiate(polynomial)
    src = f.source("reverse")
    assert "math.sin(x * y) / (1.0 + y * y)" in src
    x, y, h = 0.7, -0.4, 1e-6
    gx, gy = f.grad(x, y)
    assert gx == pytest.approx((polynomial(x + h, y) - polynomial(x - h, y)) / (2 * h), rel=1e-6)
    assert gy == pytest.approx((polynomial(x, y + h) - polynomial(x, y - h)) / (2 * h), rel=1e-6)
    value, tangent = f.jvp((x, y), (0.3, -1.1))
    assert tangent == pytest.approx(0.3 * gx - 1.1 * gy, rel=1e-12)


def test_the_numba_targets_folding_takes_derivative_names_across_line_comments():
    """Folding(derivatives=True): tangent and adjoint names too (Numba fuses one statement's array
    expression into one loop), past ``# line N:`` comments and array_like calls; never a user's name."""
    from adcompiler.ir.nodes import Comment
    from adcompiler.optimize.inline import Folding

    wide = Folding(frozenset({"x", "y", "dx"}), derivatives=True)
    body = [
        Comment("line 2: a = x * y"),
        Assign(("d_a",), N("dx") * N("y")),
        Comment("line 3: b = a + x"),
        Assign(("d_b_2",), E.Call("@array_like", (N("d_a") + N("dx"), N("x")))),
        Assign(("d_y",), N("d_b_2") * N("x")),
        Ret(N("d_y")),
    ]
    folded = fold_temporaries(list(body), set(), None, folding=wide)
    assert folded[-1] == Ret(E.Call("@array_like", (N("dx") * N("y") + N("dx"), N("x"))) * N("x"))
    assert fold(body) == body  # the python target's folding: no temporary's name here
    kept = [Assign(("dx",), N("x") * N("y")), Ret(N("dx"))]
    assert fold_temporaries(list(kept), set(), None, folding=wide) == kept  # the user's dx
