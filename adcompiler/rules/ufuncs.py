"""NumPy's elementwise functions (its ufuncs), one record each (``rules.primitive``): a line per function.

An elementwise function is written by its partial derivatives, as autograd writes its rules and as
``rules/scalar.py`` writes ``math``'s: ``partial(*args, z)``, an ``ir.expr`` of the arguments and the
result ``z``, applied entry by entry (None: zero in that argument).  Both modes read them as they read
``math``'s (``rules.jvp``, ``rules.vjp``); reverse mode sums a cotangent back over broadcast axes.
``np.maximum`` and its kin choose an argument instead, so they state their two rules: the derivative
follows the value chosen (the first argument on a tie).

Each call ``_ufunc(name, *partials)`` registers ``np.<name>`` with one parameter per partial (``x``, or
``x1`` and ``x2``, NumPy's names).  Its value is its arguments broadcast (``kit.elementwise``), of a
floating dtype unless ``exact`` (``np.abs`` of integers is integers, ``np.sin`` of them floats).  Its
``array_api`` spelling is the standard's function (``np.arcsin`` -> ``xp.asin``; None where the standard
has none, which that target refuses).  Conventions at points without a derivative: ``rules/__init__.py``.
"""

from __future__ import annotations

import math

from ..ir.expr import Call, IfExp, Num, compare, fn, gt, lt, sum_exprs
from .primitive import Primitive, Refusal, Variant, register

np_ = lambda name: fn("numpy." + name)  # noqa: E731
cos, sin, exp, log, sqrt, sign = (np_(n) for n in ("cos", "sin", "exp", "log", "sqrt", "sign"))
cosh, sinh, npwhere = np_("cosh"), np_("sinh"), np_("where")
LN2, LN10, DEGREE = Num(0.6931471805599453), Num(2.302585092994046), Num(0.017453292519943295)  # pi / 180


def _ufunc(
    name: str, *partials, exact: bool = False, xp: str | None = None, jvp=None, vjp=None, inactive: bool = False
) -> None:
    """Register ``np.<name>``: elementwise in ``len(partials)`` arguments (or, given ``jvp`` and ``vjp``,
    in two, by those rules; ``inactive``: a test, of bools, with no derivative, called as written);
    ``xp``: the array-API standard's name for it ("": the same name)."""
    nargs = len(partials) or 2
    register(
        Primitive(
            name=f"numpy.{name}",
            family="ufuncs",
            signature=None if inactive else (("x", None),) if nargs == 1 else (("x1", None), ("x2", None)),
            value=lambda ins, static, kit: kit.elementwise(ins, floating=not exact, boolean=inactive),
            inactive=inactive,
            partials=partials or None,
            jvp=jvp,
            vjp=vjp,
            slots=(True, True) if jvp is not None else None,
            array_api=None if xp is None else f"xp.{xp or name}",
        )
    )


# --- of one argument: the derivative of each, in its result z where that is shorter
_ufunc("sin", lambda x, z: cos(x), xp="")
_ufunc("cos", lambda x, z: -sin(x), xp="")
_ufunc("tan", lambda x, z: 1 + z * z, xp="")
_ufunc("arcsin", lambda x, z: 1 / sqrt(1 - x * x), xp="asin")
_ufunc("arccos", lambda x, z: -1 / sqrt(1 - x * x), xp="acos")
_ufunc("arctan", lambda x, z: 1 / (1 + x * x), xp="atan")
_ufunc("sinh", lambda x, z: cosh(x), xp="")
_ufunc("cosh", lambda x, z: sinh(x), xp="")
_ufunc("tanh", lambda x, z: 1 - z * z, xp="")
_ufunc("exp", lambda x, z: z, xp="")
_ufunc("expm1", lambda x, z: z + 1, xp="")
_ufunc("log", lambda x, z: 1 / x, xp="")
_ufunc("log1p", lambda x, z: 1 / (1 + x), xp="")
_ufunc("log2", lambda x, z: 1 / (x * LN2), xp="")
_ufunc("log10", lambda x, z: 1 / (x * LN10), xp="")
_ufunc("sqrt", lambda x, z: 0.5 / z, xp="")
_ufunc("square", lambda x, z: 2 * x, exact=True, xp="")
_ufunc("abs", lambda x, z: sign(x), exact=True, xp="")  # abs'(0) = 0
_ufunc("absolute", lambda x, z: sign(x), exact=True, xp="abs")
_ufunc("negative", lambda x, z: Num(-1), exact=True, xp="")
_ufunc("positive", lambda x, z: Num(1), exact=True, xp="")
_ufunc("arcsinh", lambda x, z: 1 / sqrt(1 + x * x), xp="asinh")
_ufunc("arccosh", lambda x, z: 1 / sqrt(x * x - 1), xp="acosh")
_ufunc("arctanh", lambda x, z: 1 / (1 - x * x), xp="atanh")
_ufunc("exp2", lambda x, z: z * LN2)
_ufunc("cbrt", lambda x, z: 1 / (3 * z * z))
_ufunc("reciprocal", lambda x, z: -(z * z))
_ufunc("fabs", lambda x, z: sign(x))
_ufunc("deg2rad", lambda x, z: DEGREE)
_ufunc("radians", lambda x, z: DEGREE)
_ufunc("rad2deg", lambda x, z: Num(57.29577951308232))  # 180 / pi
_ufunc("nan_to_num", lambda x, z: npwhere(np_("isfinite")(x), 1.0, 0.0), exact=True)  # the replaced: constants
_ufunc("degrees", lambda x, z: Num(57.29577951308232))
# piecewise constant: derivative zero
for _name, _xp in (("sign", ""), ("floor", ""), ("ceil", ""), ("round", ""), ("rint", None), ("trunc", "")):
    _ufunc(_name, None, exact=True, xp=_xp)


