"""NumPy's reductions, one record each (``rules.primitive``): the variance-like ``np.var``, ``np.std`` and
``np.cov``; the linear ``np.sum``, ``np.mean``, ``np.cumsum`` and ``np.trace``; the selections ``np.max``,
``np.min`` (``amax``, ``amin``) and ``np.ptp``; and ``np.prod``.  Each family's rules are in its paragraph.

``var`` and ``std`` reduce ``a`` over ``axis`` (all of it for None), with ``keepdims`` and ``ddof`` (NumPy's ``dtype``,
``out`` and ``where`` are not taken, so at most two arguments positionally).  ``var(x) = sum((x -
mean)**2) / (n - ddof)``: its tangent is ``2 sum((x - mean) dx) / (n - ddof)`` (``var_jvp``, linear in
``dx`` and in ``x``), its cotangent ``g 2 (x - mean) / (n - ddof)`` (``var_vjp``); ``std = sqrt(var)``
divides both by ``2 std``, taken as 1 where the std is 0 (all entries equal: ``x - mean`` is then
exactly 0, so the derivative is 0, not 0 / 0).  ``np.cov``'s rules are in its paragraph below.
"""

from __future__ import annotations

from ..ir.expr import Call, Num, fn, ne
from .primitive import Helper, Primitive, register

np_ = lambda name: fn("numpy." + name)  # noqa: E731
npwhere = np_("where")
AXIS_KEEPDIMS_DDOF = (("a", None), ("axis", Num(None)), ("keepdims", Num(False)), ("ddof", Num(0)))


def _h(name):
    """A runtime helper, spelt through the program that emits it (``@name``: see ``Program.helper``)."""
    return lambda *args: Call("@" + name, tuple(args))


def _unless_zero(z):  # a std of 0 (all entries equal): derivative 0 (x - mean is exactly 0), not 0 / 0
    return npwhere(ne(z, 0.0), z, 1.0)


def _floating_reduced(ins, static, kit):
    """A reduction over ``axis`` with ``keepdims``, of a floating dtype (integers give float64)."""
    return kit.floating_reduced(ins, static)


def _var_numba(name: str, first: str, what: str, formula: str, value: str) -> str:
    """The Numba form of var's tangent or cotangent helper: of all of x (the var and std Numba compiles take no
    axis), ``value`` (``formula``); 0 for a number."""
    signature = f"{first}, x, axis=None, keepdims=False, ddof=0"
    return f'''def {name}({signature}):
    """The {what} of numpy.var (compiled code only: see the overload below)."""
    raise TypeError("{name} is called from code numba.njit compiles")


@numba.extending.overload({name})
def _numba_{name}({signature}):
    """The {what} of numpy.var of all of x: {formula}; 0 for a number."""
    types = numba.core.types
    if not (isinstance(axis, (types.NoneType, types.Omitted)) or axis is None):
        return None
    if isinstance(x, types.Number):
        return lambda {signature}: 0.0 * {first}
    if not isinstance(x, types.Array):
        return None
    return lambda {signature}: {value}
'''


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
    numba=_var_numba(
        "var_jvp",
        "dx",
        "tangent",
        "2 sum((x - mean) dx) / (n - ddof)",
        "2.0 * numpy.sum((x - numpy.mean(x)) * dx) / (x.size - ddof)",
    ),
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
    numba=_var_numba(
        "var_vjp", "g", "cotangent", "g 2 (x - mean) / (n - ddof)", "2.0 * g * (x - numpy.mean(x)) / (x.size - ddof)"
    ),
    linear=("bilinear", (0, 1)),
    # <u, var_vjp(g, x)> is <g, var_jvp(u, x)>; linear in x too, by centring, which is its own adjoint
    reverse=lambda u, g, x, *rest: [_h("var_jvp")(u, x, *rest), _h("var_vjp")(g, u, *rest)] + [None] * len(rest),
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


# --- np.cov(m, y=None, rowvar=True, bias=False, ddof=None): C = Xc Xc^T / (N - ddof), X the variables of m
# (and y) as rows of N observations each (columns where rowvar is False), Xc = X less its rows' means.
# dC = (dXc Xc^T + Xc dXc^T) / (N - ddof); the cotangent of X is (g + g^T) Xc / (N - ddof) (centring is a
# symmetric projection and Xc is already centred), its rows split back to m and y in their layouts.
# NumPy squeezes the result (one variable: a 0-d array); fweights, aweights and dtype are not taken.
def _covariance(ins, static, kit):
    """0-d for one vector alone, a matrix of a vector and another; a matrix m: 2-d unless it has one row."""
    alone, nd = static[1] is None, kit.ndim_of(ins[0])
    ndim = 0 if alone and nd == 1 else 2 if nd == 1 and kit.ndim_of(ins[1]) == 1 else None
    return kit.array_of(ndim, "float64")


_NUMBA_COV_ROWS = '''@numba.njit
def {name}(a, rowvar):
    """The variables of numpy.cov's argument a as the rows of a float64 matrix (a vector: one row)."""
    x = numpy.atleast_2d(a * 1.0)
    if not rowvar and x.shape[0] != 1:
        return numpy.ascontiguousarray(x.T)
    return numpy.ascontiguousarray(x)


'''  # (in the Numba forms of cov_jvp and cov_vjp, each a text that stands alone in a written module)

