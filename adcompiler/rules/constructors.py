"""NumPy's constructors, one record each (``rules.primitive``): arrays made from a shape, a range or a value.

Most are constants of the function: ``np.zeros(n)``, ``np.arange(n)``, ``np.eye(n)`` have no derivative
(``inactive``) and are called as the user wrote them (no signature binds their arguments; their value reads
``dtype`` by keyword).  Three are linear in the values they spread: ``np.linspace`` in its ends (an entry is
``start + (stop - start) t``, so its cotangents are g weighted by ``1 - t`` and ``t``, summed: the helper
``linspace_vjp``), ``np.full`` and ``np.full_like`` in the fill value (the tangent fills with the value's
tangent; the cotangent is g summed back to the value's shape).  Under Numba, linspace's ends are numbers (its
``numpy.linspace`` takes no others).  Each one's ``array_api`` spelling is the
standard's function of the same name (``np.identity`` is not in the standard: refused there).
"""

from __future__ import annotations

from ..ir.expr import Call, IfExp, Num, Subscript, Tuple
from .primitive import Helper, Primitive, inactive, register


def _dtype(static, kit, at: int | None = None):
    """The dtype asked for by keyword or as the argument at position ``at`` (``np.zeros(n, x.dtype)``; None: not
    asked, or not known when compiling)."""
    given = static[at] if at is not None and len(static) > at else kit.UNKNOWN
    return kit.dtype_name(static.keywords.get("dtype", given))


def _like(ins, static, kit, at: int = 1):
    """``zeros_like(a)``, ...: an array of a's ndim, of the dtype asked for (by keyword or at position ``at``) or
    a's."""
    like = kit.as_array(ins[0])
    return kit.Arr(
        None if like is None else like.ndim, _dtype(static, kit, at) or (like.dtype if like is not None else None)
    )


def _shaped(ins, static, kit, dtype=None, at: int | None = 1):
    """``zeros(shape)``, ``full(shape, v)``, ...: an array of as many dimensions as the shape has entries (one
    for a number), of the dtype asked for (by keyword or at position ``at``; ``dtype``: else this one, else
    float64)."""
    shape = static[0] if static else kit.UNKNOWN
    dtype = _dtype(static, kit, at) or dtype
    if isinstance(shape, int):
        return kit.Arr(1, dtype or "float64")
    if isinstance(shape, tuple):
        return kit.Arr(len(shape), dtype or "float64")
    if ins and isinstance(ins[0], kit.Seq) and ins[0].items is not None:
        return kit.Arr(len(ins[0].items), dtype or "float64")
    if ins and isinstance(ins[0], kit.Num):
        return kit.Arr(1, dtype or "float64")
    return kit.Arr(None, dtype)


def _linspace(ins, static, kit):
    """``linspace(start, stop, num)``: a new first axis before the ends' broadcast shape."""
    nd = max([kit.ndim_of(a) or 0 for a in ins[:2]] + [0]) if all(kit.ndim_of(a) is not None for a in ins[:2]) else None
    return kit.Arr(None if nd is None else nd + 1, _dtype(static, kit) or kit.float_dtype(ins[:2]))


def _constant(name: str, value, xp: str | None = "") -> None:
    """Register ``np.<name>``, a constructor with no derivative, called as written."""
    inactive(f"numpy.{name}", "constructors", value, None if xp is None else f"xp.{xp or name}")


_constant("zeros", _shaped)
_constant("ones", _shaped)
_constant("zeros_like", _like)
_constant("ones_like", _like)
_constant("empty_like", _like)

register(
    Primitive(
        name="numpy.full",
        family="constructors",
        signature=(("shape", None), ("fill_value", None), ("dtype", Num(None))),
        value=lambda ins, static, kit: _shaped(
            ins, static, kit, kit.result_dtype(ins[1:2]) if len(ins) > 1 else None, at=2
        ),
        jvp=lambda shape, v, dtype, z, ds, dv, dd: Call("numpy.full", (shape, dv, dtype)),
        vjp=lambda shape, v, dtype, z, g: (None, Call("@unbroadcast", (g, v)), None),
        slots=(False, True, False),
        array_api="xp.full",
    )
)
register(
    Primitive(
        name="numpy.full_like",
        family="constructors",
        signature=(("a", None), ("fill_value", None), ("dtype", Num(None))),
        value=lambda ins, static, kit: _like(ins, static, kit, at=2),
        jvp=lambda x, v, dtype, z, dx, dv, dd: Call("numpy.full_like", (x, dv, dtype)),
        vjp=lambda x, v, dtype, z, g: (None, Call("@unbroadcast", (g, v)), None),
        slots=(False, True, False),
        array_api="xp.full_like",
    )
)
_constant("arange", lambda ins, static, kit: kit.Arr(1, _dtype(static, kit) or kit.result_dtype(ins)))
_constant("eye", lambda ins, static, kit: kit.Arr(2, _dtype(static, kit) or "float64"))
_constant("identity", lambda ins, static, kit: kit.Arr(2, _dtype(static, kit) or "float64"), xp=None)

