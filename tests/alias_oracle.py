"""An independent derivative oracle for functions that mutate their arguments.

Shared by test_aliasing.py and test_hygiene.py.  oracle.check_grads handles
float arguments only; the functions here take floats, (nested) lists and
NumPy arrays, and they may write into their arguments, so every evaluation
(the primal, each finite-difference point, each jvp and each vjp) gets its
own deep copy of the arguments: a run never sees what an earlier run wrote.

The references are never adcompiler's own output:

* central finite differences of the primal along random directions, taken
  at two step sizes (a point where they disagree is within a step of a kink
  or a branch switch and is reported as "skipped", not checked);
* forward against reverse mode: <u, J v> == <J^T u, v>;
* the value returned by jvp and vjp equals the primal's.

``outcome`` differentiates and checks, and returns "ok", "skipped", or
"refused" when adcompiler raised a *located* error (UnsupportedSyntaxError
pointing into the function's file, inside the function, with a construct
and advice).  Anything else -- a wrong number, an unlocated error, a crash
inside generated code -- is an AssertionError with the details.
"""

from __future__ import annotations

import copy
import inspect
import math
import random
import re

import adcompiler

try:
    import numpy
except ImportError:  # pragma: no cover - the test extra installs NumPy
    numpy = None

RTOL = 1e-5
ATOL = 1e-6
DUALITY_RTOL = 1e-9
KINK_RTOL = 1e-5

LOCATED = re.compile(
    r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): (?P<construct>.+?) is not supported; (?P<advice>.+)$", re.S
)


# ------------------------------------------------------------------ structures


def is_array(value) -> bool:
    return numpy is not None and isinstance(value, numpy.ndarray)


def leaves(value) -> list:
    """The numbers of a float, a (nested) list or tuple, or an array, in order."""
    if is_array(value):
        return [float(v) for v in value.ravel()]
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out += leaves(v)
        return out
    return [float(value)]


def rebuild(template, values):
    """A fresh object shaped like ``template`` holding the next numbers of the iterator ``values``.

    Lists stay lists, tuples tuples, arrays become float arrays of the same
    shape; nothing of ``template`` is shared with the result.
    """
    if is_array(template):
        flat = [next(values) for _ in range(template.size)]
        return numpy.array(flat, dtype=float).reshape(template.shape)
    if isinstance(template, (list, tuple)):
        items = [rebuild(v, values) for v in template]
        return tuple(items) if isinstance(template, tuple) else items
    return float(next(values))


def fresh(args) -> tuple:
    """A deep copy of the arguments (aliasing *within* them is kept, as deepcopy keeps it)."""
    return tuple(copy.deepcopy(list(args)))


def _close(a, b, scale, rtol, atol) -> bool:
    if math.isnan(a) or math.isnan(b):
        return False
    return abs(a - b) <= atol + rtol * max(abs(b), scale)


class Layout:
    """The wrt arguments of a call as one flat vector, and back."""

    def __init__(self, fn, args, wrt):
        self.names = list(inspect.signature(fn).parameters)[: len(args)]
        self.args = tuple(args)
        self.wrt = tuple(wrt)
        self.positions = [self.names.index(w) for w in self.wrt]
        self.sizes = [len(leaves(args[i])) for i in self.positions]

    def flat(self) -> list:
        out = []
        for i in self.positions:
            out += leaves(self.args[i])
        return out

    def at(self, vec) -> tuple:
        """Fresh arguments with the wrt inputs replaced by ``vec``."""
        out = list(fresh(self.args))
        it = iter(vec)
        for i in self.positions:
            out[i] = rebuild(self.args[i], it)
        return tuple(out)

    def tangents(self, vec) -> tuple:
        """``vec`` as one tangent per wrt parameter, each shaped like its argument."""
        it = iter(vec)
        return tuple(rebuild(self.args[i], it) for i in self.positions)


# ------------------------------------------------------------------ checking


def check_located_error(err, fn) -> None:
    """``err`` is a located refusal pointing into ``fn``'s file, inside ``fn`` or a function it calls."""
    assert isinstance(err, adcompiler.UnsupportedSyntaxError), f"{type(err).__name__}: {err}"
    m = LOCATED.match(err.msg)
    assert m, f"not of the form FILE:LINE:COL: X is not supported; advice: {err.msg!r}"
    assert err.filename == inspect.getsourcefile(fn), (err.filename, inspect.getsourcefile(fn))
    assert int(m["line"]) == err.lineno and int(m["col"]) == err.offset >= 1, err.msg
    with open(err.filename) as fh:
        n_lines = len(fh.read().splitlines())
    assert 1 <= err.lineno <= n_lines, err.msg
    assert m["construct"].strip() and len(m["advice"].strip()) >= 5, err.msg


