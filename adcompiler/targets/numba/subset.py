"""What the Numba target refuses before it generates code, each at the user's line: draws, slices of lists of
lists, lists of records holding arrays built in the function, and of tuples mixing arrays with other leaves, and
in reverse mode records holding numbers and arrays among the parameters differentiated.

Compiled code would run these without an error and give other numbers than Python: a draw comes from
Numba's own generator, and a list of lists reaches compiled code as a 2-D array, whose slice copied is a
copy of its rows where Python's new list shares them (a write into a row would show in one, not the
other).  (A list of numbers is a 1-D array there: its slices, joins with ``+`` and repeats with ``*`` are
spelled as calls that do what Python's do: ``targets.numba.lists``.)
"""

from __future__ import annotations

from ...analysis import values as V
from ...errors import at_line
from ...ir.nodes import Eq, Function, walk


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


_ROWS = 'differentiate it with backend="python" (here a list of lists is a 2-D array, whose rows a slice would copy)'


def refuse_row_slices(function: Function, of) -> None:
    """``xs[a:b]`` of a list of lists (or of arrays) in ``function`` (``of(atom)``: its abstract value), refused at
    its line."""
    for eq in walk(function.body):
        if isinstance(eq, Eq) and eq.prim == "getitem" and V.is_slice(of(eq.ins[1])) and _rows(of(eq.ins[0])):
            raise at_line(function.source, eq.line, 'a slice of a list of lists under backend="numba"', _ROWS)


def _rows(a: V.Aval) -> bool:
    """Whether ``a`` is a list some element of which may be other than a number."""
    if not isinstance(a, V.Seq) or a.kind == "tuple":
        return False
    return not all(isinstance(e, V.Num) for e in (a.items if a.items is not None else (a.elem,)))


_RECORDS = (
    "pass the list as an argument (a list of objects Numba takes), or differentiate it with "
    'backend="python", which handles it'
)


def refuse_record_lists(function: Function, of) -> None:
    """A list of records (objects, dataclasses, NamedTuples, dicts) holding arrays that ``function`` builds
    (``[Layer(W1, b1), Layer(W2, b2)]``, ``layers.append(...)``), refused at its line: the shadow of such a
    list holds arrays in tuples, which compiled code cannot add into (refused by Numba's typing, and for
    objects called in a loop, ``layer(h)``, Numba's type inference never ended)."""
    for eq, made in _lists_made(function, of):
        if _arrays_in_records(made):
            raise at_line(function.source, eq.line, 'a list of records holding arrays under backend="numba"', _RECORDS)


def refuse_mixed_tuple_lists(function: Function, of) -> None:
    """In reverse mode, a list of tuples holding an array and a number, or arrays of two ndims, that
    ``function`` builds (``out.append((h, x[t]))``), refused at its line: the shadow of such a tuple is a list
    of its leaves' cotangents, of two types, on which Numba's type inference took all the memory there was
    (forward mode's tangents are tuples, which compile)."""
    for eq, made in _lists_made(function, of):
        if _mixed_tuples(made):
            raise at_line(
                function.source,
                eq.line,
                'reverse mode of a list of tuples holding arrays with numbers, or arrays of two ndims, under backend="numba"',
                "keep the parts in lists of their own (hs.append(h); vs.append(v)), take jvp, or differentiate it "
                'with backend="python", which handles it',
            )


def refuse_mixed_record_params(function: Function, sig, active) -> None:
    """In reverse mode, a parameter differentiated that is a record (a NamedTuple, a dataclass) holding both numbers
    and arrays, refused at the ``def``: its cotangent, a tuple in compiled code, cannot have its numbers added into
    (a record of arrays alone, or of numbers alone, compiles; forward mode's tangents too)."""
    for param, aval in zip(function.params, sig.avals):
        if param not in active or not V.is_record(aval):
            continue
        kinds = {isinstance(leaf, V.Num) for leaf in _leaves(aval)}
        if len(kinds) > 1 and V.leaves_may_be_arrays(aval):
            line = min(function.source.lines) if function.source.lines else 0
            raise at_line(
                function.source,
                line,
                f'reverse mode with respect to {param}, a record holding numbers and arrays, under backend="numba"',
                f"pass {param}'s numbers as 0-d or 1-element arrays, or as arguments of their own, take jvp, or "
                'differentiate it with backend="python", which handles it',
            )


def _lists_made(function: Function, of):
    """``(equation, the list's abstract value)`` for each list ``function`` makes or appends to."""
    for eq in walk(function.body):
        if not isinstance(eq, Eq) or eq.prim not in ("list", "append"):
            continue
        made = of(eq.outs[0]) if eq.prim == "list" and eq.outs else of(eq.ins[0]) if eq.ins else None
        if isinstance(made, V.Seq) and made.kind == "list":
            yield eq, made


def _mixed_tuples(a: V.Seq) -> bool:
    """Whether some element of the list ``a`` is a tuple holding an array and a leaf of another kind (a number,
    an array of another ndim)."""
    for e in a.items if a.items is not None else (a.elem,):
        if isinstance(e, V.Seq) and e.kind == "tuple" and V.leaves_may_be_arrays(e):
            kinds = {(type(leaf), getattr(leaf, "ndim", None)) for leaf in _leaves(e)}
            if len(kinds) > 1:
                return True
    return False


def _leaves(a: V.Aval) -> list:
    if isinstance(a, V.Seq):
        return [leaf for item in (a.items if a.items is not None else (a.elem,)) for leaf in _leaves(item)]
    return [a]


def _arrays_in_records(a: V.Seq) -> bool:
    """Whether some element of the list ``a`` is a record some leaf of which may be an array."""
    return any(V.is_record(e) and V.leaves_may_be_arrays(e) for e in (a.items if a.items is not None else (a.elem,)))
