"""``custom_jvp`` and ``custom_vjp``: JAX's spellings of ``defrule``, so rule code written for JAX ports
line by line.

``@custom_jvp`` then ``@f.defjvp`` gives ``f`` a rule ``f_jvp(primals, tangents) -> (out, tangent)``;
``@custom_vjp`` then ``f.defvjp(fwd, bwd)`` gives it ``fwd(*primals) -> (out, residuals)`` and
``bwd(residuals, g) -> (one cotangent per argument,)``.  Each becomes a ``defrule`` rule through a small
generated adapter (plain Python with its source, so code calling it can be differentiated again):

    def f_jvp_rule(x, y, d_x, d_y):             def f_vjp_rule(x, y, g):
        out, tangent = f_jvp((x, y), (d_x, d_y))     out, residuals = f_fwd(x, y)
        return tangent                               return f_bwd(residuals, g)

Reverse mode of a ``custom_jvp`` function transposes its jvp rule (linear in the tangents), as JAX does,
here by evaluating it once per input scalar; forward mode of a ``custom_vjp`` function is refused, as
in JAX.
"""

from __future__ import annotations

import inspect
import itertools
from typing import Any, Callable, ParamSpec, Protocol, TypeVar, cast

from .arguments import not_differentiable
from .higher import leaves, rebuild
from ..rules.custom import defrule, function_from_source

P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


class CustomJVP(Protocol[P, R_co]):
    """The type ``custom_jvp`` gives its function (for type checkers: it returns the function itself)."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...
    def defjvp(self, jvp: Callable[..., Any]) -> Callable[..., Any]: ...


class CustomVJP(Protocol[P, R_co]):
    """The type ``custom_vjp`` gives its function (for type checkers: it returns the function itself)."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...
    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any]) -> None: ...


def custom_jvp(fun: Callable[P, R] | None = None, *, nondiff_argnums: tuple = ()) -> Any:
    """Mark ``fun`` for a JAX-style jvp rule, given next with ``@fun.defjvp``; returns ``fun``.

    The rule takes ``(primals, tangents)``, two tuples with one entry per parameter, and returns
    ``(primal_out, tangent_out)``.  It gives forward mode, and reverse mode by transposing it (one
    evaluation of the rule per input scalar: for large arrays give a vjp rule with ``defrule``);
    second derivatives through that transposition are refused (give ``fun`` a vjp rule with
    ``defrule(fun, jvp=..., vjp=...)``, which is differentiated again).  With ``nondiff_argnums``
    (``functools.partial(custom_jvp, nondiff_argnums=(1,))``, as JAX spells it) the arguments at
    those positions have no derivative: the rule takes them first, ``jvp(k, primals, tangents)``, and
    ``primals`` and ``tangents`` hold the others only.
    """
    if fun is None:
        return lambda f: custom_jvp(f, nondiff_argnums=nondiff_argnums)
    params = _parameters(fun, "custom_jvp")
    fixed = _nondiff(fun, params, nondiff_argnums, "custom_jvp")

    def defjvp(jvp: Callable) -> Callable:
        """Give the jvp rule ``jvp(primals, tangents) -> (primal_out, tangent_out)``; returns ``jvp``."""
        adapter = _jvp_adapter(fun, params, jvp, fixed)
        defrule(fun, jvp=adapter, vjp=_transposed(fun, params, adapter, fixed))
        return jvp

    fun.defjvp = defjvp  # type: ignore[attr-defined]
    return cast(CustomJVP[P, R], fun)