COV_ROWS = Helper(  # (called by the array-API forms of cov, cov_jvp and cov_vjp)
    array_api='''def cov_rows(xp, a, rowvar):
    """The variables of numpy.cov's argument a as the rows of a float64 matrix (a vector: one row)."""
    x = xp.astype(xp.asarray(a), xp.float64)
    x = xp.reshape(x, (1, -1)) if len(x.shape) < 2 else x
    return xp.matrix_transpose(x) if not rowvar and x.shape[0] != 1 else x
''',
)
COV = Helper(  # np.cov itself under arrays="any" (not in the standard)
    array_api='''def cov(m, y=None, rowvar=True, bias=False, ddof=None):
    """numpy.cov(m, y, rowvar, bias, ddof) with the array API: Xc Xc^T / (N - ddof), one variable a 0-d array."""
    xp = namespace(m, y)
    x = cov_rows(xp, m, rowvar)
    if y is not None:
        x = xp.concat((x, cov_rows(xp, y, rowvar)), axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    centred = x - xp.mean(x, axis=1, keepdims=True)
    c = centred @ xp.matrix_transpose(centred) / (x.shape[1] - ddof)
    return c[0, 0] if c.shape[0] == 1 else c
''',
)
COV_JVP = Helper(
    python='''def cov_jvp(dm, dy, m, y=None, rowvar=True, bias=False, ddof=None):
    """Tangent of numpy.cov(m, y, rowvar, bias, ddof): (dX Xc^T + Xc dX^T) / (N - ddof), X the variables of m
    and y as rows of N observations, Xc X less its rows' means, dX the tangents' rows less theirs."""
    import numpy

    x, dx = numpy.array(m, ndmin=2, dtype=float), numpy.array(numpy.zeros(numpy.shape(m)) + dm, ndmin=2)
    if not rowvar and x.shape[0] != 1:
        x, dx = x.T, dx.T
    if y is not None:
        other, dother = numpy.array(y, ndmin=2, dtype=float), numpy.array(numpy.zeros(numpy.shape(y)) + dy, ndmin=2)
        if not rowvar and other.shape[0] != 1:
            other, dother = other.T, dother.T
        x, dx = numpy.concatenate((x, other), axis=0), numpy.concatenate((dx, dother), axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    part = (dx - numpy.mean(dx, axis=1, keepdims=True)) @ (x - numpy.mean(x, axis=1, keepdims=True)).T
    return ((part + part.T) / (x.shape[1] - ddof)).squeeze()
''',
    array_api='''def cov_jvp(dm, dy, m, y=None, rowvar=True, bias=False, ddof=None):
    """Tangent of numpy.cov(m, y, rowvar, bias, ddof): (dX Xc^T + Xc dX^T) / (N - ddof)."""
    xp = namespace(dm, dy, m, y)
    x, dx = cov_rows(xp, m, rowvar), cov_rows(xp, xp.zeros(shape_of(m), dtype=xp.float64) + dm, rowvar)
    if y is not None:
        x = xp.concat((x, cov_rows(xp, y, rowvar)), axis=0)
        dx = xp.concat((dx, cov_rows(xp, xp.zeros(shape_of(y), dtype=xp.float64) + dy, rowvar)), axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    part = (dx - xp.mean(dx, axis=1, keepdims=True)) @ xp.matrix_transpose(x - xp.mean(x, axis=1, keepdims=True))
    c = (part + xp.matrix_transpose(part)) / (x.shape[1] - ddof)
    return c[0, 0] if c.shape[0] == 1 else c
''',
    numba='''def cov_jvp(dm, dy, m, y=None, rowvar=True, bias=False, ddof=None):
    """Tangent of numpy.cov (compiled code only: see the overload below)."""
    raise TypeError("cov_jvp is called from code numba.njit compiles")


'''
    + _NUMBA_COV_ROWS.format(name="_numba_cov_rows")
    + '''@numba.extending.overload(cov_jvp)
def _numba_cov_jvp(dm, dy, m, y=None, rowvar=True, bias=False, ddof=None):
    """(dX Xc^T + Xc dX^T) / (N - ddof) for arrays m (and y), shaped as Numba's numpy.cov: 0-d for one
    vector m alone, else a matrix (a matrix m of one row is refused by numpy.cov itself, before this)."""
    types = numba.core.types
    none = (types.NoneType, types.Omitted)
    alone = y is None or isinstance(y, none)
    if not isinstance(m, types.Array) or not (alone or isinstance(y, types.Array)):
        return None
    code = "def impl(dm, dy, m, y=None, rowvar=True, bias=False, ddof=None):\\n"
    code += "    x, dx = rows(m, rowvar), rows(numpy.zeros(m.shape) + dm, rowvar)\\n"
    if not alone:
        code += "    x = numpy.concatenate((x, rows(y, rowvar)))\\n"
        code += "    dx = numpy.concatenate((dx, rows(numpy.zeros(y.shape) + dy, rowvar)))\\n"
    ddof_of = "(0 if bias else 1)" if ddof is None or isinstance(ddof, none) else "ddof"
    code += "    xc = x - numpy.sum(x, axis=1).reshape((-1, 1)) / x.shape[1]\\n"
    code += "    part = (dx - numpy.sum(dx, axis=1).reshape((-1, 1)) / x.shape[1]) @ xc.T\\n"
    code += f"    c = (part + part.T) / (x.shape[1] - {ddof_of})\\n"
    code += "    return numpy.asarray(c[0, 0])\\n" if alone and m.ndim == 1 else "    return c\\n"
    scope = {"numpy": numpy, "rows": _numba_cov_rows}
    exec(code, scope)
    return scope["impl"]
''',
)
COV_VJP = Helper(
    python='''def cov_vjp(g, k, m, y=None, rowvar=True, bias=False, ddof=None):
    """Cotangent of numpy.cov(m, y, rowvar, bias, ddof) for m (k = 0) or y (k = 1): the rows of (g + g^T) Xc /
    (N - ddof) that are that argument's variables, in its layout and float dtype (X, Xc as in cov_jvp)."""
    import numpy

    x = numpy.array(m, ndmin=2, dtype=float)
    flips = [not rowvar and x.shape[0] != 1]
    x = x.T if flips[0] else x
    own = x.shape[0]
    if y is not None:
        other = numpy.array(y, ndmin=2, dtype=float)
        flips.append(not rowvar and other.shape[0] != 1)
        x = numpy.concatenate((x, other.T if flips[1] else other), axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    g = numpy.reshape(g, (x.shape[0], x.shape[0]))
    full = (g + g.T) @ (x - numpy.mean(x, axis=1, keepdims=True)) / (x.shape[1] - ddof)
    part = full[:own] if k == 0 else full[own:]
    a = m if k == 0 else y
    out = numpy.reshape(part.T if flips[k] else part, numpy.shape(a))
    return out.astype(numpy.result_type(numpy.asarray(a).dtype, numpy.float16))
''',
    array_api='''def cov_vjp(g, k, m, y=None, rowvar=True, bias=False, ddof=None):
    """Cotangent of numpy.cov(m, y, rowvar, bias, ddof) for m (k = 0) or y (k = 1), in its layout and dtype."""
    xp = namespace(g, m, y)
    x = cov_rows(xp, m, rowvar)
    own = x.shape[0]
    if y is not None:
        x = xp.concat((x, cov_rows(xp, y, rowvar)), axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    g = xp.reshape(xp.astype(xp.asarray(g), xp.float64), (x.shape[0], x.shape[0]))
    full = (g + xp.matrix_transpose(g)) @ (x - xp.mean(x, axis=1, keepdims=True)) / (x.shape[1] - ddof)
    part = full[:own, ...] if k == 0 else full[own:, ...]
    a = xp.asarray(m if k == 0 else y)
    flip = not rowvar and len(a.shape) == 2 and a.shape[0] != 1
    out = xp.reshape(xp.matrix_transpose(part) if flip else part, a.shape)
    return xp.astype(out, a.dtype) if xp.isdtype(a.dtype, "real floating") else out
''',
    numba='''def cov_vjp(g, k, m, y=None, rowvar=True, bias=False, ddof=None):
    """Cotangent of numpy.cov (compiled code only: see the overload below)."""
    raise TypeError("cov_vjp is called from code numba.njit compiles")


'''
    + _NUMBA_COV_ROWS.format(name="_numba_cov_rows_of")
    + '''@numba.extending.overload(cov_vjp)
def _numba_cov_vjp(g, k, m, y=None, rowvar=True, bias=False, ddof=None):
    """The rows of (g + g^T) Xc / (N - ddof) of argument k (0: m, 1: y), in its layout (arrays m and y)."""
    types = numba.core.types
    none = (types.NoneType, types.Omitted)
    alone = y is None or isinstance(y, none)
    if not isinstance(m, types.Array) or not (alone or isinstance(y, types.Array)):
        return None
    code = "def impl(g, k, m, y=None, rowvar=True, bias=False, ddof=None):\\n"
    code += "    x = rows(m, rowvar)\\n    own = x.shape[0]\\n"
    if not alone:
        code += "    x = numpy.concatenate((x, rows(y, rowvar)))\\n"
    ddof_of = "(0 if bias else 1)" if ddof is None or isinstance(ddof, none) else "ddof"
    code += "    gg = numpy.zeros((x.shape[0], x.shape[0])) + g\\n"  # (g a number for one variable)
    code += "    xc = x - numpy.sum(x, axis=1).reshape((-1, 1)) / x.shape[1]\\n"
    code += f"    full = (gg + gg.T) @ xc / (x.shape[1] - {ddof_of})\\n"
    for name, a in (("m", m),) + ((("y", y),) if not alone else ()):
        at = "full[:own]" if name == "m" else "full[own:]"
        code += f"    if {'k == 0' if name == 'm' else 'k != 0'}:\\n"
        if a.ndim == 1:
            code += f"        return numpy.ascontiguousarray({at}).reshape({name}.shape)\\n"
        else:
            code += f"        part = {at}\\n"
            code += f"        if not rowvar and {name}.shape[0] != 1:\\n"
            code += f"            return numpy.ascontiguousarray(part.T).reshape({name}.shape)\\n"
            code += f"        return numpy.ascontiguousarray(part).reshape({name}.shape)\\n"
    code += "    raise ValueError(\\"cov_vjp: no such argument\\")\\n"
    scope = {"numpy": numpy, "rows": _numba_cov_rows_of}
    exec(code, scope)
    return scope["impl"]
''',
)

