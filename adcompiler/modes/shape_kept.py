"""Arrays the adjoint reads only for their shape, kept as ``shape_like(x)`` rather than ``x``.

Some arrays of the primal reach the adjoint only as the argument whose shape and dtype a helper reads:
the second argument of ``unbroadcast``, ``unreduce`` and ``array_like``, and the pieces handed to
``unjoin``.  Pushed on a tape, or returned among a called function's residuals, each kept its whole data
alive until the adjoint ran: an RK4 step of GradBench's ode kept nineteen arrays of the state's length,
fifteen of them (the stages, their sums, ``x[1:] * y[:-1]``, the joined result) only for their shapes,
and the memory those took, new pages every call, cost more than the arithmetic.  The primal sweep keeps
``shape_like(x)`` for such an array instead: one of its shape and dtype whose every entry is one number
(a broadcast of it: no memory of the array's size).  A name the adjoint reads in any other way, a
parameter (the caller holds it anyway) or an accumulator's model (the Numba target makes its zeros like
it) is kept as it is.
"""

from __future__ import annotations

from ..analysis import values as V
from ..ir import expr as E
from ..ir.nodes import Var

SHAPE_ARGUMENT = {"@unbroadcast": 1, "@unreduce": 1, "@array_like": 1}  # the argument read for its shape
PIECES = {"@unjoin": 4}  # the arguments from this one on: the pieces joined, read for their shapes


def read_for_shape(code, names) -> frozenset:
    """The names of ``names`` that ``code`` (generated statements or expressions) reads, and reads only as
    an argument a helper takes for its shape."""
    shapes: set = set()
    values: set = set()
    _reads(code, shapes, values)
    return frozenset(n for n in names if n in shapes and n not in values)


def kept_for_shape(code, names, plan, program) -> frozenset:
    """Of ``names`` (what a push site keeps for ``code``), the arrays (or values that may be arrays) to keep as
    ``shape_like``: read only for their shape, made by the function (no parameter), no accumulator's model,
    not changed in place."""
    models = set(program.accumulators.values())
    return frozenset(
        n
        for n in read_for_shape(code, names)
        if n not in plan.fn.params
        and n not in models
        and n not in plan.mutable
        and n not in plan.written
        and isinstance(plan.facts.of(Var(n)), (V.Arr, V.Numeric))  # (shape_like keeps a number as it is)
    )


def _reads(x, shapes: set, values: set) -> None:
    """Names read in ``x``: as a shape (into ``shapes``) or otherwise (into ``values``)."""
    cls = x.__class__
    if cls is E.Name:
        values.add(x.id)
    elif cls is E.Call and (x.func in SHAPE_ARGUMENT or x.func in PIECES):
        first = PIECES.get(x.func)
        for k, a in enumerate(x.args):
            shaped = k == SHAPE_ARGUMENT.get(x.func) or first is not None and k >= first
            if shaped and a.__class__ is E.Name:
                shapes.add(a.id)
            else:
                _reads(a, shapes, values)
        _reads(x.keywords, shapes, values)
    elif cls is tuple or cls is list:
        for item in x:
            _reads(item, shapes, values)
    elif cls is dict:
        for item in x.values():
            _reads(item, shapes, values)
    elif hasattr(x, "__dataclass_fields__"):
        for name in x.__dataclass_fields__:
            _reads(getattr(x, name), shapes, values)
