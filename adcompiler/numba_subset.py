"""What the Numba target refuses before it generates code, each at the user's line: draws, list joins, list slices.

Compiled code would run these without an error and give other numbers than Python: a draw comes from
Numba's own generator, and a list reaches compiled code as a NumPy array, on which ``+`` adds and ``*``
multiplies where Python joins and repeats, and whose slice is a view where Python's is a copy (a write
into either would show in the other).
"""

from __future__ import annotations

from .analysis import values as V
from .errors import at_line
from .ir.nodes import Eq, Function, walk

_LISTS = 'differentiate it with backend="python", or build the list with append (lists are NumPy arrays here)'
_JOINS = {"list_concat": "joining lists with +", "list_times": "repeating a list with *"}


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


def refuse_list_operations(function: Function, of) -> None:
    """``xs + ys``, ``xs * n`` or ``xs[a:b]`` of lists in ``function`` (specialised: ``analysis.specialise``
    names the first two ``list_concat`` and ``list_times`` by the arguments' abstract values, which
    ``of(atom)`` gives), refused at its line."""
    for eq in walk(function.body):
        if not isinstance(eq, Eq):
            continue
        if eq.prim in _JOINS:
            raise at_line(function.source, eq.line, f'{_JOINS[eq.prim]} under backend="numba"', _LISTS)
        if eq.prim == "getitem" and _list(of(eq.ins[0])) and V.is_slice(of(eq.ins[1])):
            raise at_line(function.source, eq.line, 'a slice of a list under backend="numba"', _SLICE)


_SLICE = 'differentiate it with backend="python" (here lists are NumPy arrays, whose slices share their memory)'


def _list(a: V.Aval) -> bool:
    return isinstance(a, V.Seq) and a.kind != "tuple"