register(
    Primitive(
        name="numpy.cov",
        family="reductions",
        signature=(("m", None), ("y", Num(None)), ("rowvar", Num(True)), ("bias", Num(False)), ("ddof", Num(None))),
        value=_covariance,
        jvp=lambda m, y, rowvar, bias, ddof, z, dm, dy, dr, db, dd: (
            None
            if dm is None and dy is None
            else _h("cov_jvp")(dm or Num(0.0), dy or Num(0.0), m, y, rowvar, bias, ddof)
        ),
        vjp=lambda m, y, rowvar, bias, ddof, z, g: (
            _h("cov_vjp")(g, Num(0), m, y, rowvar, bias, ddof),
            _h("cov_vjp")(g, Num(1), m, y, rowvar, bias, ddof),
            None,
            None,
            None,
        ),
        slots=(True, True, False, False, False),
        helpers={"cov_rows": COV_ROWS, "cov": COV, "cov_jvp": COV_JVP, "cov_vjp": COV_VJP},
        array_api="cov",
    )
)


# --- the linear reductions, one record each: linear in their array (``linear(g, x, z, *static)``: the cotangent
# of x), the rest static.  sum's cotangent is g spread back over the axes summed (``unreduce``), mean's that over
# the count; cumsum's is the reversed cumulative sum of g; trace's g on each matrix's diagonal (``trace_vjp``).
def _linear(name: str, signature: tuple, value, linear, **more) -> None:
    register(
        Primitive(name=f"numpy.{name}", family="reductions", signature=signature, value=value, linear=linear, **more)
    )