# --- comparisons and logical functions: a result of bools, no derivative (called as written)
for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    _ufunc(_name, inactive=True, xp="")
for _name in ("logical_and", "logical_or", "logical_not", "isfinite", "isnan", "isinf"):
    _ufunc(_name, inactive=True, xp="")


# --- of two arguments
def _exponent_less_one(y):
    """y - 1 where y != 0, else 1: x ** that is finite at x = 0 when y is 0 (its factor y is 0 there)."""
    if isinstance(y, Num) and y.text is None and isinstance(y.value, (int, float)):
        return Num(y.value - 1 if y.value != 0 else 1)
    return npwhere(Call("numpy.not_equal", (y, Num(0))), y - 1, 1.0)


def _nonzero(z):
    """z with its zeros replaced by 1: x / z is then 0 at the origin (x = 0 there), as for norm."""
    return npwhere(Call("numpy.equal", (z, Num(0.0))), 1.0, z)


_ufunc("arctan2", lambda y, x, z: x / (x * x + y * y), lambda y, x, z: -y / (x * x + y * y), xp="atan2")
_ufunc("hypot", lambda x, y, z: x / _nonzero(z), lambda x, y, z: y / _nonzero(z), xp="")  # 0 at the origin
_ufunc(
    "power",
    lambda x, y, z: y * x ** _exponent_less_one(y),  # 0 where y == 0 (x**0 is 1 everywhere)
    lambda x, y, z: z * log(npwhere(gt(x, 0), x, npwhere(lt(x, 0), math.nan, 1.0))),  # as pow's (scalar.py)
    exact=True,
    xp="pow",
)
_ufunc("logaddexp", lambda a, b, z: exp(a - z), lambda a, b, z: exp(b - z), xp="")
_ufunc("logaddexp2", lambda a, b, z: np_("exp2")(a - z), lambda a, b, z: np_("exp2")(b - z))
_ufunc("add", lambda a, b, z: Num(1), lambda a, b, z: Num(1), exact=True, xp="")
_ufunc("subtract", lambda a, b, z: Num(1), lambda a, b, z: Num(-1), exact=True, xp="")
_ufunc("multiply", lambda a, b, z: b, lambda a, b, z: a, exact=True, xp="")
_ufunc("divide", lambda a, b, z: 1 / b, lambda a, b, z: -(z / b), xp="")
_ufunc("true_divide", lambda a, b, z: 1 / b, lambda a, b, z: -(z / b), xp="divide")
# the remainder's quotient is constant between its jumps: d/dx2 = -floor (mod) or -trunc (fmod) of x1 / x2
_ufunc("mod", lambda a, b, z: Num(1), lambda a, b, z: -(a // b), exact=True)
_ufunc("remainder", lambda a, b, z: Num(1), lambda a, b, z: -(a // b), exact=True)
_ufunc("fmod", lambda a, b, z: Num(1), lambda a, b, z: -np_("trunc")(a / b), exact=True)
_ufunc("heaviside", None, lambda a, b, z: npwhere(Call("numpy.equal", (a, Num(0))), 1.0, 0.0), exact=True)  # x2 at 0


# --- selections: the derivative follows the value chosen (the first argument on a tie; fmax and fmin as
# maximum and minimum, for inputs without NaN)
def _selection(name: str, test, xp: str | None = None) -> None:
    _ufunc(
        name,
        exact=True,
        xp=xp,
        jvp=lambda a, b, z, da, db: npwhere(test(b, a), db or 0.0, da or 0.0),
        vjp=lambda a, b, z, g: (npwhere(test(b, a), 0.0, g), npwhere(test(b, a), g, 0.0)),
    )


_selection("maximum", gt, xp="")
_selection("minimum", lt, xp="")
_selection("fmax", gt)
_selection("fmin", lt)


# --- elementwise functions of NumPy that are not ufuncs: np.where chooses (the derivative follows the branch
# chosen; the condition has none), np.clip is x inside its bounds and a bound outside them
def _elementwise(name: str, signature: tuple, **rules) -> None:
    register(
        Primitive(
            name=f"numpy.{name}",
            family="ufuncs",
            signature=signature,
            value=lambda ins, static, kit: kit.elementwise(ins),
            array_api=f"xp.{name}",
            **rules,
        )
    )


def _none(bound) -> bool:
    return isinstance(bound, Num) and bound.value is None


def _at_lower(x, lo, hi):
    """Where np.clip's value is its lower bound lo: x < lo <= hi.  np.clip is min(max(x, lo), hi), so a lower
    bound above the upper gives hi everywhere (NumPy's answer)."""
    below = lt(x, lo)
    return below if _none(hi) else np_("logical_and")(below, compare("<=", lo, hi))


def _at_upper(x, lo, hi):
    """Where np.clip's value is its upper bound hi: x > hi, or lo > hi."""
    above = gt(x, hi)
    return above if _none(lo) else np_("logical_or")(above, gt(lo, hi))


def _inside(x, lo, hi):
    """Where np.clip's value is x: lo <= x <= hi (a bound of None is no bound); None where both are None."""
    tests = [compare(op, x, b) for op, b in ((">=", lo), ("<=", hi)) if not _none(b)]
    if not tests:
        return None
    return tests[0] if len(tests) == 1 else np_("logical_and")(*tests)


def _picked(test, t):
    """``t`` where ``test`` holds, else 0, of t's dtype (a float32 tangent stays float32, where the partial
    np.where(test, 1.0, 0.0) times it was float64); t itself where there is no test."""
    return t if test is None else npwhere(test, t, 0.0)


def _clip_jvp(x, lo, hi, z, dx, dlo, dhi):
    """The tangent of the argument np.clip's value is, at each entry."""
    tests = (_inside(x, lo, hi), _at_lower(x, lo, hi), _at_upper(x, lo, hi))
    return sum_exprs(_picked(test, t) for test, t in zip(tests, (dx, dlo, dhi)) if t is not None)


_elementwise(
    "where",
    (("condition", None), ("x", None), ("y", None)),
    jvp=lambda c, a, b, z, dc, da, db: npwhere(c, da or 0.0, db or 0.0),
    vjp=lambda c, a, b, z, g: (None, npwhere(c, g, 0.0), npwhere(c, 0.0, g)),
    slots=(False, True, True),
    # of numbers, the tangent and the cotangents numbers too (numpy.where of numbers makes a 0-d array: a float
    # parameter's cotangent was one, where a called function's where reached it)
    variants={
        "numbers": Variant(
            lambda c, a, b, z, dc, da, db: IfExp(c, da or Num(0.0), db or Num(0.0)),
            lambda c, a, b, z, g: (None, IfExp(c, g, Num(0.0)), IfExp(c, Num(0.0), g)),
            (False, True, True),
        )
    },
    variant=lambda ins, static, kit: "numbers" if len(ins) == 3 and all(isinstance(a, kit.Num) for a in ins) else None,
)


# --- select([c1, c2], [a1, a2], default): np.where(c1, a1, np.where(c2, a2, default)), the first true
# condition's choice (the same values; the derivative goes to the chosen entry)
def _select(build, conds, choices, default):
    if conds is None or choices is None or len(conds) != len(choices) or not conds:
        return Refusal(
            "of computed lists, or lists of different lengths",
            "write the lists out, one condition per choice: np.select([x > 0, x < -1], [a, b], default=0)",
        )
    out = default
    for k, (c, a) in reversed(list(enumerate(zip(conds, choices)))):
        out = build.apply("numpy.where", [c, a, out], named=k == 0)
    return out


register(
    Primitive(
        name="numpy.select",
        family="ufuncs",
        signature=(("condlist", None), ("choicelist", None), ("default", Num(0))),
        value=None,
        expand=_select,
        sequences=("condlist", "choicelist"),
    )
)
_elementwise(
    "clip",
    (("a", None), ("a_min", None), ("a_max", None)),
    jvp=_clip_jvp,
    vjp=lambda x, lo, hi, z, g: (
        _picked(_inside(x, lo, hi), g),
        None if _none(lo) else _picked(_at_lower(x, lo, hi), g),
        None if _none(hi) else _picked(_at_upper(x, lo, hi), g),
    ),
    slots=(True, True, True),
    methods=("clip",),
)
