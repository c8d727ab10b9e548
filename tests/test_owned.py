"""modes.owned on adjoint code: an add_new line is kept only where its adjoint is a new array that
nothing else reads; everywhere else it is written back as element += g."""

from adcompiler.ir import expr as E
from adcompiler.ir.nodes import Assign, AugAssign, ForS, IfS
from adcompiler.modes.owned import add_new, owned

SLOT = E.Subscript(E.Name("d_t"), E.Num(0))
OUTER = E.Call("numpy.outer", (E.Name("g"), E.Name("h")))


def _kept(stmts, results=()) -> list:
    """Which statements of the (flattened) result are add_new lines still."""
    out = []
    for s in owned(list(stmts), results):
        for inner in (s.body if isinstance(s, (ForS, IfS)) else (s,)):
            out.append(isinstance(inner, Assign) and isinstance(inner.value, E.Call) and inner.value.func == "@add_new")
    return out


def test_a_new_array_read_once_is_stored():
    assert _kept([Assign(("d_W",), OUTER), add_new(SLOT, E.Name("d_W"), 0)]) == [False, True]


def test_an_adjoint_read_elsewhere_is_added():
    used = Assign(("y",), E.Name("d_W") * 2.0)
    assert _kept([Assign(("d_W",), OUTER), add_new(SLOT, E.Name("d_W"), 0), used]) == [False, False, False]


def test_an_adjoint_returned_is_added():
    stmts = [Assign(("d_W",), OUTER), add_new(SLOT, E.Name("d_W"), 0)]
    assert _kept(stmts, (E.Name("d_W"),)) == [False, False]


def test_not_new_arrays_are_added():
    for value in (
        E.Name("g"),
        E.Call("@unbroadcast", (E.Name("g"), E.Name("b"))),
        E.Call("numpy.dot", (E.Name("g"), E.Name("h"), E.Name("out"))),
    ):
        assert _kept([Assign(("d_W",), value), add_new(SLOT, E.Name("d_W"), 0)]) == [False, False]


def test_one_array_into_two_elements_is_added_to_both():
    other = E.Subscript(E.Name("d_u"), E.Num(1))
    stmts = [Assign(("d_W",), OUTER), add_new(SLOT, E.Name("d_W"), 0), add_new(other, E.Name("d_W"), 0)]
    assert _kept(stmts) == [False, False, False]


def test_a_name_rebound_in_between_is_added():
    rebound = Assign((("d_W", "k"),), E.Call("tape.pop", ()))
    assert _kept([Assign(("d_W",), OUTER), rebound, add_new(SLOT, E.Name("d_W"), 0)]) == [False, False, False]


def test_an_array_made_outside_the_loop_is_added_inside():
    loop = ForS("i", E.Call("range", (E.Num(3),)), (add_new(SLOT, E.Name("d_W"), 0),))
    assert _kept([Assign(("d_W",), OUTER), loop]) == [False, False]


def test_each_copy_of_a_block_written_twice_keeps_its_own():
    body = (Assign(("d_W",), OUTER), add_new(SLOT, E.Name("d_W"), 0))
    both = IfS(E.Name("same"), body, ())
    other = IfS(E.Name("other"), (Assign(("d_W",), OUTER), add_new(SLOT, E.Name("d_W"), 0)), ())
    assert _kept([both, other]) == [False, True, False, True]


def test_the_line_kept_is_the_helper_and_the_other_is_plus_equals():
    out = owned([Assign(("d_W",), E.Name("g")), add_new(SLOT, E.Name("d_W"), 0)])
    assert out[1] == AugAssign(SLOT, "+", E.Name("d_W"), 0)