def _cumulated(ins, static, kit):
    """np.cumsum(a, axis): flat (1-d) without an axis, else a's ndim."""
    axis = static[1] if len(static) > 1 else None
    return kit.array_of(1 if axis is None else kit.ndim_of(ins[0]), kit.result_dtype(ins[:1]))


# np.trace's cotangent: g on each matrix's diagonal (Numba's form for a matrix along its own axes)
TRACE_VJP = Helper(
    python='''def trace_vjp(g, x, offset=0, axis1=0, axis2=1):
    """Cotangent of numpy.trace(x, offset, axis1, axis2): g along that diagonal of every matrix."""
    import numpy

    shape = numpy.shape(x)
    a1, a2 = sorted((axis1 % len(shape), axis2 % len(shape)))
    eye = numpy.eye(shape[axis1 % len(shape)], shape[axis2 % len(shape)], offset)
    if axis1 % len(shape) > axis2 % len(shape):
        eye = eye.T
    mask = eye.reshape([shape[k] if k in (a1, a2) else 1 for k in range(len(shape))])
    return numpy.expand_dims(g, (a1, a2)) * mask
''',
    numba='''def trace_vjp(g, x, offset=0, axis1=0, axis2=1):
    """The cotangent of numpy.trace (compiled code only: see the overload below)."""
    raise TypeError("trace_vjp is called from code numba.njit compiles")


@numba.extending.overload(trace_vjp)
def _numba_trace_vjp(g, x, offset=0, axis1=0, axis2=1):
    """The cotangent of the trace of a matrix along its own axes (Numba's numpy.trace takes a matrix and an
    offset only, so the primal has refused any other): g along the diagonal at ``offset``."""
    types = numba.core.types
    if not isinstance(x, types.Array) or x.ndim != 2 or not isinstance(g, types.Number):
        return None

    def impl(g, x, offset=0, axis1=0, axis2=1):
        out = numpy.zeros(x.shape)
        for i in range(x.shape[0]):
            if 0 <= i + offset < x.shape[1]:
                out[i, i + offset] = g
        return out

    return impl
''',
    linear=("linear", (0,)),
    reverse=lambda u, g, x, *rest: [Call("numpy.trace", (u, *rest))] + [None] * (1 + len(rest)),  # g's trace
    like=1,
)


AXIS_KEEPDIMS = AXIS_KEEPDIMS_DDOF[:3]
_linear(
    "sum",
    AXIS_KEEPDIMS,
    lambda ins, static, kit: kit.reduced(ins, static),
    lambda g, x, z, axis, keepdims: _h("unreduce")(g, x, axis, keepdims),
    methods=("sum",),
    array_api="xp.sum",
)
_linear(
    "mean",
    AXIS_KEEPDIMS,
    lambda ins, static, kit: kit.floating_reduced(ins, static),
    lambda g, x, z, axis, keepdims: _h("unreduce")(g, x, axis, keepdims)
    * (Call("numpy.size", (z,)) / Call("numpy.size", (x,))),
    methods=("mean",),
    array_api="xp.mean",
)
_linear(
    "cumsum",
    (("a", None), ("axis", Num(None))),
    _cumulated,
    lambda g, x, z, axis: np_("reshape")(np_("flip")(np_("cumsum")(np_("flip")(g, axis), axis), axis), np_("shape")(x)),
    methods=("cumsum",),
    array_api="xp.cumulative_sum",
)
_linear(
    "trace",
    (("a", None), ("offset", Num(0)), ("axis1", Num(0)), ("axis2", Num(1))),
    lambda ins, static, kit: kit.matrices_reduced(ins, static),
    lambda g, x, z, offset, axis1, axis2: _h("trace_vjp")(g, x, offset, axis1, axis2),
    methods=("trace",),
    helpers={"trace_vjp": TRACE_VJP},
)


