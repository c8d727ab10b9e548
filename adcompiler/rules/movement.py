"""Derivative rules for more of NumPy: the complex-part functions of real values, ``sinc``, and data
movement (flips, ``rollaxis``, ``diagonal``, ``partition``); ``arrays`` merges these tables into its own.

adcompiler differentiates real values only (complex arguments and constants are refused), and on
real values ``np.real``, ``np.conj`` and ``np.real_if_close`` are the identity (derivative 1),
``np.imag`` is zero and ``np.angle`` is 0 or pi (derivative 0); ``analysis.facts`` refuses them,
located, on a complex value.  ``np.sinc(x) = sin(pi x) / (pi x)`` has derivative
``(cos(pi x) - sinc x) / x``, taken at 0 as its series ``-pi^2 x / 3`` (0 there, and the derivative
of that is sinc's second derivative at 0, so second order is right too).  Flips, ``rollaxis`` and
``diagonal`` move entries: linear, so the tangent goes through the same move and the cotangent is
put back where each entry came from.  ``partition`` is a gather of x; which entry of x each entry
of the result is follows from ranking both (argsort of argsort: a permutation whatever the ties).
"""

from __future__ import annotations

import math

from ..ir.expr import Call, Num


def _np(name, *args):
    return Call("numpy." + name, tuple(args))


def _h(name):
    """A runtime helper of generated code (``@name``)."""
    return lambda *args: Call("@" + name, tuple(args))


def _sinc_slope(x, z):
    at_zero = _np("equal", x, Num(0))
    away = (_np("cos", Num(math.pi) * x) - z) / _np("where", at_zero, Num(1.0), x)
    return _np("where", at_zero, Num(-(math.pi**2) / 3) * x, away)


def _partition_order(x, z, axis):
    """The index into x of each entry of z = np.partition(x, kth, axis): the entry of the same rank."""
    rank = _np("argsort", _np("argsort", z, axis), axis)
    return _np("take_along_axis", _np("argsort", x, axis), rank, axis)


ONE, ZERO = (lambda x, z: Num(1)), None
PARTIALS = {
    "numpy.real": (ONE,),
    "numpy.conj": (ONE,),
    "numpy.conjugate": (ONE,),
    "numpy.imag": (ZERO,),
    "numpy.angle": (ZERO,),
    "numpy.real_if_close": (lambda x, tol, z: Num(1), None),
    "numpy.sinc": (_sinc_slope,),
}
COMPLEX_PARTS = ("numpy.real", "numpy.conj", "numpy.conjugate", "numpy.imag", "numpy.angle", "numpy.real_if_close")
FLOATING = ("numpy.sinc", "numpy.angle")  # a float result for integer arguments too

# Linear in their first argument: tangent = the same move of the tangent; cotangent = g moved back.
LINEAR = {
    "numpy.fliplr": lambda g, x, z: _np("fliplr", g),
    "numpy.flipud": lambda g, x, z: _np("flipud", g),
    "numpy.rollaxis": lambda g, x, z, axis, start: _h("rollaxis_vjp")(g, x, axis, start),
    "numpy.diagonal": lambda g, x, z, offset, a1, a2: _h("diagonal_vjp")(g, x, offset, a1, a2),
}
FORWARD = {
    "numpy.partition": lambda x, kth, axis, z, dx, dk, da: _np(
        "take_along_axis", dx, _partition_order(x, z, axis), axis
    ),
}
REVERSE = {
    "numpy.partition": lambda x, kth, axis, z, g: (
        _h("take_along_vjp")(g, x, _partition_order(x, z, axis), axis),
        None,
        None,
    ),
}
SLOTS = {"numpy.partition": (True, False, False)}

# np.add.at(y, index, v) is lowered to y[...] = add_at(y, y, index, v): v added at y[index] in a copy of
# y, repeated indices adding up (lower/arrays.py); linear in y and v together: its tangent is the same
# of the tangents, its adjoint g for y and g gathered at index (summed to v's shape) for v.
ADD_AT = "add_at"
FORWARD[ADD_AT] = lambda d, x, index, v, z, dd, dx, di, dv: (
    None if dd is None and dv is None else _h("add_at")(dd or Num(0.0), x, index, dv or Num(0.0))
)
REVERSE[ADD_AT] = lambda d, x, index, v, z, g: (g, None, None, _h("add_at_vjp")(g, index, v))
SLOTS[ADD_AT] = (True, False, False, True)
SIGNATURES = {name: (("x", None),) for name in PARTIALS}
SIGNATURES.update(
    {
        "numpy.real_if_close": (("a", None), ("tol", Num(100))),
        "numpy.fliplr": (("m", None),),
        "numpy.flipud": (("m", None),),
        "numpy.rollaxis": (("a", None), ("axis", None), ("start", Num(0))),
        "numpy.diagonal": (("a", None), ("offset", Num(0)), ("axis1", Num(0)), ("axis2", Num(1))),
        "numpy.partition": (("a", None), ("kth", None), ("axis", Num(-1))),
    }
)


def joined_list(prim: str, has_axis: bool) -> tuple:
    """The forward rule, reverse rule and slots of ``numpy.<kind>(xs[, axis])`` of a sequence ``xs``
    known only at run time (a list or tuple parameter, a list built in a loop), the primitive
    ``prim + "/list"``: the same join of the tangents (join_tangent: zeros for a constant element),
    and the cotangent cut back into one piece per element (unjoin_all), a list like xs."""
    kind = Num(prim.rpartition(".")[2])
    if has_axis:
        return (
            lambda xs, axis, z, dxs, dax: _h("join_tangent")(dxs, xs, kind, axis),
            lambda xs, axis, z, g: (_h("unjoin_all")(g, xs, kind, axis), None),
            (True, False),
        )
    return (
        lambda xs, z, dxs: _h("join_tangent")(dxs, xs, kind),
        lambda xs, z, g: (_h("unjoin_all")(g, xs, kind),),
        (True,),
    )


METHODS = {"conj": "numpy.conj", "conjugate": "numpy.conjugate", "diagonal": "numpy.diagonal"}
ATTRIBUTES = {"real": "numpy.real", "imag": "numpy.imag"}

# Refused where they are called, with the reason: their values are complex for a general real matrix.
_EIG = (
    "of a general matrix (its eigenvalues and eigenvectors may be complex; adcompiler differentiates real values only)",
    "for a symmetric matrix use np.linalg.eigh (or eigvalsh); else a real function of the matrix (det, trace, solve)",
)
REFUSED = {"numpy.linalg.eig": _EIG, "numpy.linalg.eigvals": _EIG}
