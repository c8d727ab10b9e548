"""A call of a user function that is not differentiated but is handed a record (a dict, NamedTuple,
dataclass or object, which generated code holds as the tuple of its items): the callee's forward code
with nothing active, which reads the record as that tuple, not the user's function, which would read
it by key (``p["a"]`` of a tuple fails)."""

from __future__ import annotations

from ..analysis import values as V
from ..ir import expr as E
from ..ir.nodes import Assign, Eq, rebuild


def record_call(program, eq: Eq, sig: V.Sig, args: tuple, lists: bool = False) -> Assign | None:
    """``outs, _ = g_forward(*args)`` for the call ``eq`` (its arguments' expressions ``args``) where
    its signature ``sig`` holds a record (or, with ``lists``, a list or tuple: the Numba target's
    ``list_calls_generated``, whose generated code spells joins and slices of lists for the arrays
    lists are there, where the user's function is compiled as written);
    None where it holds none (the primal is called)."""
    held = any(V.has_records(a) or lists and isinstance(a, V.Seq) for a in sig.avals)
    if eq.prim != "call" or not held:
        return None
    callee, _ = program.forward_callee(eq.param, (False,) * len(eq.ins), sig)
    shape = program.shape(eq.param)
    targets = (rebuild(shape, iter(v.name for v in eq.outs)), rebuild(shape, iter(program.discard for _ in eq.outs)))
    return Assign(targets, E.Call(callee, tuple(args)), eq.line)
