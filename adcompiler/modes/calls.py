"""A call of a user function that is not differentiated but is handed a record (a dict, NamedTuple,
dataclass or object, which generated code holds as the tuple of its items): the callee's forward code
with nothing active, which reads the record as that tuple, not the user's function, which would read
it by key (``p["a"]`` of a tuple fails).  Under a target that compiles what it runs (Numba's
``calls_generated``), every such call: the user's function as written would be compiled without the
target's spellings (a list is an array there, on which + adds; a join of a list, a reduction along an
axis, a nested ``grad``, a list of the module read as a constant: forms the target writes otherwise).
And the integer arrays such a call writes into (``written_arguments``), which the reverse sweep puts back."""

from __future__ import annotations

from ..analysis import values as V
from ..ir import expr as E
from ..ir.nodes import Assign, Eq, Var, rebuild
from ..lower.library import library_changes


def record_call(program, eq: Eq, sig: V.Sig, args: tuple, generated: bool = False) -> Assign | None:
    """``outs, _ = g_forward(*args)`` for the call ``eq`` (its arguments' expressions ``args``) where
    its signature ``sig`` holds a record, or always with ``generated`` (the Numba target's
    ``calls_generated``); None otherwise (the primal is called)."""
    if eq.prim != "call":
        return None
    if not (generated or any(V.has_records(a) for a in sig.avals)):
        return None
    callee, _ = program.forward_callee(eq.param, (False,) * len(eq.ins), sig)
    shape = program.shape(eq.param)
    targets = (rebuild(shape, iter(v.name for v in eq.outs)), rebuild(shape, iter(program.discard for _ in eq.outs)))
    return Assign(targets, E.Call(callee, tuple(args)), eq.line)


def written_arguments(program, facts, eq: Eq) -> tuple:
    """The positions of the arguments of a call not differentiated that it writes into: integer arrays a user
    function's callee writes into, itself or through its own calls (``Program.writes_into``: index links,
    permutations), or the array a library function changes (``np.put``: ``lower.library.library_changes``)."""
    arrays = facts.numeric_arrays  # (an array a list holds, handed in the list: refused, ``inplace.check_handed``)
    if eq.prim == "library":
        return tuple(k for k in library_changes(eq) if isinstance(eq.ins[k], Var) and eq.ins[k].name in arrays)
    if eq.prim != "call":
        return ()
    written = program.writes_into(eq.param, facts.call_sig(eq))
    return tuple(k for k in written if isinstance(eq.ins[k], Var) and eq.ins[k].name in arrays)
