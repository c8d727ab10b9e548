"""``check_grad``: compare both modes with central differences and the complex step."""

from __future__ import annotations

import random
import warnings
from typing import Any, Callable

from .differentiable import Wrt, differentiate
from ..errors import ReverseOnlyError
from .arguments import called_with
from .higher import as_differentiable, leaves, rebuild, wrt_leaves, wrt_rebuild
from .trees import fields, make

MAX_OUTPUTS = 20  # up to this many output scalars, each is checked on its own; beyond it, a random mix


def check_grad(f: Callable[..., Any], *args: Any, wrt: Wrt = None, tol: float = 1e-6) -> float:
    """The largest relative error between adcompiler's derivatives and independent estimates.

    For each wrt input scalar and each output scalar (a random mix of the outputs when there are
    more than ``MAX_OUTPUTS``): the reverse-mode cotangent, the forward-mode tangent, a central
    difference (Richardson-extrapolated), and the complex step ``Im f(x + ih) / h`` where it
    applies.  The complex step has no cancellation error but holds only where ``f`` is analytic:
    through ``abs``, ``max``, comparisons and the like it is silently wrong, so it is used only
    where it agrees with the central difference, and the central difference is the reference
    elsewhere.  Errors are relative to ``max(1, |derivative|)``, in the function's own units.
    A function calling one with a vjp rule only (``custom_vjp``) has no forward mode: reverse mode is
    compared with the references alone there.  Integers (in records, lists and tuples) have no
    derivative and are no inputs.  Raises AssertionError with a per-entry table when an error
    exceeds ``tol``.
    """
    d = as_differentiable(f, wrt) if wrt is not None or hasattr(f, "vjp") else differentiate(f)
    args, sig = d._bound(args, flat=False)
    positions, names = d._positions_of(sig), d._wrt_of(sig)
    run = lambda *values: called_with(d.fn, d.signature, values)  # noqa: E731  (keyword-only ones by keyword)
    value = run(*args)
    n_out = len(leaves(value))
    seeds: list[tuple[int | None, list[float]]]
    if n_out <= MAX_OUTPUTS:
        seeds = [(k, [1.0 if i == k else 0.0 for i in range(n_out)]) for k in range(n_out)]
    else:
        rng = random.Random(0)
        seeds = [(None, [rng.uniform(0.5, 1.5) for _ in range(n_out)])]
    inputs = [(pos, name, j) for pos, name in zip(positions, names) for j in range(len(wrt_leaves(args[pos])))]
    try:
        forward = [_directional(d, args, positions, pos, j) for pos, _, j in inputs]
    except ReverseOnlyError:  # a custom_vjp rule: no forward mode to compare, reverse mode against the references
        forward = [None] * len(inputs)
    rows = []
    for k, weights in seeds:
        _, cts = d.vjp(args, rebuild(value, iter(weights)))
        reverse = [float(c) for c in wrt_leaves(list(cts), [args[p] for p in positions])]
        for (pos, name, j), r, tout in zip(inputs, reverse, forward):
            fw = None if tout is None else sum(w * t for w, t in zip(weights, leaves(tout)))
            central = _central(run, args, pos, j, weights)
            step = _complex_step(run, args, pos, j, weights)
            if step is not None and abs(step - central) > 1e-5 * max(1.0, abs(central)):
                step = None  # f is not analytic here (abs, max, a comparison): the complex step does not apply
            reference = central if step is None else step
            scale = max(1.0, abs(reference))
            err = abs(r - reference) if fw is None else max(abs(r - reference), abs(fw - reference), abs(r - fw))
            err /= scale
            label = f"{name}[{j}]" if isinstance(args[pos], (list, tuple)) or _is_array(args[pos]) else name
            if n_out > 1:
                label += f",out[{k}]" if k is not None else ",mix"
            rows.append((label, r, fw, central, step, err))
    worst = max((row[-1] for row in rows), default=0.0)
    if worst > tol:
        raise AssertionError(_report(d.fn.__name__, rows, tol, mixed=n_out > MAX_OUTPUTS))
    return worst


