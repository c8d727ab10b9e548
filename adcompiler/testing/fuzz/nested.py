"""The nested check: a derivative of generated gradient code, checked against the gradient's own values.

For a program whose output is a number, ``differentiate(d.grad).jvp`` gives the gradient and a
Hessian-vector product H v (forward mode over d's reverse code, ``jax.jvp(jax.grad(f), ...)``), built
twice: before ``d.grad`` ran (for the signature d's code assumes) and after (for the call's). Each
must return ``d.grad``'s value and an H v of the gradient's structure, with ``<w, H v> == <v, H w>`` (a
Hessian is symmetric) and H v equal to Richardson-extrapolated central differences of ``d.grad`` along v
(not compared where those are noisy: near a kink of the gradient).  Gradient code need not be in the
subset the generators write: a refusal of it (``UnsupportedSyntaxError``, under ``backend="numba"``
too) is counted "outside", not a bug.
"""

from __future__ import annotations

import random
import shutil
import tempfile
import traceback

from .check import ATOL, DUALITY_RTOL, RTOL, Failure, close, copy_args, fd_smooth, load_module, primal_value, quiet
from .config import Spec
from .layout import Layout, flat_out, structure, unflat_like

TRIES = 3  # points drawn for a program until one is valid and away from kinks


def check_nested(spec: Spec, directory: str, seed: int, backend: str = "python") -> str:
    """One program's nested check at the first of TRIES random points where it can be made: 'checked',
    'skipped' (no point valid and away from kinks), 'not a number' (an output without a gradient) or
    'outside' (refused); raises Failure on a mismatch or crash."""
    fn = getattr(load_module(spec.source, directory, "nested"), spec.entry)
    layout = Layout(spec.params)
    rng = random.Random(seed)
    with quiet():
        for _ in range(TRIES):
            args = layout.draw(rng)
            value = primal_value(fn, args)
            if value is None:
                continue
            if structure(value) != "s":
                return "not a number"
            outcome = nested_point(fn, layout, args, rng, backend)
            if outcome != "skipped":
                return outcome
    return "skipped"


def check_nested_source(
    source: str, params, outputs: int, point, seed: int = 0, directory: str | None = None, backend: str = "python"
):
    """The nested check of `source`'s function f at one point (the minimiser's oracle, called as
    check.check_source is): 'checked' | 'skipped' | 'invalid' | 'not a number' | 'outside', or a Failure.
    Exceptions of the primal itself but its arithmetic and domain errors (a name the minimiser deleted)
    propagate."""
    own = directory is None
    directory = directory or tempfile.mkdtemp(prefix="adc_fuzz_nested_")
    try:
        fn = load_module(source, directory, "nested").f
        layout = Layout(params)
        args = layout.from_plain(point)
        with quiet():
            value = primal_value(fn, args)
            if value is None:
                return "invalid"
            if structure(value) != "s":
                return "not a number"
            try:
                return nested_point(fn, layout, args, random.Random(seed), backend)
            except Failure as f:
                return f
    finally:
        if own:
            shutil.rmtree(directory, ignore_errors=True)


def nested_point(fn, layout: Layout, args, rng: random.Random, backend: str) -> str:
    """The nested check of fn at args, along random directions v and w: 'checked', 'skipped' where
    central differences of the gradient are noisy (the rest was checked), or 'outside' where d.grad or
    both of its derivatives are refused; raises Failure on a mismatch or crash."""
    import adcompiler
    from ...errors import UnsupportedSyntaxError

    nin = len(layout.flat(args))
    v, w = ([rng.uniform(-1, 1) for _ in range(nin)] for _ in range(2))
    point = layout.plain(args)
    options = {"wrt": layout.wrt, "backend": backend}

    def of_grad(when):
        """differentiate(d.grad), or None where it is refused."""
        try:
            return _run(f"differentiate(d.grad) {when}", lambda: adcompiler.differentiate(df.grad, **options), point)
        except UnsupportedSyntaxError:
            return None

    try:
        df = _run("differentiate(f)", lambda: adcompiler.differentiate(fn, **options), point)
        before = of_grad("before d.grad ran")
        grad = _run("grad", lambda: df.grad(*copy_args(args)), point)
    except UnsupportedSyntaxError:
        return "outside"
    # checked in this order: a bug of the usual way (after a call) is not hidden behind one of the other
    built = {"after d.grad ran": of_grad("after d.grad ran"), "before d.grad ran": before}
    scale = max(1.0, max(abs(g) for g in flat_out(grad)))
    try:
        fd = fd_smooth(df.grad, layout, args, v, scale)
    except (ArithmeticError, ValueError, IndexError, RecursionError):
        fd = None
    outcomes = set()
    for when, d2 in built.items():
        try:
            hv = products(d2, when, layout, args, grad, v, w) if d2 is not None else None
        except UnsupportedSyntaxError:
            hv = None
        if hv is None:
            outcomes.add("outside")
            continue
        for j, (a, b) in enumerate(zip(hv, fd or ())):
            if not close(a, b, 0.0, RTOL, ATOL * scale):
                msg = f"jvp(grad) {when} (v={v}) input {j}: got {a!r}, finite differences of grad {b!r}"
                _fail("mismatch", msg, point)
        outcomes.add("checked" if fd is not None else "skipped")
    return next(o for o in ("checked", "skipped", "outside") if o in outcomes)