def custom_vjp(fun: Callable[P, R] | None = None, *, nondiff_argnums: tuple = ()) -> Any:
    """Mark ``fun`` for a JAX-style vjp rule, given next with ``fun.defvjp(fwd, bwd)``; returns ``fun``.

    ``fwd(*primals)`` returns ``(primal_out, residuals)``; ``bwd(residuals, g)`` returns a tuple with
    one cotangent per parameter.  Reverse mode only: forward mode (``jvp``, ``jacfwd``, ``hessian``,
    which is forward over reverse) is refused, as in JAX; use ``custom_jvp`` for those.  ``fwd`` runs
    again in the adjoint sweep to give ``bwd`` its residuals (one more primal evaluation).  With
    ``nondiff_argnums``, as JAX spells it, ``bwd(*nondiff, residuals, g)`` takes those arguments first
    and returns the cotangents of the others only (they have no derivative).
    """
    if fun is None:
        return lambda f: custom_vjp(f, nondiff_argnums=nondiff_argnums)
    params = _parameters(fun, "custom_vjp")
    fixed = _nondiff(fun, params, nondiff_argnums, "custom_vjp")

    def defvjp(fwd: Callable, bwd: Callable) -> None:
        """Give the rule pair: ``fwd(*primals) -> (out, residuals)``, ``bwd(residuals, g) -> cotangents``."""
        used = set(params)
        fwd_name, bwd_name = _fresh(_name(fwd, "fwd"), used), _fresh(_name(bwd, "bwd"), used)
        out, res, g, cts = (_fresh(n, used) for n in ("primal_out", "residuals", "g", "cotangents"))
        name = _fresh(f"{fun.__name__}_vjp_rule", used)
        kept = [p for i, p in enumerate(params) if i in fixed]
        slots, k = [], 0
        for i in range(len(params)):  # bwd's cotangents in their parameters' places, 0.0 for the fixed ones
            slots.append("0.0" if i in fixed else f"{cts}[{k}]")
            k += i not in fixed
        returned = f"{bwd_name}({res}, {g})" if not fixed else _tuple(slots)
        source = (
            f"def {name}({', '.join(params + [g])}):\n"
            f"    {out}, {res} = {fwd_name}({', '.join(params)})\n"
            + (f"    {cts} = {bwd_name}({', '.join(kept + [res, g])})\n" if fixed else "")
            + f"    return {returned}\n"
        )
        adapter = function_from_source(source, name, {fwd_name: fwd, bwd_name: bwd}, f"vjp rule of {fun.__name__}")
        defrule(fun, vjp=adapter)

    fun.defvjp = defvjp  # type: ignore[attr-defined]
    return cast(CustomVJP[P, R], fun)


def _parameters(fun, decorator: str) -> list:
    """``fun``'s parameter names; a TypeError unless it is a plain function of positional parameters
    without defaults (the rules receive every argument, as written at each call)."""
    if not inspect.isfunction(fun):
        raise TypeError(f"{decorator} decorates a plain Python function (def), not {type(fun).__name__} {fun!r}")
    params = list(inspect.signature(fun).parameters.values())
    odd = [p.name for p in params if p.kind is not p.POSITIONAL_OR_KEYWORD or p.default is not p.empty]
    if odd:
        raise TypeError(
            f"{decorator}: {fun.__name__}'s parameter {odd[0]} has a default or is not positional; "
            f"give {fun.__name__} positional parameters only (rules receive every argument)"
        )
    return [p.name for p in params]


def _nondiff(fun, params: list, nondiff_argnums, decorator: str) -> frozenset:
    """The positions of ``nondiff_argnums`` (an int or a tuple of them), checked against ``fun``'s parameters."""
    positions = (nondiff_argnums,) if isinstance(nondiff_argnums, int) else tuple(nondiff_argnums)
    bad = [p for p in positions if not (isinstance(p, int) and -len(params) <= p < len(params))]
    if bad:
        raise ValueError(f"{decorator}: nondiff_argnums {bad[0]!r} is no position of {fun.__name__}'s parameters")
    return frozenset(p % len(params) for p in positions)


