"""Derivative rules: one table, one line per primitive, so a reader sees the math.

``PARTIALS[prim]`` has one slot per argument: a function of the primal
arguments and the output ``z`` giving the partial derivative, or ``None`` where
it is zero.  Both modes use it: forward mode sums ``partial * tangent`` over the
active arguments; reverse mode sends ``cotangent * partial`` to each one.
``FORWARD``/``REVERSE`` hold the few primitives better written another way
(selections such as ``max``).  A key ``prim/n`` is the rule for ``n`` arguments.

Conventions at non-differentiable points: ``abs'(0) = 0``; ``max``/``min``
send the whole derivative to the argument Python returns (the first one on a
tie); ``floor``, ``ceil``, ``trunc``, ``round``, ``int``, ``//`` and
comparisons have derivative zero; ``d/dy x**y = x**y log x`` is taken as 0 at
``x == 0``.
"""

from __future__ import annotations

import builtins
import math

from . import arrays as N
from ..ir.expr import Call, Expr, IfExp, Name, Num, fn, gt, lt, ne, sum_exprs, where

ONE = Num(1)
MINUS_ONE = Num(-1)

cos, sin, tan = fn("math.cos"), fn("math.sin"), fn("math.tan")
cosh, sinh, tanh = fn("math.cosh"), fn("math.sinh"), fn("math.tanh")
exp, log, sqrt = fn("math.exp"), fn("math.log"), fn("math.sqrt")
SQRT_PI_HALF = Num(2 / math.sqrt(math.pi))  # d/dx erf(x) = 2/sqrt(pi) exp(-x^2)
LN2 = Num(math.log(2.0))
LN10 = Num(math.log(10.0))


def _one(*_):
    return ONE


def _minus_one(*_):
    return MINUS_ONE


def _sign(x):
    """sign(x), 0 at 0, NaN at NaN: the derivative of abs."""
    return where(gt(x, 0), 1.0, where(lt(x, 0), -1.0, x * 0.0))


def _pow_base(x, y, z):
    """y x**(y-1), and 0 where y == 0 (x**0 is 1 everywhere: 0 * 0**-1 would raise at x = 0)."""
    return where(ne(y, 0), y * x ** (y - 1), 0.0)


def _pow_exponent(x, y, z):
    return where(ne(x, 0), z * log(x), 0.0)


