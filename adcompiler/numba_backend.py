"""``differentiate(f, backend="numba")``: the generated derivative code compiled by ``numba.njit``.

The code of the python target is rewritten into the form Numba types (``back.numba_target``),
loaded like any generated code, and its functions compiled in nopython mode; the user's functions
it calls are compiled too (a ``@numba.njit`` one is used as it is).  The entry made here converts
the arguments for compiled code (``back.numba_values``), calls it, and gives back every result in
the structure the python target gives (lists where the argument was a list); a typing error of
Numba is reported at the user's line, with the construct, and the advice that ``backend="python"``
handles it.
"""

from __future__ import annotations

import functools
import inspect
import re
import traceback
import types

from .analysis import values as V
from .errors import UnsupportedSyntaxError
from .back import emit
from .back.load import load
from .back.numba_target import translate
from .pipeline import Program

BACKENDS = ("python", "numba")


class NumbaProgram(Program):
    """The program of the Numba target: a call of a recursive function recomputes its residuals in
    the adjoint sweep (``modes.primal.recomputed``), since Numba has no type for residuals that hold
    the next level's."""

    recompute_recursion = True


def numba_module():
    """The ``numba`` module, or an ImportError that says how to install it."""
    try:
        import numba
    except ImportError:
        raise ImportError(
            'backend="numba" needs Numba: pip install "adcompiler[numba]" (or use backend="python")'
        ) from None
    return numba


def for_backend(fn, backend: str):
    """``fn`` as the backend differentiates it: for "numba", the Python function behind a
    ``@numba.njit`` dispatcher (Numba imported now, so that a missing one is reported at once)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r}: choose one of {', '.join(map(repr, BACKENDS))}")
    if backend == "python" or fn is None:
        return fn
    numba_module()
    py_func = getattr(fn, "py_func", None)
    return py_func if isinstance(py_func, types.FunctionType) else fn


def build(owner, program, built: list, mode: str, sig: V.Sig):
    """The entry function for ``mode``: the generated functions ``built`` compiled by Numba."""
    numba = numba_module()
    from .back.numba_values import converter, restore  # NumPy, imported only where Numba is used

    seen: set = set()
    defs = [d for d in built if not (d.name in seen or seen.add(d.name))]
    source = emit.render_module(defs, program.ns, program.helper_sources, formatted=False)
    source = emit.format_source(
        translate(source, program.helpers, program.module.fresh, False, program.accumulators, owner.fn.__globals__)
    )
    fn = owner.fn
    label = f"{mode} of {fn.__qualname__} (numba)"

    compiled_users: dict = {}

    def supply(read):
        handed = program.supplied(read)
        for name in read:
            value = handed.get(name, fn.__globals__.get(name))
            if isinstance(value, types.FunctionType) and not hasattr(value, "__adc_primitive__"):
                handed[name] = _jitted(value, numba, compiled_users)  # a user function the code calls as it is
        return handed

    namespace = load(source, fn.__globals__, label, supply)
    compiled = namespace[built[0].name]
    facts = program.facts(fn, sig)
    return _entry(compiled, mode, sig, owner._positions, facts.summary.out, source, fn, converter, restore)


def _jitted(fn, numba, done: dict):
    """``fn`` compiled by ``numba.njit``, reading the user functions it calls (itself too, when it
    recurses) as compiled ones: a copy of it over a copy of its globals (Numba freezes them anyway)."""
    if fn in done:
        return done[fn]
    scope = dict(fn.__globals__)
    copy = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
    done[fn] = numba.njit(copy)
    for name in fn.__code__.co_names:
        value = scope.get(name)
        if isinstance(value, types.FunctionType) and not hasattr(value, "__adc_primitive__"):
            scope[name] = _jitted(value, numba, done)
    return done[fn]


def _entry(compiled, mode: str, sig: V.Sig, positions: tuple, out: V.Aval, source: str, fn, converter, restore):
    """The Python entry around ``compiled``: arguments converted, results restored, typing errors
    of Numba located in the user's file."""
    avals = sig.avals
    cts = tuple(avals[i] for i in positions)

    def gradients(g):
        return restore(g, cts[0]) if len(cts) == 1 else tuple(map(restore, g, cts))

    finish = {
        "grad": gradients,
        "value_and_grad": lambda r: (restore(r[0], out), gradients(r[1])),
        "reverse": lambda r: (restore(r[0], out), tuple(map(restore, r[1], cts))),
        "forward": lambda r: (restore(r[0], out), restore(r[1], out)),
    }[mode]

    extra = {"forward": cts, "reverse": (out,)}.get(mode, ())  # tangents, or the output's cotangent
    convert = tuple(map(converter, avals + extra))

    @functools.wraps(compiled.py_func)
    def entry(*args):
        converted = tuple(c(a) for c, a in zip(convert, args, strict=True))
        try:
            result = compiled(*converted)
        except Exception as e:
            problem = _explained(e, source, fn)
            if problem is None:
                raise
            raise problem from None
        return finish(result)

    entry.compiled = compiled
    return entry


def _explained(error, source: str, fn):
    """A located error for a Numba typing error in the compiled code (None for other errors)."""
    numba = numba_module()
    frames = traceback.extract_tb(error.__traceback__)
    compiling = any("numba" in f.filename and f.name == "_compile_for_args" for f in frames)
    if not isinstance(error, numba.core.errors.NumbaError) and not type(error).__module__.startswith("numba"):
        if not compiling or not any(f.filename.endswith(("typeinfer.py", "compiler_machinery.py")) for f in frames):
            return None  # an error of the compiled code as it runs, not of Numba compiling it
        error = f"Numba failed while typing it ({type(error).__name__}: {error})"
    message = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # Numba's terminal colours
    lines = source.splitlines()
    user_line, text = None, None
    found = re.search(r"<adcompiler [^>]*> \((\d+)\)", message)  # the innermost place Numba names
    helper = None
    for k in range(int(found.group(1)) - 1 if found else -1, -1, -1):  # the source line commented last
        comment = re.match(r"\s*# line (\d+): (.*)", lines[k]) if k < len(lines) else None
        if comment:
            user_line, text = int(comment.group(1)), comment.group(2)
            break
        helper = helper or (re.match(r"def (\w+)\(", lines[k]) if k < len(lines) else None)
        if helper:  # in a runtime helper, which has no source lines
            text = f"the runtime helper {helper.group(1)}"
            break
    reason = next((s.strip() for s in message.splitlines() if s.strip() and "Failed in" not in s), message)
    reason = re.sub(r"(, defined at)?\s*\(?<adcompiler [^>]*>.*", "", reason)
    reason = next((plain for known, plain in _REASONS if known in reason), reason)
    construct = text if helper else f"`{text}`" if text else f"the derivative code of {fn.__name__}"
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    return UnsupportedSyntaxError(
        f'{construct} under backend="numba" ({reason})',
        'differentiate it with backend="python", which handles it',
        filename,
        user_line or fn.__code__.co_firstlineno,
        0,
        None if helper else text,
    )


_REASONS = (  # what Numba says -> what it means for the user's code
    (
        "recursive function does not converge",
        "a recursive call in reverse mode: each level keeps the next one's residuals, a type without end",
    ),
    ("Cannot unify array", "a list argument (an array in compiled code) and a list the code builds in one variable"),
)
