"""What the Numba target refuses before it generates code, each at the user's line: draws, list slices.

Compiled code would run these without an error and give other numbers than Python: a draw comes from
Numba's own generator, and a list reaches compiled code as a NumPy array, whose slice is a view where
Python's is a copy (a write into either would show in the other).  (Lists joined with ``+`` or repeated
with ``*`` are spelled as calls instead: ``back.numba_lists``.)
"""

from __future__ import annotations

from ...analysis import values as V
from ...errors import at_line
from ...ir.nodes import Eq, Function, walk

_SLICE = 'differentiate it with backend="python" (here lists are NumPy arrays, whose slices share their memory)'


def refuse_draws(function: Function) -> None:
    """An np.random draw of ``function`` (ANF), refused at its line: compiled code draws from Numba's own
    generator, which ``np.random.seed`` does not reach and which the several passes of a Jacobian or a
    Hessian cannot start again from one state (each would see other draws: the rows of no one function)."""
    for eq in walk(function.body):
        if isinstance(eq, Eq) and eq.prim == "draw":
            raise at_line(
                function.source,
                eq.line,
                f'the draw {eq.param[1].replace("numpy.", "np.")}(...) under backend="numba"',
                'differentiate it with backend="python", which makes one draw per call for all its passes',
            )


def refuse_list_slices(function: Function, of) -> None:
    """``xs[a:b]`` of a list in ``function`` (``of(atom)``: its abstract value), refused at its line."""
    for eq in walk(function.body):
        if isinstance(eq, Eq) and eq.prim == "getitem" and _list(of(eq.ins[0])) and V.is_slice(of(eq.ins[1])):
            raise at_line(function.source, eq.line, 'a slice of a list under backend="numba"', _SLICE)


def _list(a: V.Aval) -> bool:
    return isinstance(a, V.Seq) and a.kind != "tuple"
