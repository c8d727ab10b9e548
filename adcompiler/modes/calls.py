"""A call of a user function that is not differentiated but is handed a record (a dict, NamedTuple,
dataclass or object, which generated code holds as the tuple of its items): the callee's forward code
with nothing active, which reads the record as that tuple, not the user's function, which would read
it by key (``p["a"]`` of a tuple fails).  Under a target that compiles the user's functions as written
(Numba's ``list_calls_generated``), also a call handed a list, and a call of a function that runs a
derivative's generated code (a nested ``grad`` in it), which that compiler cannot take as written.
And the integer arrays such a call writes into (``written_arguments``), which the reverse sweep puts back."""

from __future__ import annotations

from ..analysis import values as V
from ..ir import expr as E
from ..ir.nodes import Assign, Eq, Var, rebuild, walk
from ..lower.library import library_changes


def record_call(program, eq: Eq, sig: V.Sig, args: tuple, lists: bool = False) -> Assign | None:
    """``outs, _ = g_forward(*args)`` for the call ``eq`` (its arguments' expressions ``args``) where
    its signature ``sig`` holds a record (or, with ``lists``, a list or tuple: the Numba target's
    ``list_calls_generated``, whose generated code spells joins and slices of lists for the arrays
    lists are there, where the user's function is compiled as written; with it too, a callee that
    ``runs_generated``); None otherwise (the primal is called)."""
    if eq.prim != "call":
        return None
    held = any(V.has_records(a) or lists and isinstance(a, V.Seq) for a in sig.avals)
    if not (held or lists and (runs_generated(program, eq.param) or reads_containers(program, eq.param))):
        return None
    callee, _ = program.forward_callee(eq.param, (False,) * len(eq.ins), sig)
    shape = program.shape(eq.param)
    targets = (rebuild(shape, iter(v.name for v in eq.outs)), rebuild(shape, iter(program.discard for _ in eq.outs)))
    return Assign(targets, E.Call(callee, tuple(args)), eq.line)


def runs_generated(program, fn, seen: frozenset = frozenset()) -> bool:
    """Whether a call of ``fn`` runs a derivative's generated code: ``fn`` is some (a nested ``grad`` or
    ``jvp`` lowered to a call of it), or calls some, in turn.  A target that compiles the user's
    functions as written (Numba) cannot compile one of those, which calls adcompiler's API."""
    if hasattr(fn, "__adc_scope__"):
        return True
    if fn in seen or not callable(fn):
        return False
    return any(
        isinstance(s, Eq) and s.prim == "call" and runs_generated(program, s.param, seen | {fn})
        for s in walk(program.anf(fn).body)
    )


def reads_containers(program, fn, seen: frozenset = frozenset()) -> bool:
    """Whether ``fn``, or a function it calls, reads a list, a dict or an object of its module or of a
    closure (``c[0]`` of a factory's list, ``D["W"]`` of the module's dict): generated code reads those as
    the arrays and tuples it is handed, where a target that compiles the user's functions as written
    (Numba) cannot take them."""
    if fn in seen or not callable(fn) or not hasattr(fn, "__code__"):
        return False
    cells = [c.cell_contents for c in fn.__closure__ or () if _filled(c)]
    names = [fn.__globals__[n] for n in fn.__code__.co_names if n in fn.__globals__]
    if any(type(v) in (list, dict) or _object(v) for v in cells + names):
        return True
    return any(
        isinstance(s, Eq) and s.prim == "call" and reads_containers(program, s.param, seen | {fn})
        for s in walk(program.anf(fn).body)
    )


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # (an empty cell)
        return False
    return True


def _object(value) -> bool:
    """An object of a user class (its attributes read by the code: the tuple of them there)."""
    return type(value).__module__ not in ("builtins", "numpy") and type(value).__dict__.get("__dict__") is not None


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