def _report(name: str, rows: list, tol: float, mixed: bool) -> str:
    """The failure message: one line per (input, output) entry, the failing ones marked."""
    lines = [f"{'input':>10} {'reverse':>14} {'forward':>14} {'central':>14} {'complex step':>14} {'rel. error':>10}"]
    for label, r, fw, c, s, e in rows:
        flag = "  <-" if e > tol else ""
        fw, s = ("-" if v is None else f"{v:.7g}" for v in (fw, s))  # (no forward mode: a custom_vjp rule)
        lines.append(f"{label:>10} {r:14.7g} {fw:>14} {c:14.7g} {s:>14} {e:10.2e}{flag}")
    note = " (outputs mixed with random weights: more than %d of them)" % MAX_OUTPUTS if mixed else ""
    return f"gradient check of {name} failed (tol {tol:g}){note}:\n" + "\n".join(lines)


def _directional(d, args, positions, pos, j):
    """The forward-mode tangent of the output along the j-th scalar of argument ``pos``."""
    tangents = tuple(
        wrt_rebuild(args[p], iter([1.0 if (p == pos and i == j) else 0.0 for i in range(len(wrt_leaves(args[p])))]))
        for p in positions
    )
    return d.jvp(args, tangents)[1]


def _is_array(value) -> bool:
    return type(value).__name__ == "ndarray"


def _bumped(value, j: int, delta):
    """A copy of ``value`` (a number, array, or nested list/tuple/record) with its j-th scalar (integers not
    counted) plus ``delta``; an array takes a dtype that holds the sum exactly (complex for the complex
    step, float64 else)."""
    items = fields(value)
    if items is not None:  # a record: its items in key order, as leaves reads them
        return make(type(value), tuple(items), _bumped(tuple(items.values()), j, delta))
    if isinstance(value, (list, tuple)):
        out, start = [], 0
        for v in value:
            n = len(wrt_leaves(v))
            out.append(_bumped(v, j - start, delta) if 0 <= j - start < n else v)
            start += n
        return tuple(out) if isinstance(value, tuple) else out
    if _is_array(value):
        import numpy as np

        out = value.astype(np.result_type(value.dtype, np.float64, type(delta)), copy=True)
        out.flat[j] += delta
        return out
    return value + delta


def _perturbed(args, pos, j, delta):
    out = list(args)
    out[pos] = _bumped(args[pos], j, delta)
    return out


def _difference(fn, args, pos, j, weights, h) -> float:
    up = leaves(fn(*_perturbed(args, pos, j, h)))
    down = leaves(fn(*_perturbed(args, pos, j, -h)))
    return sum(w * (float(a) - float(b)) for w, a, b in zip(weights, up, down)) / (2 * h)


def _central(fn, args, pos, j, weights) -> float:
    """A central difference with one Richardson step (error O(h^4)), at the step size where the estimate
    settles: estimates at steps 1e-2 .. 1e-6 are compared in neighbouring pairs, and the finer of the pair
    that agrees best is taken (a large step misjudges a steep function, a small one loses digits).  No step
    reaches half the number's own size: ``tol=1e-12`` stays positive (a while loop testing ``> tol`` ends), and
    so does a scale a log or a square root reads."""
    x = abs(float(wrt_leaves(args[pos])[j]))
    scale, limit = max(1.0, x), x / 2 if x else float("inf")
    estimates = []
    for h in (1e-2, 1e-3, 1e-4, 1e-5, 1e-6):
        coarse = _difference(fn, args, pos, j, weights, min(h * scale, limit))
        fine = _difference(fn, args, pos, j, weights, min(h * scale, limit) / 2)
        estimates.append((4.0 * fine - coarse) / 3.0)
    best = min(range(len(estimates) - 1), key=lambda i: abs(estimates[i] - estimates[i + 1]))
    return estimates[best + 1]


def _complex_step(fn, args, pos, j, weights):
    """Im(f(x + ih)) / h, or None where f does not accept complex numbers (math functions, comparisons, a
    derivative adcompiler takes inside f: its own refusal of a complex argument)."""
    h = 1e-20
    try:
        with warnings.catch_warnings():  # a complex value stored into a float array loses its imaginary part
            warnings.simplefilter("ignore")
            out = leaves(fn(*_perturbed(args, pos, j, complex(0.0, h))))
    except Exception:  # noqa: BLE001  (TypeError of math, comparisons; a @numba.njit function's typing error)
        return None
    try:
        return sum(w * complex(o).imag for w, o in zip(weights, out)) / h
    except TypeError:
        return None


__all__ = ["check_grad"]
