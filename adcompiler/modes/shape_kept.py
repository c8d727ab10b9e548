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
from ..analysis.same_shapes import ELEMENTWISE
from ..ir.nodes import Eq, Var, walk
from ..rules.helpers import SHAPE_ARGUMENT as READ_FOR_SHAPE

# the argument read for its shape, by the name generated code calls the helper by
SHAPE_ARGUMENT = {"@" + helper: k for helper, k in READ_FOR_SHAPE.items()}
FLOATS = ("float64", "float32")
PIECES = {"@unjoin": 4}  # the arguments from this one on: the pieces joined, read for their shapes


def read_for_shape(code, names) -> frozenset:
    """The names of ``names`` that ``code`` (generated statements or expressions) reads, and reads only as
    an argument a helper takes for its shape."""
    shapes: set = set()
    values: set = set()
    _reads(code, shapes, values)
    return frozenset(n for n in names if n in shapes and n not in values)


def kept_for_shape(code, names, plan, program) -> dict:
    """Of ``names`` (what a push site keeps for ``code``), the arrays (or values that may be arrays) to keep as
    ``shape_like``: read only for their shape, made by the function (a parameter where the options say:
    ``shaped_parameters``), no accumulator's model,
    not changed in place; each -> the names whose shapes broadcast to its own (``_leaves``)."""
    models = set(program.accumulators.values())
    shaped = [
        n
        for n in read_for_shape(code, names)
        if (n not in plan.fn.params or plan.options.shaped_parameters)
        and n not in models
        and n not in plan.mutable
        and n not in plan.written
        and isinstance(plan.facts.of(Var(n)), (V.Arr, V.Numeric))  # (shape_like keeps a number as it is)
    ]
    if not shaped:
        return {}
    made = _made_by(plan)
    return {n: _leaves(n, made, plan, MAX_LEAVES) for n in shaped}


MAX_LEAVES = 6  # shape_like(k1, k2, k3, k4): a few names a reader takes in at once


def _made_by(plan) -> dict:
    """The code's name of each array elementwise arithmetic makes -> its equation (of dup form)."""
    made: dict = {}
    slots = set(plan.fn.slots)  # (bound again and again: no value of theirs stays where it was read)
    for eq in walk(plan.fn.body):
        if isinstance(eq, Eq) and eq.prim in ELEMENTWISE and len(eq.outs) == 1 and eq.outs[0].name not in slots:
            made[plan.alias.get(eq.outs[0].name, eq.outs[0].name)] = eq
    return made


def _leaves(name: str, made: dict, plan, most: int) -> tuple:
    """Names whose shapes broadcast to the shape of ``name``, and of its dtype: ``(k1, k2)`` for ``t12 = k1 + 2 *
    k2`` (through the temporaries and sums it is made of: ``t15 = t14 + k4`` gives ``(k1, k2, k3, k4)``), so that
    the primal keeps no sum only for its shape and Numba fuses the line into one loop; ``(name,)`` where it is
    not made so, of arrays all of its ndim and float dtype (numbers aside), none a slot, or they would be too
    many."""
    out = plan.facts.of(Var(name))
    eq = made.get(name)
    if eq is None or not _float_array(out):
        return (name,)
    leaves: list = []
    for a in eq.ins:
        if not isinstance(a, Var):
            continue
        aval = plan.facts.of(a)
        if isinstance(aval, V.Num):
            continue  # a number changes no shape
        ref = plan.alias.get(a.name, a.name)
        if (
            not (_float_array(aval) and aval.ndim == out.ndim and _dtype(aval) == _dtype(out))
            or a.name in plan.fn.slots
        ):
            return (name,)
        leaves += [n for n in _leaves(ref, made, plan, most) if n not in leaves]
    return tuple(leaves) if 0 < len(leaves) <= most else (name,)


def _float_array(aval) -> bool:
    return isinstance(aval, V.Arr) and isinstance(aval.ndim, int) and aval.ndim >= 1 and _dtype(aval) in FLOATS


def _dtype(aval) -> str:
    """The array's dtype, "float" (what arithmetic with a Python float gives an array of) read as float64."""
    return "float64" if aval.dtype == "float" else aval.dtype


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
