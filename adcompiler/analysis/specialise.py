"""ANF or dup form + abstract values -> the same program with each primitive named for what it
applies to: Python's ``+`` of two lists is ``list_concat``, ``xs * n`` of a list is ``list_times``,
``sum`` of an array is ``array_sum`` (each printed as the user wrote it); a record's item read by key is
read at its position (``records``).  Syntax cannot tell these apart; the arguments' abstract
values can, so the derivative passes pick a rule by the primitive's name and never guess.

Only primitive names change (no variable is added or removed), so the abstract values of the
program before stay those of the program after; an unpacking's length check the abstract value
already proves (``a, b = xs`` of a list of two) is dropped.
"""

from __future__ import annotations

from . import values as V
from ..ir.nodes import LIST_SLICE, UNPACKED, Eq, Function, map_equations
from .numpy_values import ndim_of
from .records import resolve
from .methods import as_call, refuse
from ..ir.nodes import Const
from ..rules.arrays import SOLVE_STACKED, SOLVE_VECTOR
from ..rules.linalg import NORM_MATRIX
from ..rules.products import DOT_MATVEC, DOT_VECMAT, DOT_VECTORS, OUTER_FLAT


def specialise(fn: Function, of) -> Function:
    """``fn`` with value-specific primitives; ``of(atom)`` gives an atom's abstract value."""

    def eq(e: Eq) -> Eq | list:
        ins = [of(a) for a in e.ins]
        if e.param == UNPACKED and _holds(ins[0], e.ins[1].value):  # a, b = xs of a list of two: no check
            return []
        called = as_call(e, ins)  # layer(h), layer.forward(h), self.scale (a property): a call (methods)
        if called is not None:
            return called
        refuse(e, ins, None, fn.source)
        e = resolve(e, ins, fn.source)
        prim = _prim(e, ins)
        if prim == "getitem" and e.param is None and _list(ins[0]) and V.is_slice(ins[1]):
            return Eq(e.outs, prim, e.ins, e.line, LIST_SLICE)  # xs[a:b] of a list: a new list (a copy)
        if prim == e.prim:
            return e
        args = e.ins[::-1] if prim == "list_times" and isinstance(ins[1], V.Seq) else e.ins  # (xs, n)
        return Eq(e.outs, prim, args, e.line, e.param)

    return fn.with_body(map_equations(fn.body, eq))


def _list(aval) -> bool:
    """Whether a value of abstract value ``aval`` is a list (not a tuple: a slice of a tuple is one too, and
    compiled code holds tuples as tuples)."""
    return isinstance(aval, V.Seq) and aval.kind != "tuple"


def _holds(aval, n: int) -> bool:
    """Whether a value of abstract value ``aval`` surely holds ``n`` items (a list or tuple of known length)."""
    return isinstance(aval, V.Seq) and aval.items is not None and len(aval.items) == n


_PRODUCTS = ("numpy.dot", "numpy.matmul", "matmul")  # the same product of a matrix and a vector


def _prim(e: Eq, ins: list) -> str:
    if e.prim == "add" and all(isinstance(a, V.Seq) for a in ins):
        return "list_concat"
    if e.prim == "mul" and any(isinstance(a, V.Seq) for a in ins) and any(isinstance(a, V.Num) for a in ins):
        return "list_times"
    if e.prim == "numpy.copy" and isinstance(ins[0], V.Seq) and len(ins) == 1:  # xs.copy() of a list
        return "list_copy"
    if e.prim == "sum" and isinstance(ins[0], (V.Arr, V.Numeric)):
        return "array_sum"
    if e.prim == "numpy.dot" and all(isinstance(a, V.Arr) and a.ndim == 1 for a in ins):
        return DOT_VECTORS  # a number: each adjoint is g times the other vector
    if e.prim in _PRODUCTS and all(isinstance(a, V.Arr) for a in ins):
        kind = {(2, 1): DOT_MATVEC, (1, 2): DOT_VECMAT}.get((ins[0].ndim, ins[1].ndim))
        return e.prim + kind[kind.index("/") :] if kind else e.prim
    if e.prim == "numpy.outer" and not all(isinstance(a, V.Arr) and a.ndim == 1 for a in ins):
        return OUTER_FLAT  # NumPy ravels each operand first
    if e.prim == "numpy.linalg.solve" and isinstance(ins[1], V.Arr) and ins[1].ndim == 1:
        stacked = isinstance(ins[0], V.Arr) and ins[0].ndim is not None and ins[0].ndim > 2
        return SOLVE_STACKED if stacked else SOLVE_VECTOR  # its adjoint in A: outer products, not a matrix product
    if e.prim == "numpy.linalg.norm" and all(isinstance(a, Const) for a in e.ins[1:3]):
        ord_, axis = e.ins[1].value, e.ins[2].value
        if isinstance(axis, tuple) and len(axis) == 2 or axis is None and ord_ is not None and ndim_of(ins[0]) == 2:
            return NORM_MATRIX  # ord means a matrix norm: of two axes, or of a matrix with no axis given
    return e.prim
