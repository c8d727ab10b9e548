"""Def/use of generated statements (``analysis.defuse``): the one answer to "which names does this
statement bind", tuples unpacked, used by every pass."""

from adcompiler.analysis.defuse import binds, target_names, writes
from adcompiler.ir import expr as E
from adcompiler.ir.nodes import Assign, AugAssign, ForS, IfS
from adcompiler.optimize.floats import float_names


def test_an_assignment_binds_its_names_tuples_unpacked_and_a_store_none():
    s = Assign(("a", ("b", ("c",)), E.Subscript(E.Name("xs"), E.Name("i"))), E.Name("v"))
    assert binds(s) == ["a", "b", "c"] and target_names(s.targets) == ["a", "b", "c"]
    assert binds(AugAssign("d", "+", E.Num(1.0))) == ["d"] and binds(AugAssign(E.Name("d"), "+", E.Num(1.0))) == []


def test_writes_takes_nested_blocks_with_it():
    loop = ForS("i", E.Call("range", (E.Num(3),)), (IfS(E.Name("t"), (Assign((("u", "w"),), E.Name("p")),), ()),))
    assert writes(loop) == {"i", "u", "w"}


def test_a_name_unpacked_from_a_tuple_is_not_surely_a_float():
    """``d = 0.0`` then ``d, e = g(x)``: the second value is not known (the finishing passes read this)."""
    body = (Assign(("d",), E.Num(0.0)), Assign((("d", "e"),), E.Call("g", (E.Name("x"),))))
    assert "d" not in float_names(body, set(), set())