# --- the selections: max and min (amax, amin) pick entries, so their derivative is that of the entries picked
# (shared equally among ties, ``extreme_jvp``/``extreme_vjp``); ptp = max - min; prod's cotangent is g times
# the product of the other entries (``prod_vjp``, exact where entries are zero), its tangent their sum against dx.
# the part of prod's Numba overloads that reads the axis (each form's text stands alone in the module it is copied
# into): x read as lines (the axes before, the axis, the axes after), n entries each; ``read(v, name)``: how an
# argument of one entry per line (g) is read, as an array (name[i, j]) or a number
_PROD_ALONG = """    types = numba.core.types
    if not isinstance(x, types.Array) or x.ndim == 0 or not isinstance(x.dtype, types.Float):
        return None
    if isinstance(axis, (types.NoneType, types.Omitted)) or axis is None:
        before, after, n = "1", "1", "x.size"
    elif isinstance(axis, types.IntegerLiteral):
        at = axis.literal_value + x.ndim if axis.literal_value < 0 else axis.literal_value
        if not 0 <= at < x.ndim:
            return None
        before = " * ".join(f"x.shape[{d}]" for d in range(at)) or "1"
        after = " * ".join(f"x.shape[{d}]" for d in range(at + 1, x.ndim)) or "1"
        n = f"x.shape[{at}]"
    else:
        return None

    def read(v, name):
        if isinstance(v, types.Array):
            return f"numpy.ascontiguousarray({name[:-1]}).reshape(({before}, {after}))", f"{name}[i, j]"
        return (name[:-1], name[:-1]) if isinstance(v, types.Number) else (None, None)

"""


def _prod_vjp_adjoint(u, g, x, rest) -> list:
    """The cotangents of ``prod_vjp(g, x, axis, keepdims)`` for u: <u, it> is <g, prod's tangent along u>, so g's
    is that tangent; x's is prod_vjp's own tangent along u with g fixed (the second derivative of a product is
    symmetric)."""
    axis, keep = (tuple(rest) + (Num(None), Num(False)))[:2]
    tangent = np_("sum")(_h("prod_vjp")(Num(1.0), x, axis, keep) * u, axis, keep)
    return [tangent, _h("prod_vjp_jvp")(g, Num(0.0), x, u, axis, keep)] + [None] * len(rest)


PROD_VJP = Helper(
    python='''def prod_vjp(g, x, axis=None, keepdims=False):
    """Cotangent of numpy.prod over axis: g times the product of the other entries (exact at zeros)."""
    import numpy

    flat = axis is None
    a = numpy.ravel(x) if flat else numpy.moveaxis(x, axis, -1)
    ones = numpy.ones(a.shape[:-1] + (1,), dtype=a.dtype)
    left = numpy.cumprod(numpy.concatenate([ones, a[..., :-1]], axis=-1), axis=-1)
    right = numpy.flip(numpy.cumprod(numpy.concatenate([ones, numpy.flip(a, -1)[..., :-1]], axis=-1), axis=-1), -1)
    others = left * right
    if flat:
        out = numpy.reshape(g * others, numpy.shape(x))
        return out[()] if not hasattr(x, "shape") else out  # a number's cotangent is a number
    gg = numpy.squeeze(g, axis) if keepdims and numpy.ndim(g) else g
    spread = gg * others if type(gg) is float else numpy.expand_dims(gg, -1) * others  # (1.0 of the jvp: float32
    return numpy.moveaxis(spread, -1, axis)  # entries keep a float32 tangent)
''',
    array_api='''def prod_vjp(g, x, axis=None, keepdims=False):
    """Cotangent of numpy.prod over axis: g times the product of the other entries (exact at zeros),
    by running products from the left and from the right."""
    if not hasattr(x, "shape"):
        return g
    xp = namespace(g, x)
    shape = tuple(x.shape)
    ax = None if axis is None else axis % len(shape)
    a = xp.reshape(x, (-1,)) if ax is None else xp.moveaxis(x, ax, -1)
    ones = xp.ones(tuple(a.shape[:-1]) + (1,), dtype=a.dtype)
    left = xp.cumulative_prod(xp.concat([ones, a[..., :-1]], axis=-1), axis=-1)
    right = xp.cumulative_prod(xp.concat([ones, xp.flip(a, axis=-1)[..., :-1]], axis=-1), axis=-1)
    others = left * xp.flip(right, axis=-1)
    if ax is None:
        return xp.reshape(g * others, shape)
    gg = xp.squeeze(g, axis=ax) if keepdims and hasattr(g, "shape") and len(g.shape) else g
    gg = xp.expand_dims(gg, axis=-1) if hasattr(gg, "shape") else gg
    return xp.moveaxis(gg * others, -1, ax)
''',
    numba=f'''def prod_vjp(g, x, axis=None, keepdims=False):
    """The cotangent of numpy.prod (compiled code only: see the overload below)."""
    raise TypeError("prod_vjp is called from code numba.njit compiles")


@numba.extending.overload(prod_vjp, prefer_literal=True)
def _numba_prod_vjp(g, x, axis=None, keepdims=False):
    """The cotangent of numpy.prod of all of x, or of each line along one axis (an integer, negative from
    the end): g times the product of the line's other entries, from running products from both ends (exact
    at zeros, no division); x read as (the axes before, the axis, the axes after), g as one entry per line."""
{_PROD_ALONG}    shares, share = read(g, "gs")
    if shares is None:
        return None
    code = f"""def impl(g, x, axis=None, keepdims=False):
    n = {{n}}
    lines = numpy.ascontiguousarray(x).reshape(({{before}}, n, {{after}}))
    gs = {{shares}}
    out = numpy.empty(lines.shape, numpy.float64)
    for i in range(lines.shape[0]):
        for j in range(lines.shape[2]):
            left = 1.0
            for t in range(n):
                out[i, t, j] = left
                left *= lines[i, t, j]
            right = {{share}}
            for t in range(n - 1, -1, -1):
                out[i, t, j] *= right
                right *= lines[i, t, j]
    return out.reshape(x.shape)
"""
    scope = {{"numpy": numpy}}
    exec(code, scope)
    return scope["impl"]
''',
    linear=("product", (0, 1)),
    reverse=lambda u, g, x, *rest: _prod_vjp_adjoint(u, g, x, rest),
    like=1,
)

