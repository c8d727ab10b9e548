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

import ast

from . import values as V
from ..ir.nodes import LIST_SLICE, UNPACKED, Eq, Function, map_equations
from .infer_numpy import KIT
from .transfer import BITWISE
from .numpy_values import UNKNOWN
from .records import resolve
from .methods import as_call, refuse
from ..ir.nodes import EXTENDED, IN_PLACE, Const, Var
from ..errors import UnsupportedSyntaxError
from ..rules.families import REGISTRY
from ..rules.primitive import Refusal

# The records with variants by their operands (np.dot of two vectors, ...), by the name a call has in the IR
# (``matmul``: the operator ``@``, np.matmul's)
_VARIED = {called: p for p in REGISTRY.values() if p.variant for called in filter(None, (p.name, p.operator))}


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
        _refuse_in_place_of_lists(e, ins, fn.source)
        _refuse_cast_read(e, ins, fn.source)
        e = resolve(e, ins, fn.source)
        prim = _prim(e, ins, fn.source)
        if prim == "getitem" and e.param is None and _list(ins[0]) and V.is_slice(ins[1]):
            return Eq(e.outs, prim, e.ins, e.line, LIST_SLICE)  # xs[a:b] of a list: a new list (a copy)
        if prim == e.prim:
            return e
        args = e.ins[::-1] if prim == "list_times" and isinstance(ins[1], V.Seq) else e.ins  # (xs, n)
        return Eq(e.outs, prim, args, e.line, e.param)

    return fn.with_body(map_equations(fn.body, eq))


def _refuse_in_place_of_lists(e: Eq, ins: list, source) -> None:
    """``xs *= n`` of a list (it repeats the list in place: another name of it would see the items, which a
    new list does not give), and ``a += [1.0, 2.0]`` of an array (NumPy adds the list's numbers in place,
    where lowering wrote appends, a list's ``+=``): refused at the line, saying what to write."""
    told = None
    if e.prim == "mul" and e.param == IN_PLACE and _list(ins[0]):
        told = (
            "xs *= n of a list (the list repeated in place)",
            "write xs = xs * n, a new list, or extend it: xs.extend(...)",
        )
    elif e.prim == "append" and e.param == EXTENDED and not isinstance(ins[0], V.Seq):
        told = ("a += [...] of an array (NumPy adds the numbers in place)", "write a = a + np.array([...])")
    elif e.prim in BITWISE and any(str(getattr(a, "dtype", "")).startswith(("float", "complex")) for a in ins):
        told = (  # (x & 1 of a float: Python's and NumPy's TypeError)
            f"the operator '{_BITWISE_SPELT[e.prim]}' of a float",
            "combine masks (comparisons) and integers with & | ^ ~; floats with + - * /",
        )
    if told is not None:
        text = source.lines.get(e.line)
        column = _column_of(text, _BITWISE_SPELT[e.prim]) if e.prim in BITWISE and text else 0
        raise UnsupportedSyntaxError(*told, source.filename, e.line, column, text)


def _refuse_cast_read(e: Eq, ins: list, source) -> None:
    """``x.astype(y.dtype)``, ``np.asarray(v, dtype=y.dtype)``: a cast to the dtype of another value, which the
    derivative keeps only where it is a float dtype known when compiling (a cast to an integer loses it)."""
    if e.prim not in CAST_READS or not isinstance(e.ins[1], Var):
        return
    dtype = ins[1].dtype if isinstance(ins[1], V.Static) and ins[1].what == "dtype" else None
    if dtype is None or not dtype.startswith("float"):
        told = "a dtype not known when compiling" if dtype is None else f"{dtype} (the derivative would be lost)"
        text = source.lines.get(e.line)
        raise UnsupportedSyntaxError(
            f"a cast to the dtype of another value, here {told}",
            "cast to a float dtype written as a constant: x.astype(np.float64)",
            source.filename,
            e.line,
            max((text or "").find(".dtype"), 0),
            text,
        )


CAST_READS = ("numpy.array/dtype", "numpy.asarray/dtype")
_BITWISE_SPELT = {"bitand": "&", "bitor": "|", "bitxor": "^", "invert": "~"}
_BITWISE_NODES = {"&": ast.BitAnd, "|": ast.BitOr, "^": ast.BitXor, "~": ast.Invert}


def _column_of(text: str, spelt: str) -> int:
    """The column of the expression that applies the operator ``spelt`` on the line ``text`` (the line parsed
    alone, a compound statement's header given a body), else of the operator itself, else 0."""
    stripped = text.strip()
    indent = len(text) - len(text.lstrip())
    try:
        tree = ast.parse(stripped + ("\n    pass" if stripped.endswith(":") else ""))
    except SyntaxError:
        tree = None
    kind = _BITWISE_NODES[spelt]
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.AugAssign)) and isinstance(node.op, kind):
            return indent + node.col_offset
    return max(text.find(spelt), 0)


def _list(aval) -> bool:
    """Whether a value of abstract value ``aval`` is a list (not a tuple: a slice of a tuple is one too, and
    compiled code holds tuples as tuples)."""
    return isinstance(aval, V.Seq) and aval.kind != "tuple"


def _holds(aval, n: int) -> bool:
    """Whether a value of abstract value ``aval`` surely holds ``n`` items (a list or tuple of known length)."""
    return isinstance(aval, V.Seq) and aval.items is not None and len(aval.items) == n


def _prim(e: Eq, ins: list, source) -> str:
    if e.prim == "add" and all(isinstance(a, V.Seq) for a in ins):
        return "list_concat"
    if e.prim == "mul" and any(isinstance(a, V.Seq) for a in ins) and any(isinstance(a, V.Num) for a in ins):
        return "list_times"
    if e.prim == "numpy.copy" and isinstance(ins[0], V.Seq) and len(ins) == 1:  # xs.copy() of a list
        return "list_copy"
    if e.prim == "sum" and isinstance(ins[0], (V.Arr, V.Numeric)):
        return "array_sum"
    if e.prim in _VARIED:  # a variant for operands of one kind (rules.primitive.Variant)
        static = [a.value if isinstance(a, Const) else UNKNOWN for a in e.ins]
        kind = _VARIED[e.prim].variant(ins, static, KIT)
        if isinstance(kind, Refusal):
            raise UnsupportedSyntaxError(
                kind.construct, kind.remedy, source.filename, e.line, 0, source.lines.get(e.line)
            )
        return f"{e.prim}/{kind}" if kind is not None else e.prim
    return e.prim
