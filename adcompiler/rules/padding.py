"""Derivative rules for np.pad and dtype casts; ``products`` merges these tables into its own.

``np.pad(x, pad_width, mode, constant_values=c)`` is linear in x and, for mode "constant", in c: its
tangent is the same pad of the tangents (``constant_values`` the tangent of c), its adjoint the padded
cotangent summed back into the cells each padded cell copies (``pad_vjp``: the centre for "constant",
the border cells too for "edge" and "reflect") and, for c, summed over the cells c fills
(``pad_vjp_values``).  A cast to a float dtype (``x.astype(float)``, ``np.asarray(x, dtype="float32")``,
primitives ``numpy.array/dtype`` and ``numpy.asarray/dtype``) is the identity on values: its tangent is
the tangent cast alike, its cotangent g cast back to x's dtype (``array_like``).  Casts to other dtypes
are refused where they are written (lowering).
"""

from __future__ import annotations

from ..ir.expr import CASTS, Call, Num, pad_call

PAD = "numpy.pad"


def _h(name):
    """A runtime helper of generated code (``@name``)."""
    return lambda *args: Call("@" + name, tuple(args))


def _pad_tangent(x, pad_width, mode, values, dx, dvalues):
    dx = (
        dx if dx is not None else Call("numpy.zeros_like", (x,), (("dtype", Call("numpy.result_type", (x, Num(0.0)))),))
    )
    return pad_call(dx, pad_width, mode, dvalues if dvalues is not None else Num(0.0))


FORWARD = {PAD: lambda x, pw, mode, c, z, dx, dpw, dm, dc: _pad_tangent(x, pw, mode, c, dx, dc)}
REVERSE = {
    PAD: lambda x, pw, mode, c, z, g: (
        _h("pad_vjp")(g, x, pw, mode),
        None,
        None,
        _h("pad_vjp_values")(g, x, pw, c),
    )
}
SLOTS = {PAD: (True, False, False, True)}
SIGNATURES = {
    PAD: (("array", None), ("pad_width", None), ("mode", Num("constant")), ("constant_values", Num(0))),
}
STATIC = {PAD: {"pad_width": None, "mode": ("constant", "edge", "reflect")}}
POSITIONAL = {PAD: 3}  # constant_values is keyword-only in NumPy

for _prim, _called in CASTS.items():
    FORWARD[_prim] = lambda x, dtype, z, dx, dd, f=_called: Call(f, (dx,), (("dtype", dtype),))
    REVERSE[_prim] = lambda x, dtype, z, g: (_h("array_like")(g, x), None)
    SLOTS[_prim] = (True, False)
