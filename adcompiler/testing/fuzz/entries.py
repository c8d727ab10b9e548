"""Every entry point on one differentiate object, in an order drawn per program, and the refusals that are bugs.

A differentiate object builds each entry point (jvp, vjp, grad, value_and_grad, a reverse jacobian, the
value by the target's code) on first use and shares what the others made (a program per signature, its names, for backend="numba" its
module's names of numba and numpy).  A bug there shows only on a second entry point of one object (issue
32: under backend="numba", grad then value_and_grad refused with ``NameError: name 'numba' is not
defined``; only fresh objects worked).  So the checker calls every entry point once, in an order drawn
from the program's seed (order), before its detailed checks; and a refusal that names backend="python"
(a program outside a compiled target's subset) is a bug when the object ran another entry point before
and a fresh object runs the refused call (compiled_before).
"""

from __future__ import annotations

import random

ENTRIES = ("jvp", "vjp", "grad", "value_and_grad", "jacobian(reverse)", "value")


def order(seed: int) -> tuple:
    """The entry points in the order a program's first point calls them; drawn from a generator of its
    own, so the point's directions stay those of the seed."""
    entries = list(ENTRIES)
    random.Random(seed * 7919 + 17).shuffle(entries)
    return tuple(entries)


def calls(args, tangents, ct, copy) -> dict:
    """entry point -> a function calling it on a differentiate object at ``args`` (copied each call)."""
    import adcompiler

    def jacobian(d):
        return adcompiler.jacobian(d, mode="reverse")(*copy(args))

    return {
        "jvp": lambda d: d.jvp(tuple(copy(args)), tangents),
        "vjp": lambda d: d.vjp(tuple(copy(args)), ct),
        "grad": lambda d: d.grad(*copy(args)),
        "value_and_grad": lambda d: d.value_and_grad(*copy(args)),
        "jacobian(reverse)": jacobian,
        "value": lambda d: d.value(*copy(args)),
    }


def compiled_before(refusal, ran: list, fresh) -> str | None:
    """Why ``refusal`` (an UnsupportedSyntaxError naming backend="python") is a bug, or None: the object
    ran the entry points ``ran`` before, and ``fresh()``, a new object for the same function, runs the
    call that was refused (whose entry point and call the checker attached to the refusal)."""
    from ...errors import UnsupportedSyntaxError

    retry, entry = getattr(refusal, "fuzz_retry", None), getattr(refusal, "fuzz_entry", "?")
    if not ran or retry is None:
        return None
    try:
        retry(fresh())
    except UnsupportedSyntaxError:
        return None  # refused on its own too: outside the target's subset
    except Exception as exc:  # noqa: BLE001 - a fresh object's crash: the refusal hid it
        return f"{entry} refused after {', '.join(ran)} ran on the same object; a fresh object raises {exc!r}"
    return (
        f"{entry} refused after {', '.join(ran)} ran on the same object, where a fresh object runs it: "
        f"{type(refusal).__name__}: {refusal}"
    )
