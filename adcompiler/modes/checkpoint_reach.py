"""Where ``checkpoint=`` does not reach: a warning when the loops are in functions the differentiated one calls.

Checkpointing (``checkpoint``) runs the qualifying loops of the differentiated function itself; a
function it calls is differentiated in two sweeps (its forward sweep hands its tape to its reverse
sweep), and its loops are taped as usual.  So ``differentiate(f, checkpoint=True)`` of an ``f`` whose
long loop is in a helper changed nothing, silently: now it warns, naming the helper's loop and what to
write instead.  (Checkpointing a helper's loop across its two sweeps would need ``checkpoint`` to
snapshot into the residuals the forward sweep hands on: not done.)
"""

from __future__ import annotations

import os
import sys
import warnings

from ..ir.nodes import Eq, For, While, walk


def warn_if_unreached(sweeps, program) -> None:
    """Warn when ``checkpoint=`` was asked for, no loop of the differentiated function was checkpointed
    (``sweeps.kept.checkpoints`` is empty), and a function it calls (at any depth) has a loop."""
    plan = sweeps.plan
    if not plan.options.checkpoint or sweeps.kept.checkpoints or plan.split:
        return
    fn = plan.facts.fn
    if any(isinstance(s, (For, While)) for s in walk(fn.body)):
        return  # its own loops did not qualify (see checkpoint's docstring): not what this warns of
    found = _loop_in_callees(program, fn, set())
    if found is None:
        return
    callee, loop = found
    where = f"{callee.source.filename}:{loop.line}" if callee.source is not None else callee.name
    warnings.warn(
        f"checkpoint={plan.options.checkpoint!r} changes nothing in {fn.name}: its loop is in {callee.name} "
        f"({where}), a function it calls, and checkpointing applies to the loops of the differentiated "
        f"function itself (a function it calls is differentiated in two sweeps, which checkpointing does not "
        f"split); to checkpoint the loop, write it in {fn.name}",
        UserWarning,
        stacklevel=_users_frame(),
    )


def _users_frame() -> int:
    """The ``stacklevel`` of the first frame outside adcompiler (the user's call that built the code)."""
    package, level = os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 1
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def _loop_in_callees(program, fn, seen: set):
    """(the lowered callee, its first loop) for the first function ``fn`` calls, at any depth, that has
    a loop; None if none."""
    for eq in walk(fn.body):
        if not isinstance(eq, Eq) or eq.prim != "call" or eq.param in seen:
            continue
        seen.add(eq.param)
        callee = program.anf(eq.param)
        loop = next((s for s in walk(callee.body) if isinstance(s, (For, While))), None)
        if loop is not None:
            return callee, loop
        deeper = _loop_in_callees(program, callee, seen)
        if deeper is not None:
            return deeper
    return None
