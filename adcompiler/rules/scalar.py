"""Scalar derivative rules: Python's operators and builtins and the math module, one line per primitive
(see the package docstring for the table's form and the conventions at non-differentiable points)."""

from __future__ import annotations

import builtins
import math

from ..ir.expr import Expr, IfExp, Num, fn, gt, lt, ne, where

ONE = Num(1)
MINUS_ONE = Num(-1)

cos, sin, tan = fn("math.cos"), fn("math.sin"), fn("math.tan")
copysign, polygamma = fn("math.copysign"), fn("@polygamma")  # polygamma(n, x): a runtime helper (no SciPy)
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
    """y x**(y-1), and 0 where y == 0 (x**0 is 1 everywhere: 0 * 0**-1 would raise at x = 0); for a constant y
    between 0 and 1 (``x ** 0.5``), +inf at x = 0, as JAX gives it (0.0 ** -0.5 raises where the primal's
    0.0 ** 0.5 is 0)."""
    if isinstance(y, Num) and type(y.value) in (int, float) and 0 < y.value < 1:
        return where(ne(x, 0), y * x ** (y - 1), INF)
    if isinstance(y, Num):
        return where(ne(y, 0), y * x ** (y - 1), 0.0)
    power = y * x ** (y - 1)  # (an exponent computed, x ** (1 / 3) or x ** y: +inf at x = 0 for 0 < y < 1 too)
    return where(ne(y, 0), where(ne(x, 0), power, where(lt(y, 1), INF, power)), 0.0)


INF = Num(math.inf)


def _root_over(sign: float, t):
    """sign / sqrt(t), the derivative of asin, acos, acosh: +-inf where t is 0 (x = 1: the function defined,
    its derivative infinite, as JAX gives it; Python's 1 / 0.0 raises)."""
    return where(ne(t, 0), Num(sign) / sqrt(t), Num(sign * math.inf))


NAN = Num(math.nan)


def _pow_exponent(x, y, z):
    """x**y log x; 0 at x == 0 (the convention above); NaN where x < 0: x**y of a negative x is real only
    at an integer y, so it has no derivative in y there (as JAX and autograd say), while its derivative
    in x does (y x**(y-1)): never log of a negative, which raises."""
    return where(lt(x, 0), NAN, where(ne(x, 0), z * log(x), 0.0))


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
    "math.asin": (lambda x, z: _root_over(1.0, 1 - x * x),),
    "math.acos": (lambda x, z: _root_over(-1.0, 1 - x * x),),
    "math.atan": (lambda x, z: 1 / (1 + x * x),),
    "math.atan2": (
        lambda y, x, z: x / (x * x + y * y),
        lambda y, x, z: -y / (x * x + y * y),
    ),
    "math.sinh": (lambda x, z: cosh(x),),
    "math.cosh": (lambda x, z: sinh(x),),
    "math.tanh": (lambda x, z: 1 - z * z,),
    "math.asinh": (lambda x, z: 1 / sqrt(x * x + 1),),
    "math.acosh": (lambda x, z: _root_over(1.0, x * x - 1),),
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
    "math.sqrt": (lambda x, z: where(ne(z, 0), 0.5 / z, INF),),  # +inf at 0, as JAX
    "math.hypot": (lambda x, y, z: _over(x, z), lambda x, y, z: _over(y, z)),  # 0 at the origin, like norm
    "math.erf": (lambda x, z: SQRT_PI_HALF * exp(-(x * x)),),
    "math.erfc": (lambda x, z: -SQRT_PI_HALF * exp(-(x * x)),),
    "math.lgamma": (lambda x, z: polygamma(0, x),),
    "math.gamma": (lambda x, z: z * polygamma(0, x),),
    "polygamma": (None, lambda n, x, z: polygamma(n + 1, x)),  # the helper's own rule: any order
    "math.degrees": (lambda x, z: Num(180.0 / math.pi),),
    "math.radians": (lambda x, z: Num(math.pi / 180.0),),
    "math.cbrt": (lambda x, z: where(ne(z, 0), 1 / (3 * (z * z)), INF),),  # +inf at 0, as JAX
    "math.exp2": (lambda x, z: LN2 * z,),
    "math.copysign": (lambda x, y, z: _sign(x) * copysign(1.0, y), None),  # |x| with y's sign
    "math.fmod": (_one, lambda x, y, z: -fn("round")((x - z) / y)),  # x - n y, n the integer quotient
    "math.isfinite": (None,),
    "math.isnan": (None,),
    "math.isinf": (None,),
    "math.fsum": (None,),  # its value; with_value gives it sum's derivative (see lower/idioms.py)
    "math.dist": (None, None),
    "with_value": (_one, None),  # the value of its second argument, the derivative of its first
    "argsort": (None, None),
    "sum_start": (None, None),  # sum(xs, start)'s value, for with_value
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
    "is_": (None, None),  # x is None
    "is_not": (None, None),
    "not": (None,),
    "range": (None, None, None),
    "slice": (None, None, None),
    "slice/2": (None, None),
    "bitand": (None, None),  # masks and integers: no derivative
    "bitor": (None, None),
    "bitxor": (None, None),
    "invert": (None,),  # slice(a, b): generated code's (the adjoint of a part of a list)
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


def _inert(n: int) -> tuple:
    """No derivative in any of n arguments (a print, a formatted string)."""
    return (None,) * n


VARIADIC = {"math.hypot": _hypot, "effect": _inert, "str_format": _inert, "draw": _inert}

# Runtime helpers of generated scalar code that are primitives (differentiated again: hessian).
SCALAR_HELPERS = ("polygamma", "argsort", "fail")