def products(d2, when: str, layout: Layout, args, grad, v, w) -> list:
    """H v from ``d2.jvp`` (d2 = differentiate(d.grad), built `when`), flat, once its value is checked
    against grad, its structure against grad's and ``<w, H v>`` against ``<v, H w>``."""
    point = layout.plain(args)
    flat = []
    for u in (v, w):
        got, hu = _run(f"jvp(grad) {when}", lambda: d2.jvp(tuple(copy_args(args)), layout.tangents(u)), point)
        same = structure(got) == structure(grad) and all(
            close(a, b, 0.0, 1e-12, 1e-300) or a == b for a, b in zip(flat_out(got), flat_out(grad))
        )
        if not same:
            _fail("mismatch", f"jvp(grad) {when} (v={u}): value != grad: {got!r}, d.grad gives {grad!r}", point)
        if structure(hu) != structure(grad):
            msg = f"jvp(grad) {when} (v={u}): tangent has not the structure of the gradient: {hu!r}, {grad!r}"
            _fail("mismatch", msg, point)
        flat.append(flat_out(hu))
    hv, hw = flat
    lhs, rhs = sum(a * b for a, b in zip(w, hv)), sum(a * b for a, b in zip(v, hw))
    size = sum(abs(a * b) for a, b in zip(w, hv)) + sum(abs(a * b) for a, b in zip(v, hw))
    if not close(lhs, rhs, size, DUALITY_RTOL, 1e-12):
        _fail("mismatch", f"jvp(grad) {when}: <w, H v> = {lhs!r} but <v, H w> = {rhs!r} (v={v}, w={w})", point)
    reverse_over_reverse(d2, when, layout, args, grad, v, w, lhs, size)
    return hv


def reverse_over_reverse(d2, when: str, layout: Layout, args, grad, v, w, whv: float, size: float) -> None:
    """``H w`` from ``d2.vjp`` (reverse mode over d's reverse code: the cotangent w of the gradient pulled
    back), its value checked against grad and ``<v, H w>`` against ``<w, H v>`` from forward mode (``whv``);
    nothing where reverse over reverse is refused (a runtime helper without a reverse rule)."""
    from ...errors import UnsupportedSyntaxError

    point = layout.plain(args)
    if not hasattr(d2, "vjp"):  # (a stand-in with forward mode only: the tests of this check's own failures)
        return
    try:
        ct = unflat_like(grad, list(w))
        got, cts = _run(f"vjp(grad) {when}", lambda: d2.vjp(tuple(copy_args(args)), ct), point)
    except UnsupportedSyntaxError:
        return
    if not all(close(a, b, 0.0, 1e-12, 1e-300) or a == b for a, b in zip(flat_out(got), flat_out(grad))):
        _fail("mismatch", f"vjp(grad) {when} (w={w}): value != grad: {got!r}, d.grad gives {grad!r}", point)
    hw = flat_out(cts)
    if len(hw) != len(v):
        _fail("mismatch", f"vjp(grad) {when} (w={w}): {len(hw)} cotangents for {len(v)} inputs: {cts!r}", point)
    vhw = sum(a * b for a, b in zip(v, hw))
    if not close(vhw, whv, size, DUALITY_RTOL, 1e-12):
        _fail("mismatch", f"vjp(grad) {when}: <v, H w> = {vhw!r} by reverse over reverse, {whv!r} by jvp(grad)", point)


def _run(what: str, thunk, point):
    """thunk(), a refusal propagated, anything else it raises a crash (a Failure at point)."""
    from ...errors import UnsupportedSyntaxError

    try:
        return thunk()
    except UnsupportedSyntaxError:
        raise
    except Exception as exc:  # noqa: BLE001 - anything from adcompiler or generated code is a bug
        _fail("crash", f"{what} raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}", point)


def _fail(kind: str, message: str, point):
    """Raise the nested check's Failure."""
    raise Failure(kind, f"nested {message}", point, check="nested") from None