LINSPACE_VJP = Helper(
    python='''def linspace_vjp(g, i, start, stop, num, endpoint=True):
    """The cotangent of start (i = 0) or stop (i = 1) in numpy.linspace(start, stop, num, endpoint):
    entry k is start + (stop - start) t_k, with t = numpy.linspace(0, 1, num, endpoint)."""
    import numpy

    t = numpy.linspace(0.0, 1.0, num, endpoint)
    w = t if i else 1.0 - t
    part = numpy.sum(g * numpy.reshape(w, (-1,) + (1,) * (numpy.ndim(g) - 1)), axis=0)
    x = stop if i else start
    while numpy.ndim(part) > numpy.ndim(x):
        part = numpy.sum(part, axis=0)
    for axis, n in enumerate(numpy.shape(x)):
        if n == 1 and numpy.shape(part)[axis] != 1:
            part = numpy.sum(part, axis=axis, keepdims=True)
    return part
''',
    array_api='''def linspace_vjp(g, i, start, stop, num, endpoint=True):
    """The cotangent of start (i = 0) or stop (i = 1) in linspace(start, stop, num, endpoint), of any library."""
    xp = namespace(g, start, stop)
    g = xp.asarray(g)
    t = xp.linspace(0.0, 1.0, num, endpoint=endpoint, dtype=g.dtype)
    w = t if i else 1.0 - t
    part = xp.sum(g * xp.reshape(w, (-1,) + (1,) * (g.ndim - 1)), axis=0)
    shape = shape_of(stop if i else start)
    while part.ndim > len(shape):
        part = xp.sum(part, axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and part.shape[axis] != 1:
            part = xp.sum(part, axis=axis, keepdims=True)
    return part
''',
    numba='''def linspace_vjp(g, i, start, stop, num, endpoint=True):
    """The cotangent of numpy.linspace's start or stop (compiled code only: see the overload below)."""
    raise TypeError("linspace_vjp is called from code numba.njit compiles")


@numba.extending.overload(linspace_vjp)
def _numba_linspace_vjp(g, i, start, stop, num, endpoint=True):
    """Of number ends (Numba's numpy.linspace takes no others): g weighted by 1 - t (start) or t (stop), summed."""
    types = numba.core.types
    numbers = isinstance(start, types.Number) and isinstance(stop, types.Number)
    if not (numbers and isinstance(g, types.Array) and g.ndim == 1):
        return None

    def number(g, i, start, stop, num, endpoint=True):
        last = num - 1 if endpoint else num
        total = 0.0
        for k in range(num):
            t = k / last if last > 0 else 0.0
            total += g[k] * (t if i else 1.0 - t)
        return total

    return number
''',
    linear=("linear", (0,)),
)
register(
    Primitive(
        name="numpy.linspace",
        family="constructors",
        signature=(("start", None), ("stop", None), ("num", Num(50)), ("endpoint", Num(True))),
        value=_linspace,
        jvp=lambda a, b, n, e, z, da, db, dn, de: Call("numpy.linspace", (da or Num(0.0), db or Num(0.0), n, e)),
        vjp=lambda a, b, n, e, z, g: (
            Call("@linspace_vjp", (g, Num(0), a, b, n, e)),
            Call("@linspace_vjp", (g, Num(1), a, b, n, e)),
            None,
            None,
        ),
        slots=(True, True, False, False),
        helpers={"linspace_vjp": LINSPACE_VJP},
        array_api="xp.linspace",
    )
)
_constant("empty", _shaped)


def _vander_slopes(x, n, increasing):
    """The slope of each entry of ``np.vander(x, n, increasing)`` in its point: p_j x_i^(p_j - 1) for the
    column of power p_j (N - 1 - j, or j increasing), 0 in the column of power 0, written with
    ``np.vander(x, N - 1, increasing)`` and the powers."""
    rows = Subscript(Call("numpy.shape", (x,)), Num(0))
    n = rows if isinstance(n, Num) and n.value is None else n
    zero = Call("numpy.zeros", (Tuple((rows, Num(1))),))
    up = Call(
        "numpy.concatenate",
        (Tuple((zero, Call("numpy.vander", (x, n - 1, Num(True))) * Call("numpy.arange", (Num(1), n)))), Num(1)),
    )
    down = Call(
        "numpy.concatenate",
        (
            Tuple(
                (Call("numpy.vander", (x, n - 1, Num(False))) * Call("numpy.arange", (n - 1, Num(0), Num(-1))), zero)
            ),
            Num(1),
        ),
    )
    if isinstance(increasing, Num):
        return up if increasing.value else down
    return IfExp(increasing, up, down)


register(
    Primitive(
        name="numpy.vander",
        family="constructors",
        signature=(("x", None), ("N", Num(None)), ("increasing", Num(False))),
        value=lambda ins, static, kit: kit.Arr(2, kit.result_dtype(ins[:1])),
        jvp=lambda x, n, inc, z, dx, dn, di: _vander_slopes(x, n, inc) * Call("numpy.expand_dims", (dx, Num(-1))),
        vjp=lambda x, n, inc, z, g: (Call("numpy.sum", (g * _vander_slopes(x, n, inc), Num(-1))), None, None),
        slots=(True, False, False),
        refusals={"array_api": "not in the array API standard"},
    )
)
