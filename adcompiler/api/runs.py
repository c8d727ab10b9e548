"""What a call of a function runs, as a ``Differentiable`` reads it: the function it differentiates, its
signature, its tree, the parameters to differentiate, and what they were read from.

The function differentiated is the one a call runs: a ``functools.wraps`` wrapper is its own code
(never the source of the function it wraps), at the parameters it declares where it takes ``*args``
and passes them on (``front.callables.declared``).  What was read of it depends on the code it ran
and its defaults then: ``f.__code__`` or ``f.__defaults__`` replaced since, it is read again
(``own_dependency``, tested with the module's other dependencies on every call).
"""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass
from typing import Any

from ..analysis import values as V
from .arguments import default_wrt, refusal, wrt_names
from ..lower.vector_classes import rows_read
from ..compile.collector import no_cycle_collection
from .entries import UNSET
from ..front.callables import what_runs
from ..front.environment import Dependency, function_state


@dataclass(frozen=True)
class Reading:
    """What was read of a function given to ``differentiate`` (see the module docstring)."""

    fn: Any  # the function differentiated
    state: tuple | None  # the given function, its code and defaults then (None: not a plain function)
    signature: inspect.Signature
    params: tuple
    parsed: Any  # its tree past the fence, or None
    refusal: Exception | None  # what the fence refuses in it (raised by any call)
    wrt: tuple
    positions: tuple
    floats: V.Sig  # the signature of numbers only
    rows: frozenset = frozenset()  # the parameters it reads by rows (``lower.vector_classes.rows_read``)


def read(given, wrt) -> Reading:
    """What a call of ``given`` runs, with ``wrt`` (as asked: None for the default) resolved."""
    if not isinstance(given, types.FunctionType):
        inner = getattr(given, "__wrapped__", None)
        hint = (
            f": differentiate the function it calls, {inner.__name__}, itself"
            if inner is not None
            else (
                "; differentiate a function of yours that calls it (def f(x): return np.sin(x))"
                if callable(given)
                else ""
            )
        )
        raise TypeError(f"adcompiler differentiates plain Python functions, not {type(given).__name__} {given!r}{hint}")
    fn = what_runs(given)
    state = function_state(given)
    signature = inspect.signature(fn, follow_wrapped=False)
    params = tuple(signature.parameters)
    with no_cycle_collection():  # (a long function's tree is many objects, none of them garbage)
        parsed, refused = refusal(fn)
    chosen = default_wrt(parsed, params) if wrt is None else wrt_names(wrt, params, fn, signature)
    positions = tuple(params.index(w) for w in chosen)
    floats, rows = V.Sig((V.FLOAT,) * len(params)), rows_read(parsed.node) if parsed is not None else frozenset()
    return Reading(fn, state, signature, params, parsed, refused, chosen, positions, floats, rows)


def changed(reading: Reading) -> bool:
    """Whether the given function's code or defaults were replaced since it was read."""
    return any(not d.holds() for d in own_dependency(reading))


def given(args: tuple, kwargs, params: tuple) -> tuple:
    """``(args, kwargs)`` without the arguments a fast entry was called without (``entries.UNSET``): the
    function's defaults, as they are now, fill them in."""
    if not any(a is UNSET for a in args):
        return args, kwargs
    return (), {p: a for p, a in zip(params, args) if a is not UNSET} | (kwargs or {})


def own_dependency(reading: Reading) -> list:
    """That the given function still runs the code it was read from, with the defaults it had."""
    if reading.state is None:
        return []
    return [Dependency(None, reading.state[0].__qualname__, "code", reading.state)]


__all__ = ["Reading", "changed", "given", "own_dependency", "read"]
