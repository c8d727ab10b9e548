"""The oracle: a program's modes checked against finite differences, each other and the primal.

At one point (check_point), at random points (check_program), or at a reported point (check_source);
a bug is raised or returned as a Failure.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import math
import os
import random
import sys
import tempfile
import traceback

from ...targets import registry as targets
from . import entries
from .config import Spec
from .layout import Layout, flat_out, structure, unflat_like

RTOL = 1e-5
ATOL = 1e-6
KINK_RTOL = 1e-5
DUALITY_RTOL = 1e-9


class Failure(Exception):
    """A bug a check found in one program, at a point."""

    def __init__(self, kind: str, message: str, point=None, check: str = "first order"):
        super().__init__(message)
        self.kind = kind  # "mismatch" | "refusal" | "crash"
        self.message = message
        self.point = point
        self.check = check  # "first order" (check_point) | "nested" (nested.check_nested)

    def __reduce__(self):
        return (Failure, (self.kind, self.message, self.point, self.check))


_module_counter = itertools.count()


def load_module(source: str, directory: str, stem: str = "fuzzprog"):
    """Write source to a .py file in directory and import it under a unique name; a module the program
    imports from as ``__companion__``, whose source it holds as ``__adc_fuzz_companion__`` (the ``what``
    fuzzer's helper moved to a module of its own), written and imported first, under a name of its own."""
    name = f"_adc_fuzz_{stem}_{os.getpid()}_{next(_module_counter)}"
    companion = _companion(source)
    if companion is not None:
        helpers = load_module(companion, directory, stem + "_helpers")
        source = source.replace("__companion__", helpers.__name__)
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _companion(source: str) -> str | None:
    """The string a program's top level assigns to ``__adc_fuzz_companion__``, if any."""
    if "__adc_fuzz_companion__" not in source:
        return None
    for stmt in ast.parse(source).body:
        if isinstance(stmt, ast.Assign) and getattr(stmt.targets[0], "id", None) == "__adc_fuzz_companion__":
            return stmt.value.value
    return None


def close(a, b, scale, rtol, atol) -> bool:
    """Whether a is b within atol plus rtol of the larger of |b| and scale (never where either is NaN)."""
    if math.isnan(a) or math.isnan(b):
        return False
    return abs(a - b) <= atol + rtol * max(abs(b), scale)


def copy_args(args):
    """The arguments with their lists and arrays copied (a derivative may write into what it is given)."""
    return [list(a) if isinstance(a, list) else a.copy() if hasattr(a, "ndim") else a for a in args]


def primal(fn, args):
    return fn(*copy_args(args))


def primal_value(fn, args):
    """fn's value at args, or None at an 'invalid' point: the primal raises an arithmetic or a domain
    error there, or a value is not finite or above 1e8."""
    try:
        value = primal(fn, args)
        if all(math.isfinite(v) and abs(v) < 1e8 for v in flat_out(value)):
            return value
    except (ArithmeticError, ValueError, IndexError, RecursionError):
        pass
    return None


def fd_dir(fn, layout: Layout, args, v, h) -> list:
    x0 = layout.flat(args)
    xp = [a + h * b for a, b in zip(x0, v)]
    xm = [a - h * b for a, b in zip(x0, v)]
    fp = flat_out(primal(fn, layout.unflat(args, xp)))
    fm = flat_out(primal(fn, layout.unflat(args, xm)))
    return [(a - b) / (2 * h) for a, b in zip(fp, fm)]


def fd_smooth(fn, layout: Layout, args, v, scale: float) -> list | None:
    """Central differences of fn along v at steps h and h/10, Richardson-extrapolated (the O(h^2) error
    cancels); None where the two steps disagree, beyond 1e-5 of scale (the size of fn's values): a kink
    or a branch switch within a step."""
    h = 6e-6 * max(1.0, max(abs(a) for a in layout.flat(args)))
    f1 = fd_dir(fn, layout, args, v, h)
    f2 = fd_dir(fn, layout, args, v, h / 10)
    if not all(close(a, b, 0.0, KINK_RTOL, 1e-5 * scale) for a, b in zip(f1, f2)):
        return None
    return [b + (b - a) / 99.0 for a, b in zip(f1, f2)]


def stage_value(df, mod, stage: str, args):
    src = df.source(stage)
    ns = dict(mod.__dict__)  # and what a closure reads from its cells (a decorator's wrapper: fn), by the names
    ns.update((n, c.cell_contents) for n, c in zip(df.fn.__code__.co_freevars, df.fn.__closure__ or ()))
    ns.update((text, c.cell_contents) for text, c in df.program.cells.values())  # the code reads them by (k_1)
    exec(compile(src, f"<fuzz {stage}>", "exec"), ns)
    return ns[df.__name__](*copy_args(args))


def dtypes(value) -> list[str]:
    """The dtypes of the NumPy scalars and arrays in a value (Python numbers have none)."""
    if isinstance(value, (tuple, list)):
        return [d for v in value for d in dtypes(v)]
    return [str(value.dtype)] if hasattr(value, "dtype") else []


def check_point(
    df,
    fn,
    mod,
    layout: Layout,
    args,
    rng: random.Random,
    outputs: int,
    stages: bool,
    tolerate: bool = False,
    order: tuple = (),
    ran: list | None = None,
) -> str:
    """'ok' | 'known' | 'skipped' | 'invalid'; raises Failure on a mismatch or crash.

    tolerate: accept the symptoms of the known bugs the checker can see past (KNOWN_BUGS) and return
    'known' for a point that is otherwise right.  order: entry points (entries.ENTRIES) called once, in
    this order, before the detailed checks (grad and value_and_grad only of a number output); ran: a list the names of the entry points that ran are added
    to; a refusal carries its entry point and a call of it (see entries.compiled_before).
    """
    from ...errors import UnsupportedSyntaxError

    known = False
    value = primal_value(fn, args)
    if value is None:
        return "invalid"
    fvalue = flat_out(value)
    m = len(fvalue)
    nin = len(layout.flat(args))
    shape = structure(value)
    dirs = [[rng.uniform(-1, 1) for _ in range(nin)] for _ in range(2)]
    cots = [[rng.uniform(-1, 1) for _ in range(m)] for _ in range(2)]
    try:
        fds = [fd_smooth(fn, layout, args, v, max(1.0, max(abs(x) for x in fvalue))) for v in dirs]
    except (ArithmeticError, ValueError, IndexError, RecursionError):
        return "skipped"
    if None in fds:
        return "skipped"

    def fail(kind, msg):
        raise Failure(kind, msg, layout.plain(args))

    entry_calls = entries.calls(args, layout.tangents(dirs[0]), unflat_like(value, cots[0]), copy_args)

    def run(what, thunk):
        try:
            result = thunk()
        except Failure:
            raise
        except UnsupportedSyntaxError as exc:  # a mode is built on first use: its refusal is a refusal
            exc.fuzz_entry, exc.fuzz_retry = what, entry_calls.get(what.replace("(1.0)", ""))
            raise
        except Exception as exc:  # noqa: BLE001 - anything from generated code is a bug
            fail("crash", f"{what} raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        if ran is not None and what in entry_calls and what not in ran:
            ran.append(what)
        return result

    def same_value(what, got):
        g = flat_out(got)
        if len(g) != m or structure(got) != shape:
            fail("mismatch", f"{what}: value {got!r} has not the structure of the primal {value!r}")
        if not all(close(a, b, 0.0, 1e-12, 1e-300) or a == b for a, b in zip(g, fvalue)):
            fail("mismatch", f"{what}: value {got!r} != primal {value!r}")

    def tol(a, b):
        return close(a, b, 0.0, RTOL, ATOL * max(1.0, max(abs(x) for x in fvalue)))

    order = tuple(e for e in order if outputs == 1 and shape == "s" or e not in ("grad", "value_and_grad"))
    for k, entry in enumerate(order):  # every entry point once, in the program's order, on this one object
        got = run(entry, lambda: entry_calls[entry](df))
        if entry in ("jvp", "vjp", "value_and_grad", "value"):
            same_value(
                f"{entry}, called after {', '.join(order[:k]) or 'nothing'}", got if entry == "value" else got[0]
            )
    jvps = []
    for v, fd in zip(dirs, fds):
        val, tan = run("jvp", lambda: df.jvp(tuple(copy_args(args)), layout.tangents(v)))
        same_value(f"jvp(v={v})", val)
        if structure(tan) != shape:
            fail("mismatch", f"jvp(v={v}): tangent {tan!r} has not the structure of the output {value!r}")
        lowered = [d for d in dtypes(tan) if d != "float64"]  # every output is float64 (or a Python float)
        if lowered:
            fail("mismatch", f"jvp(v={v}): tangent {tan!r} has dtype {lowered[0]}; the output is float64")
        tan = flat_out(tan)
        for j in range(m):
            if not tol(tan[j], fd[j]):
                fail("mismatch", f"jvp(v={v}) output {j}: got {tan[j]!r}, finite differences {fd[j]!r}")
        jvps.append(tan)
    vjps = []
    for u in cots:
        ct = unflat_like(value, u)
        val, cts = run("vjp", lambda: df.vjp(tuple(copy_args(args)), ct))
        same_value(f"vjp(u={u})", val)
        errs = layout.shape_errors(cts) if isinstance(cts, tuple) and len(cts) == len(layout.wrt) else []
        g = flat_out(list(cts))
        if len(g) != nin or errs:
            fail("mismatch", f"vjp(u={u}): cotangents {cts!r} do not match the {nin} inputs {errs}")
        vjps.append(g)
        for v, fd in zip(dirs, fds):
            lhs = sum(a * b for a, b in zip(g, v))
            rhs = sum(a * b for a, b in zip(u, fd))
            if not tol(lhs, rhs):
                fail("mismatch", f"vjp(u={u}): <J^T u, v> = {lhs!r} but finite differences <u, J v> = {rhs!r} (v={v})")
    for v, jv in zip(dirs, jvps):
        for u, jtu in zip(cots, vjps):
            lhs = sum(a * b for a, b in zip(u, jv))
            rhs = sum(a * b for a, b in zip(jtu, v))
            scale = sum(abs(a * b) for a, b in zip(u, jv)) + sum(abs(a * b) for a, b in zip(jtu, v))
            if not close(lhs, rhs, scale, DUALITY_RTOL, 1e-12):
                fail("mismatch", f"<u, J v> = {lhs!r} but <J^T u, v> = {rhs!r} (u={u}, v={v})")
    if outputs == 1 and shape == "s":
        _, ref = run("vjp(1.0)", lambda: df.vjp(tuple(copy_args(args)), 1.0))
        got = run("grad", lambda: df.grad(*copy_args(args)))
        if len(layout.wrt) == 1:
            got = (got,)
        if not all(close(a, b, 0.0, 1e-12, 1e-300) or a == b for a, b in zip(flat_out(list(got)), flat_out(list(ref)))):
            fail("mismatch", f"grad = {got!r} but vjp(1.0) gives {ref!r}")
        val, _ = run("value_and_grad", lambda: df.value_and_grad(*copy_args(args)))
        same_value("value_and_grad", val)
    jacobian = _reverse_jacobian(df, args, run)
    for u, g in zip(cots, vjps if jacobian is not None else ()):  # u^T J, row by row, against the vjps
        rows = [sum(u[k] * jacobian[k][j] for k in range(m)) for j in range(nin)]
        if not all(tol(a, b) for a, b in zip(rows, g)):
            fail("mismatch", f"u^T jacobian(mode='reverse') = {rows!r} but vjp(u={u}) = {g!r}")
    if stages:
        for stage in ("anf", "dup"):
            got = run(f"source({stage!r}) run", lambda: stage_value(df, mod, stage, args))
            same_value(f"source({stage!r})", got)
    return "known" if known else "ok"


def _reverse_jacobian(df, args, run):
    """``adcompiler.jacobian(df, mode="reverse")`` at ``args`` as nested lists (None without NumPy)."""
    import importlib.util

    if importlib.util.find_spec("numpy") is None:
        return None
    import adcompiler

    return run("jacobian(reverse)", lambda: adcompiler.jacobian(df, mode="reverse")(*copy_args(args)).tolist())


def quiet():
    """NumPy's overflow and invalid-value warnings off (an overflowing point is 'invalid' anyway)."""
    import contextlib
    import warnings

    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore", RuntimeWarning)
    return stack


def check_program(
    spec: Spec,
    directory: str,
    seed: int,
    points: int = 3,
    stages: bool = True,
    tolerate: bool = False,
    backend: str = "python",
) -> dict:
    """Check one program; returns counts ('known': checked points that showed a tolerated known bug;
    'outside': 1 where backend="numba" refused it as outside its subset, saying backend="python" does it).

    Raises Failure on a bug.
    """
    import adcompiler
    from ...errors import UnsupportedSyntaxError

    counts = {"checked": 0, "skipped": 0, "invalid": 0, "known": 0, "raised": 0}
    mod = load_module(spec.source, directory)
    fn = getattr(mod, spec.entry)
    layout = Layout(spec.params)
    rng = random.Random(seed)
    ran: list = []  # the entry points that ran on df

    def refused(exc, point):
        """The Failure of a refusal, or None where it is outside a compiled target's subset."""
        if _outside(backend, exc):
            bug = entries.compiled_before(
                exc, ran, lambda: adcompiler.differentiate(fn, wrt=layout.wrt, backend=backend)
            )
            if bug is None:
                return None
            return Failure("refusal", bug, layout.plain(point))
        return Failure("refusal", f"{type(exc).__name__}: {exc}", layout.plain(point))

    try:
        df = adcompiler.differentiate(fn, wrt=layout.wrt, backend=backend)
        if stages:  # the code for the point's own arguments (before a call it is for assumed kinds)
            df._bind(tuple(copy_args(layout.draw(random.Random(seed)))))
            for stage in ("forward", "reverse"):
                compile(df.source(stage), f"<fuzz {stage}>", "exec")
    except UnsupportedSyntaxError as exc:
        if _outside(backend, exc):
            return {**counts, "outside": 1}
        raise Failure(
            "refusal", f"{type(exc).__name__}: {exc}", layout.plain(layout.draw(random.Random(seed)))
        ) from None
    except Exception as exc:  # noqa: BLE001
        msg = f"building raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        raise Failure("crash", msg, layout.plain(layout.draw(random.Random(seed)))) from None
    tried = 0
    with quiet():
        while counts["checked"] < points and tried < 4 * points:
            tried += 1
            args = layout.draw(rng)
            try:
                message = unpacking_error(fn, args) if getattr(spec, "base", None) is not None else None
                if message is not None:  # the primal raises there: so must every derivative (what_runs)
                    same_error(df, directory, spec, layout, args, message, rng)
                    counts["checked"] += 1
                    counts["raised"] += 1
                    continue
                first = stages and counts["checked"] == 0
                order = entries.order(seed) if not ran else ()
                res = check_point(df, fn, mod, layout, args, rng, spec.outputs, first, tolerate, order, ran)
            except Failure:
                raise
            except UnsupportedSyntaxError as exc:
                failure = refused(exc, args)
                if failure is None:
                    return {**counts, "outside": 1}
                raise failure from None
            if res == "known":
                counts["known"] += 1
            counts[res if res not in ("ok", "known") else "checked"] += 1
    return counts


def unpacking_error(fn, args) -> str | None:
    """The message of the ValueError Python's unpacking raises when ``fn`` runs at ``args``, or None."""
    try:
        primal(fn, args)
    except ValueError as exc:
        if str(exc).startswith(("too many values to unpack", "not enough values to unpack")):
            return str(exc)
    except Exception:  # noqa: BLE001 - any other outcome: check_point's
        pass
    return None


def same_error(df, directory: str, spec, layout: Layout, args, message: str, rng: random.Random) -> None:
    """Each entry point raises the primal's ValueError of an unpacking, with its message: jvp, vjp (a
    cotangent shaped like the output of ``spec.base``, the program without the line), and for a number
    output grad and value_and_grad.  Raises Failure otherwise."""
    from ...errors import UnsupportedSyntaxError

    base = getattr(load_module(spec.base, directory, "base"), spec.entry)
    try:
        value = primal(base, args)
    except Exception:  # noqa: BLE001 - the program without the line fails there too: jvp alone
        value = None
    u = [rng.uniform(-1, 1) for _ in flat_out(value)] if value is not None else []
    calls = {"jvp": lambda: df.jvp(tuple(copy_args(args)), layout.tangents([1.0] * len(layout.flat(args))))}
    if value is not None:
        calls["vjp"] = lambda: df.vjp(tuple(copy_args(args)), unflat_like(value, u))
        if structure(value) == "s":
            calls["grad"] = lambda: df.grad(*copy_args(args))
            calls["value_and_grad"] = lambda: df.value_and_grad(*copy_args(args))
    for name, call in calls.items():
        try:
            got = call()
        except UnsupportedSyntaxError:  # (a refusal: the caller's to tell)
            raise
        except ValueError as exc:
            if str(exc) != message:
                raise Failure("mismatch", f"{name} raised ValueError({exc}); the primal: {message}", layout.plain(args))
            continue
        except Exception as exc:  # noqa: BLE001
            msg = f"{name} raised {type(exc).__name__}: {exc}; the primal: ValueError({message})"
            raise Failure("crash", f"{msg}\n{traceback.format_exc()}", layout.plain(args)) from None
        raise Failure(
            "mismatch", f"{name} returned {got!r}; the primal raises ValueError({message})", layout.plain(args)
        )


KNOWN_LIMITS = ("a while loop's condition that changes",)  # what every target refuses, each a documented limit


def _outside(backend: str, refusal) -> bool:
    """Whether a compiled target refused the program as outside its subset, saying backend="python" does it,
    or any target refused it for one of the documented limits (``KNOWN_LIMITS``: counted apart, not a bug)."""
    text = str(refusal)
    compiled = targets.of(backend, "numpy") is not targets.PYTHON
    return compiled and 'backend="python"' in text or any(k in text for k in KNOWN_LIMITS)


def check_source(
    source: str,
    params,
    outputs: int,
    point,
    seed: int = 0,
    directory: str | None = None,
    stages=True,
    tolerate: bool = False,
):
    """Check `source`'s function f at one point: 'ok' | 'known' | 'skipped' | 'invalid', or a Failure.

    Used by the minimiser and by the regression tests (which do not tolerate the symptoms of known
    bugs: a regression of a known bug must fail). Exceptions of the primal itself (e.g. a name the
    minimiser deleted) propagate.
    """
    import adcompiler
    from ...errors import UnsupportedSyntaxError

    own = directory is None
    directory = directory or tempfile.mkdtemp(prefix="adc_fuzz_one_")
    try:
        mod = load_module(source, directory, "one")
        fn = mod.f
        layout = Layout(params)
        with quiet():
            primal(fn, layout.from_plain(point))  # a program that does not run is no reproduction (minimiser)
        try:
            df = adcompiler.differentiate(fn, wrt=layout.wrt)
            if stages:  # the code for the point's own arguments (before a call it is for assumed kinds)
                df._bind(tuple(copy_args(layout.from_plain(point))))
                for stage in ("forward", "reverse"):
                    compile(df.source(stage), f"<fuzz {stage}>", "exec")
        except UnsupportedSyntaxError as exc:
            return Failure("refusal", f"{type(exc).__name__}: {exc}", point)
        except Exception as exc:  # noqa: BLE001
            return Failure("crash", f"building raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}", point)
        try:
            with quiet():
                args = layout.from_plain(point)
                return check_point(df, fn, mod, layout, args, random.Random(seed), outputs, stages, tolerate)
        except Failure as f:
            return f
        except UnsupportedSyntaxError as exc:
            return Failure("refusal", f"{type(exc).__name__}: {exc}", point)
    finally:
        if own:
            import shutil

            shutil.rmtree(directory, ignore_errors=True)