PARTIALS = {
    "add": (_one, _one),
    "sub": (_one, _minus_one),
    "neg": (_minus_one,),
    "pos": (_one,),
    "float": (_one,),
    "mul": (lambda x, y, z: y, lambda x, y, z: x),
    "truediv": (lambda x, y, z: 1 / y, lambda x, y, z: -(z / y)),
    "floordiv": (None, None),
    "mod": (_one, lambda x, y, z: -(x // y)),
    "pow": (_pow_base, _pow_exponent),
    "math.pow": (_pow_base, _pow_exponent),
    "abs": (lambda x, z: _sign(x),),
    "math.fabs": (lambda x, z: _sign(x),),
    "math.sin": (lambda x, z: cos(x),),
    "math.cos": (lambda x, z: -sin(x),),
    "math.tan": (lambda x, z: 1 + z * z,),
    "math.asin": (lambda x, z: 1 / sqrt(1 - x * x),),
    "math.acos": (lambda x, z: -1 / sqrt(1 - x * x),),
    "math.atan": (lambda x, z: 1 / (1 + x * x),),
    "math.atan2": (
        lambda y, x, z: x / (x * x + y * y),
        lambda y, x, z: -y / (x * x + y * y),
    ),
    "math.sinh": (lambda x, z: cosh(x),),
    "math.cosh": (lambda x, z: sinh(x),),
    "math.tanh": (lambda x, z: 1 - z * z,),
    "math.asinh": (lambda x, z: 1 / sqrt(x * x + 1),),
    "math.acosh": (lambda x, z: 1 / sqrt(x * x - 1),),
    "math.atanh": (lambda x, z: 1 / (1 - x * x),),
    "math.exp": (lambda x, z: z,),
    "math.expm1": (lambda x, z: z + 1,),
    "math.log": (lambda x, z: 1 / x,),
    "math.log/2": (
        lambda x, b, z: 1 / (x * log(b)),
        lambda x, b, z: -(z / (b * log(b))),
    ),
    "math.log1p": (lambda x, z: 1 / (1 + x),),
    "math.log2": (lambda x, z: 1 / (x * LN2),),
    "math.log10": (lambda x, z: 1 / (x * LN10),),
    "math.sqrt": (lambda x, z: 0.5 / z,),
    "math.hypot": (lambda x, y, z: _over(x, z), lambda x, y, z: _over(y, z)),  # 0 at the origin, like norm
    "math.erf": (lambda x, z: SQRT_PI_HALF * exp(-(x * x)),),
    "math.erfc": (lambda x, z: -SQRT_PI_HALF * exp(-(x * x)),),
    "math.floor": (None,),
    "math.ceil": (None,),
    "math.trunc": (None,),
    "round": (None,),
    "round/2": (None, None),
    "int": (None,),
    "lt": (None, None),
    "le": (None, None),
    "gt": (None, None),
    "ge": (None, None),
    "eq": (None, None),
    "ne": (None, None),
    "not": (None,),
    "range": (None, None, None),
    "slice": (None, None, None),
}

# Selections: the derivative follows the argument Python's max/min return.
FORWARD = {
    "max": lambda a, b, z, da, db: where(gt(b, a), db or 0.0, da or 0.0),
    "min": lambda a, b, z, da, db: where(lt(b, a), db or 0.0, da or 0.0),
}
REVERSE = {
    "max": lambda a, b, z, g: (where(gt(b, a), 0.0, g), where(gt(b, a), g, 0.0)),
    "min": lambda a, b, z, g: (where(lt(b, a), 0.0, g), where(lt(b, a), g, 0.0)),
}

PARTIALS.update(N.PARTIALS)
FORWARD.update(N.FORWARD)
REVERSE.update(N.REVERSE)

# Python objects the user may call, and the primitive each one is.
PRIMS = {getattr(math, name[5:]): name for name in PARTIALS if name.startswith("math.") and "/" not in name}
PRIMS.update(
    {
        builtins.abs: "abs",
        builtins.pow: "pow",
        builtins.round: "round",
        builtins.int: "int",
        builtins.float: "float",
        builtins.slice: "slice",
        builtins.max: "max",
        builtins.min: "min",
    }
)
CONSTANTS = {
    "math.pi": math.pi,
    "math.e": math.e,
    "math.tau": math.tau,
    "math.inf": math.inf,
}


def _hypot(n: int) -> tuple:
    """hypot(x1, ..., xn) = z has partials xi / z (0 at the origin)."""
    return tuple((lambda *a, i=i: _over(a[i], a[-1])) for i in range(n))


def _over(x, z) -> Expr:
    """x / z for a hypotenuse z: 0 where z is 0 (the origin), where the derivative is taken as 0."""
    return IfExp(z, x / z, Num(0.0))


VARIADIC = {"math.hypot": _hypot}


def key(prim: str, nargs: int) -> str:
    """The table key for ``prim`` applied to ``nargs`` arguments."""
    specific = f"{prim}/{nargs}"
    if prim in VARIADIC and specific not in PARTIALS:
        PARTIALS[specific] = VARIADIC[prim](nargs)
    return specific if specific in PARTIALS else prim


def has_rule(prim: str, nargs: int) -> bool:
    return (
        prim in N.SEQUENCE
        or prim in N.PRODUCT
        or (
            key(prim, nargs) in PARTIALS
            or prim in FORWARD
            or prim in N.LINEAR
            or prim in N.BILINEAR
            or prim in N.REDUCE_EXTREME
        )
    )


def differentiable_slots(prim: str, nargs: int) -> tuple:
    """For each argument, whether the output can depend on it differentiably."""
    if prim == "numpy.einsum":
        return (False,) + (True,) * (nargs - 1)
    if prim in N.SEQUENCE:
        return (True,) * (nargs - 1) + (False,) if N.SEQUENCE_AXIS[prim] is not None else (True,) * nargs
    if prim in HELPER_RULES:  # (einsum_vjp's own operand i only gives its shape: helper_jvp leaves it out)
        return tuple(i in HELPER_RULES[prim][1] for i in range(nargs))
    if prim in FORWARD:
        return N.SLOTS.get(prim, (True,) * nargs)
    if prim in N.LINEAR or prim in N.REDUCE_EXTREME or prim in N.PRODUCT:
        return (True,) + (False,) * (nargs - 1)
    if prim in N.BILINEAR:
        return (True, True)
    if prim in N.INACTIVE:
        return (False,) * nargs
    return tuple(p is not None for p in PARTIALS[key(prim, nargs)])


def _join(prim: str, arrays, axis) -> Expr:
    from ..ir.expr import List

    keywords = (("axis", axis),) if axis is not None else ()
    return Call(prim, (List(tuple(arrays)),), keywords)


def jvp(prim: str, args: list, out: Expr, tangents: list) -> Expr | None:
    """The output tangent, given argument tangents (``None`` = zero)."""
    if prim == "numpy.einsum":  # multilinear: one term per active operand
        terms = [
            Call(prim, tuple(t if j == i else a for j, a in enumerate(args)))
            for i, t in enumerate(tangents)
            if i and t is not None
        ]
        return sum_exprs(terms)
    if prim in N.SEQUENCE:
        arrays, axis = (args[:-1], args[-1]) if N.SEQUENCE_AXIS[prim] is not None else (args, None)
        ts = [
            t if t is not None else Call("numpy.zeros_like", (a,), (("dtype", Name("float")),))
            for a, t in zip(arrays, tangents)
        ]
        return _join(prim, ts, axis)
    if prim in HELPER_RULES:
        return helper_jvp(prim, args, tangents)
    if prim in FORWARD:
        return FORWARD[prim](*args, out, *tangents)
    if prim in N.LINEAR:
        return None if tangents[0] is None else Call(N.CALLED.get(prim, prim), (tangents[0],) + tuple(args[1:]))
    if prim in N.BILINEAR:
        a, b = args
        da, db = tangents
        apply = (lambda x, y: x @ y) if prim == "matmul" else (lambda x, y: Call(prim, (x, y)))
        return sum_exprs([apply(da, b) if da is not None else None, apply(a, db) if db is not None else None])
    if prim in N.REDUCE_EXTREME:
        return None if tangents[0] is None else Call("@extreme_jvp", (tangents[0], args[0], out) + tuple(args[1:]))
    if prim in N.PRODUCT:
        others = Call("@prod_vjp", (Num(1.0),) + tuple(args))
        return None if tangents[0] is None else Call("numpy.sum", (others * tangents[0], args[1], args[2]))
    partials = PARTIALS[key(prim, len(args))]
    return sum_exprs(
        _scale(partial(*args, out), t)
        for partial, t in zip(partials, tangents, strict=True)
        if partial is not None and t is not None
    )


def vjp(prim: str, args: list, out: Expr, g: Expr, active: list) -> list:
    """The cotangent of each argument (``None`` = zero or not wanted)."""
    if prim == "numpy.einsum":
        return [None] + [
            Call("@einsum_vjp", (g, Num(i), args[0]) + tuple(args[1:])) if on else None
            for i, on in enumerate(active[1:])
        ]
    if prim in N.SEQUENCE:
        arrays, axis = (args[:-1], args[-1]) if N.SEQUENCE_AXIS[prim] is not None else (args, Num(None))
        kind = Num(prim.rpartition(".")[2])
        parts = [
            Call("@unjoin", (g, kind, axis, Num(i)) + tuple(arrays)) if on else None
            for i, on in enumerate(active[: len(arrays)])
        ]
        return parts + [None] * (len(args) - len(arrays))
    if prim in HELPER_RULES:
        raise TypeError(
            f"reverse mode over generated NumPy derivative code ({prim}) is not supported yet; use forward mode (hessian, hvp)"
        )
    if prim in REVERSE:
        return [c if a else None for c, a in zip(REVERSE[prim](*args, out, g), active, strict=True)]
    if prim in N.LINEAR:
        return [N.LINEAR[prim](g, args[0], out, *args[1:]) if active[0] else None] + [None] * (len(args) - 1)
    if prim in N.BILINEAR:
        return [rule(g, *args) if a else None for rule, a in zip(N.BILINEAR[prim], active, strict=True)]
    if prim in N.REDUCE_EXTREME:
        return [Call("@extreme_vjp", (g, args[0], out) + tuple(args[1:])) if active[0] else None] + [None] * (
            len(args) - 1
        )
    if prim in N.PRODUCT:
        return [Call("@prod_vjp", (g,) + tuple(args)) if active[0] else None] + [None] * (len(args) - 1)
    partials = PARTIALS[key(prim, len(args))]
    return [
        _scale(partial(*args, out), g) if partial is not None and a else None
        for partial, a in zip(partials, active, strict=True)
    ]


def _scale(partial: Expr, t: Expr) -> Expr:
    """``partial * t`` written the way a person would (``t / y`` for ``(1 / y) * t``)."""
    return partial * t


# Rules the user supplies for functions of their own (``adcompiler.defrule``): fn -> (jvp, vjp).
CUSTOM: dict = {}


def defrule(fn, jvp=None, vjp=None):
    """Give ``fn`` derivative rules, used by both modes wherever differentiated code calls it.

    ``jvp(*primals, *tangents)`` returns the output tangent (a zero tangent is
    passed as 0.0); ``vjp(*primals, ct)`` returns a tuple with one cotangent per
    argument.  Typical uses: a function written in C, a numerically stable
    formula, an iterative solver differentiated implicitly.  Returns ``fn``.
    """
    if jvp is None and vjp is None:
        raise ValueError(f"defrule({getattr(fn, '__name__', fn)!r}) needs a jvp rule, a vjp rule, or both")
    CUSTOM[fn] = (jvp, vjp)
    return fn


# Helpers are primitives when generated code is itself differentiated: what each makes or changes.
MAKES = ("zeros_like", "like", "like_arrays")  # return a new (shadow) structure
CHANGES = (
    "add_into",
    "add_scalars_into",
    "add_slice_into",
    "add_part_into",
    "add_tiled_into",
)  # add their second argument into their first, in place
INERT = ("reject_ints", "expect", "argmax", "argmin")  # no derivative at all

# Runtime helpers of generated NumPy code, as primitives (so derivative code can itself be
# differentiated in forward mode): which arguments each is linear in, jointly ("linear") or
# one at a time ("bilinear", the product rule).
HELPER_RULES = {
    "unbroadcast": ("linear", (0,)),
    "unreduce": ("linear", (0,)),
    "array_like": ("linear", (0,)),
    "extreme_vjp": ("linear", (0,)),
    "extreme_jvp": ("linear", (0,)),
    "scatter_add": ("linear", (0, 3)),
    "matmul_vjp_a": ("bilinear", (0, 2)),
    "matmul_vjp_b": ("bilinear", (0, 1)),
    "dot_vjp_a": ("bilinear", (0, 2)),
    "dot_vjp_b": ("bilinear", (0, 1)),
    "unjoin": ("linear", (0,)),
    "prod_vjp": ("product", (0, 1)),  # its tangent: prod_vjp_jvp
    "einsum_vjp": ("bilinear", (0, 3, 4, 5, 6, 7)),
    "linspace_vjp": ("linear", (0,)),
    "inner_vjp_a": ("bilinear", (0, 2)),
    "inner_vjp_b": ("bilinear", (0, 1)),
}


def helper_jvp(prim: str, args: list, tangents: list) -> Expr | None:
    """The tangent of a helper call: the helper applied to tangents (product rule where bilinear)."""
    kind, slots = HELPER_RULES[prim]
    slots = [i for i in slots if i < len(args)]
    if prim == "einsum_vjp" and isinstance(args[1], Num):  # operand i itself gives only its shape
        slots = [i for i in slots if i != 3 + args[1].value]
    if all(tangents[i] is None for i in slots):
        return None
    if prim == "prod_vjp":  # g times the products of the other entries: linear in g, not in x
        g, x, axis, keepdims = (list(args) + [Num(None), Num(False)])[:4]
        dg, dx = (tangents + [None, None])[:2]
        return Call("@prod_vjp_jvp", (g, dg or Num(0.0), x, dx or Num(0.0), axis, keepdims))
    if kind == "linear":
        return Call("@" + prim, tuple((tangents[i] or Num(0.0)) if i in slots else a for i, a in enumerate(args)))
    terms = [
        Call("@" + prim, tuple(tangents[i] if j == i else a for j, a in enumerate(args)))
        for i in slots
        if tangents[i] is not None
    ]
    return sum_exprs(terms)


# Python operators and builtins whose scalar rule branches on a value: on arrays, use the NumPy rule.
ARRAY_VARIANTS = {"pow": "numpy.power", "abs": "numpy.abs"}