PROD_VJP_JVP = Helper(
    python='''def prod_vjp_jvp(g, dg, x, dx, axis=None, keepdims=False):
    """The tangent of prod_vjp(g, x, axis, keepdims) = g * (the product of the other entries of x),
    given tangents dg and dx: exact at zeros, by the tangents of the left and right running products."""
    import numpy

    flat = axis is None
    a = numpy.ravel(x) if flat else numpy.moveaxis(x, axis, -1)
    da = numpy.broadcast_to(dx, numpy.shape(x))
    da = numpy.ravel(da) if flat else numpy.moveaxis(da, axis, -1)
    m = a.shape[-1]
    left, dleft = numpy.ones(a.shape, dtype=float), numpy.zeros(a.shape, dtype=float)
    right, dright = numpy.ones(a.shape, dtype=float), numpy.zeros(a.shape, dtype=float)
    for i in range(1, m):  # left[i] = a[0] ... a[i-1], right[i] = a[i+1] ... a[m-1], and their tangents
        left[..., i] = left[..., i - 1] * a[..., i - 1]
        dleft[..., i] = dleft[..., i - 1] * a[..., i - 1] + left[..., i - 1] * da[..., i - 1]
        j = m - 1 - i
        right[..., j] = right[..., j + 1] * a[..., j + 1]
        dright[..., j] = dright[..., j + 1] * a[..., j + 1] + right[..., j + 1] * da[..., j + 1]
    others, dothers = left * right, dleft * right + left * dright
    if flat:
        return numpy.reshape(dg * others + g * dothers, numpy.shape(x))
    gg = numpy.squeeze(g, axis) if keepdims and numpy.ndim(g) else g
    dgg = numpy.squeeze(dg, axis) if keepdims and numpy.ndim(dg) else dg
    gg, dgg = numpy.expand_dims(gg, -1), numpy.expand_dims(dgg, -1)
    return numpy.moveaxis(dgg * others + gg * dothers, -1, axis)
''',
    numba=f'''def prod_vjp_jvp(g, dg, x, dx, axis=None, keepdims=False):
    """The tangent of prod_vjp (compiled code only: see the overload below)."""
    raise TypeError("prod_vjp_jvp is called from code numba.njit compiles")


@numba.extending.overload(prod_vjp_jvp, prefer_literal=True)
def _numba_prod_vjp_jvp(g, dg, x, dx, axis=None, keepdims=False):
    """The tangent of prod_vjp(g, x, axis, keepdims) given dg and dx (of x's shape, or a number): along each
    line, the running products from both ends and their tangents (exact at zeros, no division)."""
{_PROD_ALONG}    (shares, share), (dshares, dshare) = read(g, "gs"), read(dg, "dgs")
    if shares is None or dshares is None or not isinstance(dx, (types.Array, types.Number)):
        return None
    dlines = f"numpy.ascontiguousarray(dx).reshape(({{before}}, n, {{after}}))" if isinstance(dx, types.Array) else "dx"
    dline = "dlines[i, t, j]" if isinstance(dx, types.Array) else "dx"
    code = f"""def impl(g, dg, x, dx, axis=None, keepdims=False):
    n = {{n}}
    lines = numpy.ascontiguousarray(x).reshape(({{before}}, n, {{after}}))
    dlines = {{dlines}}
    gs, dgs = {{shares}}, {{dshares}}
    out = numpy.empty(lines.shape, numpy.float64)
    left, dleft = numpy.empty(n), numpy.empty(n)
    for i in range(lines.shape[0]):
        for j in range(lines.shape[2]):
            run, drun = 1.0, 0.0
            for t in range(n):  # the product of the entries before t, and its tangent
                left[t], dleft[t] = run, drun
                run, drun = run * lines[i, t, j], drun * lines[i, t, j] + run * {{dline}}
            run, drun = 1.0, 0.0
            for t in range(n - 1, -1, -1):  # ... and after t: the others' product is left times right
                others, dothers = left[t] * run, dleft[t] * run + left[t] * drun
                out[i, t, j] = {{dshare}} * others + {{share}} * dothers
                run, drun = run * lines[i, t, j], drun * lines[i, t, j] + run * {{dline}}
    return out.reshape(x.shape)
"""
    scope = {{"numpy": numpy}}
    exec(code, scope)
    return scope["impl"]
''',
    like=2,
)

# the part of the extremes' Numba overloads that reads the axis (each form's text stands alone in the module
# it is copied into): the whole array's rule, or the axis made non-negative and whether it is kept
_EXTREME_ALONG = """    if whole or not isinstance(z, types.Array):  # (a vector's extreme along its axis: a number)
        return impl if whole or isinstance(axis, types.Integer) else None
    kept = getattr(keepdims, "literal_value", False if isinstance(keepdims, types.Omitted) else None)
    if not isinstance(axis, types.IntegerLiteral) or kept is None:
        return None
    at = axis.literal_value + x.ndim if axis.literal_value < 0 else axis.literal_value
"""

