"""``check_grad``: compare both modes with central differences and the complex step."""

from __future__ import annotations

import cmath
import math
import random

from .api import differentiate
from .higher import as_differentiable, leaves, rebuild


def check_grad(f, *args, wrt=None, tol=1e-6):
    """The largest relative error between adcompiler's derivatives and independent estimates.

    For each wrt input scalar: the reverse-mode cotangent (with a random output
    cotangent, so vector outputs are covered), the forward-mode tangent, a
    central difference, and, where ``f`` accepts complex input, the complex
    step ``Im f(x + ih) / h`` (no cancellation error).  Raises AssertionError
    with a per-input table when an error exceeds ``tol``.
    """
    d = as_differentiable(f, wrt) if wrt is not None or hasattr(f, "vjp") else differentiate(f)
    args = d._bind(args)
    rng = random.Random(0)
    value = d.fn(*args)
    ct = rebuild(value, iter([rng.uniform(0.5, 1.5) for _ in leaves(value)]))
    _, cts = d.vjp(args, ct)
    reverse = [float(c) for c in leaves(list(cts))]
    rows, errors = [], []
    k = 0
    for pos, name in zip(d._positions, d.wrt):
        for j in range(len(leaves(args[pos]))):
            tangents = tuple(
                rebuild(args[p], iter([1.0 if (p == pos and i == j) else 0.0 for i in range(len(leaves(args[p])))]))
                for p in d._positions
            )
            _, tout = d.jvp(args, tangents)
            forward = sum(c * t for c, t in zip(leaves(ct), leaves(tout)))
            central = _central(d.fn, args, pos, j, ct)
            step = _complex_step(d.fn, args, pos, j, ct)
            scale = max(1.0, abs(central))
            errs = [
                abs(reverse[k] - central) / scale,
                abs(forward - central) / scale,
                abs(reverse[k] - forward) / max(1.0, abs(forward)),
            ]
            if step is not None:
                errs += [abs(reverse[k] - step) / max(1.0, abs(step)), abs(forward - step) / max(1.0, abs(step))]
            # finite differences carry O(h^2) error: judge them against the complex step when it exists
            err = max(errs[2:]) if step is not None else max(errs)
            errors.append(err)
            rows.append(
                (
                    f"{name}[{j}]" if isinstance(args[pos], (list, tuple)) else name,
                    reverse[k],
                    forward,
                    central,
                    step,
                    err,
                )
            )
            k += 1
    worst = max(errors, default=0.0)
    if worst > tol:
        lines = [
            f"{'input':>10} {'reverse':>14} {'forward':>14} {'central':>14} {'complex step':>14} {'rel. error':>10}"
        ]
        for name, r, fw, c, s, e in rows:
            flag = "  <-" if e > tol else ""
            lines.append(
                f"{name:>10} {r:14.7g} {fw:14.7g} {c:14.7g} {('-' if s is None else f'{s:.7g}'):>14} {e:10.2e}{flag}"
            )
        raise AssertionError(f"gradient check of {d.fn.__name__} failed (tol {tol:g}):\n" + "\n".join(lines))
    return worst


def _perturbed(args, pos, j, delta):
    items = leaves(args[pos])
    items[j] = items[j] + delta
    out = list(args)
    out[pos] = rebuild(args[pos], iter(items))
    return out


def _central(fn, args, pos, j, ct) -> float:
    x = leaves(args[pos])[j]
    h = 1e-5 * max(1.0, abs(x))
    up = leaves(fn(*_perturbed(args, pos, j, h)))
    down = leaves(fn(*_perturbed(args, pos, j, -h)))
    return sum(c * (a - b) for c, a, b in zip(leaves(ct), up, down)) / (2 * h)


def _complex_step(fn, args, pos, j, ct):
    """Im(f(x + ih)) / h, or None where f does not accept complex numbers (math functions, comparisons)."""
    h = 1e-20
    try:
        out = leaves(fn(*_perturbed(args, pos, j, complex(0.0, h))))
    except (TypeError, ValueError, OverflowError):
        return None
    if not all(isinstance(o, (complex, float, int)) for o in out):
        return None
    return sum(c * complex(o).imag for c, o in zip(leaves(ct), out)) / h


__all__ = ["check_grad", "cmath", "math"]