def _jvp_adapter(fun, params: list, jvp, fixed=frozenset()):
    """``f_jvp_rule(*primals, *tangents) -> tangent`` (defrule's form) calling JAX's form ``jvp``, the
    arguments at ``fixed`` (``nondiff_argnums``) first and out of the primals and tangents."""
    used = set(params)
    tangents = [_fresh(f"d_{p}", used) for p in params]
    rule, out, tangent = _fresh(_name(jvp, "jvp"), used), _fresh("primal_out", used), _fresh("tangent_out", used)
    name = _fresh(f"{fun.__name__}_jvp_rule", used)
    kept = [p for i, p in enumerate(params) if i in fixed]
    primals = [p for i, p in enumerate(params) if i not in fixed]
    moving = [t for i, t in enumerate(tangents) if i not in fixed]
    source = (
        f"def {name}({', '.join(params + tangents)}):\n"
        f"    {out}, {tangent} = {rule}({', '.join(kept + [_tuple(primals), _tuple(moving)])})\n"
        f"    return {tangent}\n"
    )
    return function_from_source(source, name, {rule: jvp}, f"jvp rule of {fun.__name__}")


def _transposed(fun, params: list, adapter, fixed=frozenset()):
    """``f_vjp_rule(*primals, g) -> cotangents``: the transpose of the jvp rule, which is linear in the
    tangents, column by column: the cotangent of each input scalar is ``<g, jvp(primals, e)>`` for the
    unit tangent ``e`` of that scalar (one evaluation of the rule per input scalar, exact).  Its own
    derivative is refused (see ``_no_second_order``)."""
    n = len(params)

    def transposed(*args):
        primals, g = args[:n], args[n]
        active = [not not_differentiable(p) and i not in fixed for i, p in enumerate(primals)]
        zeros = [rebuild(p, itertools.repeat(0.0)) if on else 0.0 for p, on in zip(primals, active, strict=True)]
        weights = leaves(g)
        cts = []
        for i, (p, on) in enumerate(zip(primals, active, strict=True)):
            if not on:
                cts.append(0.0)
                continue
            column = []
            for j in range(len(leaves(p))):
                unit = rebuild(p, iter([1.0 if k == j else 0.0 for k in range(len(leaves(p)))]))
                out = adapter(*primals, *zeros[:i], unit, *zeros[i + 1 :])
                column.append(sum(w * t for w, t in zip(weights, leaves(out), strict=True)))
            ct = rebuild(p, iter(column))
            if hasattr(p, "dtype") and hasattr(ct, "astype"):
                ct = ct.astype(p.dtype)
            cts.append(ct if hasattr(p, "dtype") or isinstance(p, (list, tuple)) else float(ct))
        return tuple(cts)

    transposed.__name__ = transposed.__qualname__ = f"{fun.__name__}_transposed_jvp"
    transposed.__adc_runtime_only__ = (  # type: ignore[attr-defined]
        f"{fun.__code__.co_filename}:{fun.__code__.co_firstlineno}: reverse mode of {fun.__name__}, which has only a "
        "custom_jvp rule, is computed by adcompiler as it runs, so a written module cannot hold it; give it a vjp "
        "rule too (defrule(..., vjp=...)), or write forward mode only (--mode forward)"
    )
    return defrule(transposed, jvp=_no_second_order(fun))


def _no_second_order(fun):
    """The jvp rule of a transposed jvp rule: a TypeError naming ``fun`` and where it is defined."""
    code = fun.__code__
    where = f"{code.co_filename}:{code.co_firstlineno}"

    def refuse(*args):
        raise TypeError(
            f"{where}: a second derivative through {fun.__name__}'s custom_jvp rule in reverse mode (hessian "
            f"is forward over reverse) is not supported; give {fun.__name__} a vjp rule too: "
            f"adcompiler.defrule({fun.__name__}, jvp=..., vjp=...)"
        )

    return refuse


def _name(fn, default: str) -> str:
    name = getattr(fn, "__name__", "")
    return name if name.isidentifier() else default


def _fresh(name: str, used: set) -> str:
    """``name``, or ``name_1``, ``name_2``, ... : the first not in ``used`` (which it joins)."""
    candidate, k = name, 0
    while candidate in used:
        k += 1
        candidate = f"{name}_{k}"
    used.add(candidate)
    return candidate


def _tuple(names: list) -> str:
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"