EXTREME_JVP = Helper(
    python='''def extreme_jvp(dx, x, z, axis=None, keepdims=False):
    """Tangent of max/min over axis: the mean of the tangents at the extreme entries (ties share)."""
    import numpy

    if axis is None and not keepdims and type(dx) is numpy.ndarray and dx.shape == getattr(x, "shape", None):
        picked = dx[x == z]  # the tangents at the extreme entries
        return picked[0] if picked.size == 1 else numpy.sum(picked) / picked.size
    zz = z if keepdims or axis is None else numpy.expand_dims(z, axis)
    mask = x == zz
    count = numpy.sum(mask, axis=axis, keepdims=keepdims, dtype=numpy.result_type(dx))  # (a float32 tangent
    return numpy.sum(dx * mask, axis=axis, keepdims=keepdims) / count  # stays float32)
''',
    array_api='''def extreme_jvp(dx, x, z, axis=None, keepdims=False):
    """Tangent of max/min over axis: the mean of the tangents at the extreme entries (ties share)."""
    xp = namespace(dx, x, z)
    zz = z if keepdims or axis is None else xp.expand_dims(z, axis=axis)
    mask = xp.astype(x == zz, floating(xp, x))
    return xp.sum(dx * mask, axis=axis, keepdims=keepdims) / xp.sum(mask, axis=axis, keepdims=keepdims)
''',
    numba='''def extreme_jvp(dx, x, z, axis=None, keepdims=False):
    """The tangent of max or min (compiled code only: see the overload below)."""
    raise TypeError("extreme_jvp is called from code numba.njit compiles")


@numba.extending.overload(extreme_jvp, prefer_literal=True)
def _numba_extreme_jvp(dx, x, z, axis=None, keepdims=False):
    """The tangent of the max or min z of x: the mean of the tangents where x equals z, of all of x,
    or along one axis (a literal: z lacks it unless keepdims) of each line along it."""
    types = numba.core.types
    whole = isinstance(axis, (types.NoneType, types.Omitted)) or axis is None

    def impl(dx, x, z, axis=None, keepdims=False):
        mask = x == z
        return numpy.sum(picked(mask, dx)) / numpy.count_nonzero(mask)

'''
    + _EXTREME_ALONG
    + '''
    def along(dx, x, z, axis=None, keepdims=False):
        mask = x == (z if kept else numpy.expand_dims(z, at))
        out = reduce_along(picked(mask, dx), "sum", at, False) / reduce_along(mask, "sum", at, False)
        return numpy.expand_dims(out, at) if kept else out

    return along


@numba.njit
def picked(mask, dx):
    """numpy.where(mask, dx, 0.0) for dx of mask's shape or one that broadcasts to it, by a loop (Numba
    compiles its numpy.where with a number in about a second, a process's first); mask of any layout (x == z
    of a transposed x is one in Fortran order, which Numba's reshape refuses), each read in C order."""
    values = numpy.ascontiguousarray(numpy.broadcast_to(dx, mask.shape)).reshape(-1)
    flat = numpy.ascontiguousarray(mask).reshape(-1)
    out = numpy.zeros(flat.size, values.dtype)
    for k in range(flat.size):
        if flat[k]:
            out[k] = values[k]
    return out.reshape(mask.shape)
''',
    linear=("linear", (0,)),
    like=2,
)

