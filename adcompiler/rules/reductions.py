"""The variance-like reductions, one record each (``rules.primitive``): ``np.var`` and ``np.std``.

Both reduce ``a`` over ``axis`` (all of it for None), with ``keepdims`` and ``ddof`` (NumPy's ``dtype``,
``out`` and ``where`` are not taken, so at most two arguments positionally).  ``var(x) = sum((x -
mean)**2) / (n - ddof)``: its tangent is ``2 sum((x - mean) dx) / (n - ddof)`` (``var_jvp``, linear in
``dx`` and in ``x``), its cotangent ``g 2 (x - mean) / (n - ddof)`` (``var_vjp``); ``std = sqrt(var)``
divides both by ``2 std``, taken as 1 where the std is 0 (all entries equal: ``x - mean`` is then
exactly 0, so the derivative is 0, not 0 / 0).
"""

from __future__ import annotations

from ..ir.expr import Call, Num, fn, ne
from .primitive import Helper, Primitive, register

npwhere = fn("numpy.where")
AXIS_KEEPDIMS_DDOF = (("a", None), ("axis", Num(None)), ("keepdims", Num(False)), ("ddof", Num(0)))


def _h(name):
    """A runtime helper, spelt through the program that emits it (``@name``: see ``Program.helper``)."""
    return lambda *args: Call("@" + name, tuple(args))


def _unless_zero(z):  # a std of 0 (all entries equal): derivative 0 (x - mean is exactly 0), not 0 / 0
    return npwhere(ne(z, 0.0), z, 1.0)


def _floating_reduced(ins, static, kit):
    """A reduction over ``axis`` with ``keepdims``, of a floating dtype (integers give float64)."""
    return kit.floating_reduced(ins, static)


VAR_JVP = Helper(
    python='''def var_jvp(dx, x, axis=None, keepdims=False, ddof=0):
    """Tangent of numpy.var(x, axis, keepdims=keepdims, ddof=ddof): 2 sum((x - mean) dx) / (n - ddof)."""
    import numpy

    x = numpy.asarray(x)
    n = x.size // max(numpy.mean(x, axis=axis, keepdims=True).size, 1)
    centred = x - numpy.mean(x, axis=axis, keepdims=True)
    return 2.0 * numpy.sum(centred * dx, axis=axis, keepdims=keepdims) / (n - ddof)
''',
    array_api='''def var_jvp(dx, x, axis=None, keepdims=False, ddof=0):
    """Tangent of numpy.var(x, axis, keepdims=keepdims, ddof=ddof): 2 sum((x - mean) dx) / (n - ddof)."""
    xp = namespace(dx, x)
    mean = xp.mean(x, axis=axis, keepdims=True)
    n = size_of(x) // max(size_of(mean), 1)
    return 2.0 * xp.sum((x - mean) * dx, axis=axis, keepdims=keepdims) / (n - ddof)
''',
    linear=("bilinear", (0, 1)),  # linear in dx and in x
    like="numeric",  # shaped like the reduction of x
)
VAR_VJP = Helper(
    python='''def var_vjp(g, x, axis=None, keepdims=False, ddof=0):
    """Cotangent of numpy.var(x, axis, keepdims=keepdims, ddof=ddof): g 2 (x - mean) / (n - ddof)."""
    import numpy

    number = not hasattr(x, "shape")
    x = numpy.asarray(x)
    mean = numpy.mean(x, axis=axis, keepdims=True)
    n = x.size // max(mean.size, 1)
    if axis is not None and not keepdims:
        g = numpy.expand_dims(g, axis)
    out = 2.0 * g * (x - mean) / (n - ddof)
    return out[()] if number else out
''',
    array_api='''def var_vjp(g, x, axis=None, keepdims=False, ddof=0):
    """Cotangent of numpy.var(x, axis, keepdims=keepdims, ddof=ddof): g 2 (x - mean) / (n - ddof)."""
    if not hasattr(x, "shape"):
        return 0.0 * g
    xp = namespace(g, x)
    mean = xp.mean(x, axis=axis, keepdims=True)
    n = size_of(x) // max(size_of(mean), 1)
    if axis is not None and not keepdims and hasattr(g, "shape"):
        for a in sorted(k % len(x.shape) for k in (axis if type(axis) is tuple else (axis,))):
            g = xp.expand_dims(g, axis=a)
    return 2.0 * g * (x - mean) / (n - ddof)
''',
    linear=("bilinear", (0, 1)),
    like=1,  # shaped like x
)

# np.var(a, axis=None, keepdims=False, ddof=0)
register(
    Primitive(
        name="numpy.var",
        family="reductions",
        signature=AXIS_KEEPDIMS_DDOF,
        positional=2,
        methods=("var",),
        value=_floating_reduced,
        jvp=lambda x, axis, keepdims, ddof, z, dx, da, dk, dd: _h("var_jvp")(dx, x, axis, keepdims, ddof),
        vjp=lambda x, axis, keepdims, ddof, z, g: (_h("var_vjp")(g, x, axis, keepdims, ddof), None, None, None),
        slots=(True, False, False, False),
        helpers={"var_jvp": VAR_JVP, "var_vjp": VAR_VJP},
        array_api="xp.var",
        array_api_keywords={"ddof": "correction"},
    )
)

# np.std(a, axis=None, keepdims=False, ddof=0): the square root of var's, so var's rules over 2 std
register(
    Primitive(
        name="numpy.std",
        family="reductions",
        signature=AXIS_KEEPDIMS_DDOF,
        positional=2,
        methods=("std",),
        value=_floating_reduced,
        jvp=lambda x, axis, keepdims, ddof, z, dx, da, dk, dd: _h("var_jvp")(dx, x, axis, keepdims, ddof)
        / (2 * _unless_zero(z)),
        vjp=lambda x, axis, keepdims, ddof, z, g: (
            _h("var_vjp")(g / (2 * _unless_zero(z)), x, axis, keepdims, ddof),
            None,
            None,
            None,
        ),
        slots=(True, False, False, False),
        helpers={"var_jvp": VAR_JVP, "var_vjp": VAR_VJP},
        array_api="xp.std",
        array_api_keywords={"ddof": "correction"},
    )
)
