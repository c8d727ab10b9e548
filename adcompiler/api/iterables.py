"""Arguments that are iterables of other kinds than lists and tuples: refused at the call, named.

A generator, a ``range``, a ``collections.deque``, a set or an iterator has no abstract value the
derivative code is made for (``analysis.values`` describes lists, tuples, arrays and records), so
code that reads one as a list (indexes it, loops over it, sums it) was refused at its line, as if the
code were at fault.  ``refuse_other_iterables`` refuses the argument instead, naming it, its type and
what to pass: a list (or a tuple).  Measuring one (``len(xs)``) or passing it on is left alone: that
code has no use for its elements.
"""

from __future__ import annotations

import collections
import collections.abc

from ..analysis import values as V
from ..analysis.assume import reads_elements

_OTHERS = (range, collections.deque, set, frozenset, collections.abc.MappingView)  # and iterators, generators


def refuse_other_iterables(fn, params: tuple, args: tuple, sig: V.Sig, program) -> None:
    """Refuse an argument that is a generator or another iterator, a range, a deque, a set or a dict's
    view, where ``fn`` reads its elements; ``program()``: the Program the signature's code is built in."""
    for param, arg, aval in zip(params, args, sig.avals):
        if not (isinstance(aval, V.Top) or isinstance(aval, V.Static) and aval.what == "range"):
            continue
        if not (hasattr(arg, "__next__") or isinstance(arg, _OTHERS)):  # (a class of the user's: its own way)
            continue
        if reads_elements(program(), fn, param):
            kind = type(arg).__name__
            once = " (read once: list() it before the call)" if hasattr(arg, "__next__") else ""
            floats = f"; [float(v) for v in {param}] to differentiate with respect to it" if kind == "range" else ""
            raise TypeError(
                f"{fn.__name__}: argument {param} is a {kind}{once}, and {fn.__name__} reads its elements; "
                f"pass a list (list({param}){floats}) or a tuple: adcompiler differentiates lists, tuples, NumPy arrays "
                "and records"
            )