EXTREME_VJP = Helper(
    python='''def extreme_vjp(g, x, z, axis=None, keepdims=False):
    """Cotangent of max/min over axis: g shared equally among the extreme entries."""
    import numpy

    if axis is None:
        mask = x == z
        if type(g) is numpy.ndarray and g.ndim == 0:  # its number: the same quotient, without a 0-d array's costs
            g = g[()]
        return mask * (g / numpy.count_nonzero(mask))
    expand = (lambda v: v) if keepdims else (lambda v: numpy.expand_dims(v, axis))
    mask = x == expand(z)
    return mask * expand(g) / numpy.sum(mask, axis=axis, keepdims=True)
''',
    array_api='''def extreme_vjp(g, x, z, axis=None, keepdims=False):
    """Cotangent of max/min over axis: g shared equally among the extreme entries."""
    xp = namespace(g, x, z)
    if axis is None:
        mask = xp.astype(x == z, floating(xp, x))
        return mask * (g / xp.sum(mask))
    expand = (lambda v: v) if keepdims else (lambda v: xp.expand_dims(v, axis=axis))
    mask = xp.astype(x == expand(z), floating(xp, x))
    return mask * expand(g) / xp.sum(mask, axis=axis, keepdims=True)
''',
    numba='''def extreme_vjp(g, x, z, axis=None, keepdims=False):
    """The cotangent of max or min (compiled code only: see the overload below)."""
    raise TypeError("extreme_vjp is called from code numba.njit compiles")


@numba.extending.overload(extreme_vjp, prefer_literal=True)
def _numba_extreme_vjp(g, x, z, axis=None, keepdims=False):
    """The cotangent of the max or min z of x: g shared among the entries equal to z, of all of x, or
    along one axis (a literal: z and g lack it unless keepdims) of each line along it, counted and
    shared by a loop over the lines (NumPy's operations made four arrays)."""
    types = numba.core.types
    whole = isinstance(axis, (types.NoneType, types.Omitted)) or axis is None

    def impl(g, x, z, axis=None, keepdims=False):
        mask = x == z
        return mask * (g / numpy.count_nonzero(mask))

'''
    + _EXTREME_ALONG
    + '''
    def along(g, x, z, axis=None, keepdims=False):
        zz = z if kept else numpy.expand_dims(z, at)
        mask = x == zz
        count = numpy.expand_dims(reduce_along(mask, "sum", at, False), at)
        return mask * (numpy.asarray(g) if kept else numpy.expand_dims(numpy.asarray(g), at)) / count

    lines = isinstance(g, types.Array) and g.ndim == z.ndim and isinstance(g.dtype, types.Float)
    if not lines or not isinstance(x.dtype, types.Float) or not isinstance(z.dtype, types.Float):
        return along
    before = " * ".join(f"x.shape[{d}]" for d in range(at)) or "1"
    after = " * ".join(f"x.shape[{d}]" for d in range(at + 1, x.ndim)) or "1"
    c = {k: k if kind.layout == "C" else f"numpy.ascontiguousarray({k})" for k, kind in zip("xzg", (x, z, g))}
    lines, _, line = _line_view(x, at, before, after)
    cast = "" if all(t.dtype == types.float64 for t in (g, x, z)) else ".astype(numpy.float64)"
    code = f"""def by_lines(g, x, z, axis=None, keepdims=False):
    if g.shape != z.shape:  # (a g that broadcasts: NumPy's operations)
        mask = x == {"z" if kept else "numpy.expand_dims(z, at)"}
        count = numpy.expand_dims(reduce_along(mask, "sum", at, False), at)
        shared = mask * {"numpy.asarray(g)" if kept else "numpy.expand_dims(numpy.asarray(g), at)"} / count
        return shared{cast}  # (float64, as the loop's: float32 operands too)
    n, shape = x.shape[at], ({before}, {after})
    xs, zs, gs = {c["x"]}.reshape({lines}), {c["z"]}.reshape(shape), {c["g"]}.reshape(shape)
    out = numpy.empty(x.shape, numpy.float64)
    outs = out.reshape({lines})
    for i in range(shape[0]):
        for j in range(shape[1]):
            best, share = zs[i, j], gs[i, j]
            count = 0
            for t in range(n):
                if {line.format("xs", "t")} == best:
                    count += 1
            # (mask * g) / count as NumPy computes it, each of its two values divided once a line (1.0 * g is
            # g; 0.0 * g is a zero of g's sign, or nan); no entry equal: 0 / 0
            hit, miss = (share / count, 0.0 * share / count) if count else (numpy.nan, numpy.nan)
            for t in range(n):
                {line.format("outs", "t")} = hit if {line.format("xs", "t")} == best else miss
    return out
"""
    scope = {"numpy": numpy, "at": at, "reduce_along": reduce_along}
    exec(code, scope)
    return scope["by_lines"]
''',
    linear=("linear", (0,)),
    # g shared among the extreme entries, whose adjoint is the mean over them (extreme_jvp); x and z pick them
    reverse=lambda u, g, x, z, *rest: [_h("extreme_jvp")(u, x, z, *rest), None, None] + [None] * len(rest),
    like=1,
)


def _reduction(name: str, jvp, vjp, **more) -> None:
    register(
        Primitive(
            name=f"numpy.{name}",
            family="reductions",
            signature=AXIS_KEEPDIMS,
            value=lambda ins, static, kit: kit.reduced(ins, static),
            jvp=jvp,
            vjp=vjp,
            slots=(True, False, False),
            **more,
        )
    )


def _extremes(x, axis, keepdims, rule):
    """np.ptp = max - min: a selection rule applied at the largest entries minus at the smallest."""
    return rule(np_("max")(x, axis, keepdims)) - rule(np_("min")(x, axis, keepdims))


for _name, _xp in (("max", "max"), ("min", "min"), ("amax", "max"), ("amin", "min")):
    _reduction(
        _name,
        lambda x, axis, keep, z, dx, da, dk: None if dx is None else _h("extreme_jvp")(dx, x, z, axis, keep),
        lambda x, axis, keep, z, g: (_h("extreme_vjp")(g, x, z, axis, keep), None, None),
        methods=(_name,) if _name in ("max", "min") else (),
        helpers={"extreme_jvp": EXTREME_JVP, "extreme_vjp": EXTREME_VJP},
        array_api=f"xp.{_xp}",
    )
_reduction(
    "prod",
    lambda x, axis, keep, z, dx, da, dk: (
        None if dx is None else np_("sum")(_h("prod_vjp")(Num(1.0), x, axis, keep) * dx, axis, keep)
    ),
    lambda x, axis, keep, z, g: (_h("prod_vjp")(g, x, axis, keep), None, None),
    methods=("prod",),
    helpers={"prod_vjp": PROD_VJP, "prod_vjp_jvp": PROD_VJP_JVP},
    array_api="xp.prod",
)
_reduction(
    "ptp",
    lambda x, axis, keep, z, dx, da, dk: _extremes(x, axis, keep, lambda e: _h("extreme_jvp")(dx, x, e, axis, keep)),
    lambda x, axis, keep, z, g: (
        _extremes(x, axis, keep, lambda e: _h("extreme_vjp")(g, x, e, axis, keep)),
        None,
        None,
    ),
    helpers={"extreme_jvp": EXTREME_JVP, "extreme_vjp": EXTREME_VJP},
)