def fd_direction(fn, layout: Layout, v, h) -> list:
    x0 = layout.flat()
    plus = layout.at([a + h * b for a, b in zip(x0, v)])
    minus = layout.at([a - h * b for a, b in zip(x0, v)])
    fp, fm = leaves(fn(*plus)), leaves(fn(*minus))
    return [(a - b) / (2 * h) for a, b in zip(fp, fm)]


def outcome(fn, args, wrt=None, *, seed=0, directions=2, df=None) -> str:
    """Differentiate ``fn`` (every parameter by default) and check it at ``args``.

    Returns "ok", "skipped" (too near a kink to check by differences) or
    "refused" (a located UnsupportedSyntaxError); raises AssertionError on
    any wrong derivative, wrong value or other exception.
    """
    names = list(inspect.signature(fn).parameters)
    wrt = tuple(names[: len(args)] if wrt is None else wrt)
    layout = Layout(fn, args, wrt)
    rng = random.Random(seed)
    value = fn(*fresh(args))
    flat_value = leaves(value)
    if not all(math.isfinite(v) for v in flat_value):
        return "skipped"
    x0 = layout.flat()
    n, m = len(x0), len(flat_value)
    h = 6e-6 * max([1.0] + [abs(a) for a in x0])
    dirs = [[rng.uniform(-1, 1) for _ in range(n)] for _ in range(directions)]
    if n <= 3:
        dirs += [[float(k == j) for k in range(n)] for j in range(n)]
    scale = max([1.0] + [abs(v) for v in flat_value])
    fds = []
    for v in dirs:
        f1 = fd_direction(fn, layout, v, h)
        f2 = fd_direction(fn, layout, v, h / 10)
        if not all(_close(a, b, 0.0, KINK_RTOL, 1e-5 * scale) for a, b in zip(f1, f2)):
            return "skipped"
        fds.append(f1)
    try:
        if df is None:
            df = adcompiler.differentiate(fn, wrt=wrt)
        jvps = []
        for v in dirs:  # (each tangent handed as the caller has it after: jvp changes no argument of its own)
            tangents = layout.tangents(v)
            jvps.append(df.jvp(fresh(args), tangents))
            if leaves(tangents) != leaves(layout.tangents(v)):
                raise AssertionError(f"{fn.__name__}{args}: jvp changed the tangents it was handed: {tangents!r}")
        cots = [[rng.uniform(-1, 1) for _ in range(m)] for _ in range(2)]
        vjps = [df.vjp(fresh(args), _cotangent(value, u)) for u in cots]
    except adcompiler.UnsupportedSyntaxError as err:
        check_located_error(err, fn)
        return "refused"
    except Exception as err:  # noqa: BLE001 - anything else is a crash of adcompiler or its code
        raise AssertionError(f"{fn.__name__}{args}: {type(err).__name__}: {err}") from err
    fails = []

    def tol(a, b):
        return _close(a, b, 0.0, RTOL, ATOL * scale)

    def same_value(got):
        got = leaves(got)
        return len(got) == m and all(_close(a, b, 0.0, 1e-12, 1e-300) for a, b in zip(got, flat_value))

    for (val, tan), v, fd in zip(jvps, dirs, fds):
        if not same_value(val):
            fails.append(f"jvp value {val!r} != primal {value!r}")
        got = leaves(tan)
        if len(got) != m or not all(tol(a, b) for a, b in zip(got, fd)):
            fails.append(f"jvp(v={v}): tangent {got!r}, finite differences {fd!r}")
    for (val, ct), u in zip(vjps, cots):
        if not same_value(val):
            fails.append(f"vjp value {val!r} != primal {value!r}")
        g = leaves(list(ct))
        if len(g) != n:
            fails.append(f"vjp(u={u}): {len(g)} cotangent entries for {n} inputs: {ct!r}")
            continue
        for v, fd, (_, tan) in zip(dirs, fds, jvps):
            lhs = sum(a * b for a, b in zip(g, v))
            rhs = sum(a * b for a, b in zip(u, fd))
            if not tol(lhs, rhs):
                fails.append(f"vjp(u={u}): <J^T u, v> = {lhs!r}, finite differences <u, J v> = {rhs!r} (v={v})")
            jv = leaves(tan)
            dual = sum(a * b for a, b in zip(u, jv))
            mag = sum(abs(a * b) for a, b in zip(u, jv)) + sum(abs(a * b) for a, b in zip(g, v))
            if not _close(dual, lhs, mag, DUALITY_RTOL, 1e-12):
                fails.append(f"<u, J v> = {dual!r} (jvp) but <J^T u, v> = {lhs!r} (vjp)")
    assert not fails, f"{fn.__name__}{args} wrt {wrt}:\n  " + "\n  ".join(fails)
    return "ok"


def _cotangent(value, u):
    """The cotangent ``u`` (a flat list) shaped like the output ``value``."""
    return rebuild(value, iter(u))
