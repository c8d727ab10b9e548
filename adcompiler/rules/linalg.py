"""Derivative rules for np.linalg's decompositions and matrix functions, one entry per primitive.

A decomposition returning several arrays (``slogdet``, ``eigh``, ``svd``, ``qr``) is lowered to one
call computing it (the *raw* primitive, ``numpy.linalg.eigh``: no derivative) and one primitive per
array it returns, ``numpy.linalg.eigh[i]`` of the matrix and the raw value (printed ``raw[i]``), so
each array has a rule of its own and the decomposition runs once.  Every rule is written with
primitives that have rules (matmul, solve, tril, where, ...), so the derivative code can itself be
differentiated (second order); and with solves, never an explicit inverse.  ``eigh`` and
``cholesky`` read one triangle of the matrix, as NumPy does: their derivative is that of a function
of that triangle (for a symmetric matrix, the usual one).
"""

from __future__ import annotations

from ..ir.expr import Call, IfExp, Num, Slice, Subscript, Tuple, fn
from .primitive import Part, Primitive, Refusal, Variant, register

np_ = lambda name: fn("numpy." + name)  # noqa: E731
solve, tril, triu = (np_(n) for n in ("linalg.solve", "tril", "triu"))
npsum, expand, npwhere = np_("sum"), np_("expand_dims"), np_("where")
LAST_TWO = Tuple((Num(-2), Num(-1)))


def _check(x, kind, *others):
    """x, or a ValueError where the derivative is not defined (runtime helper ``linalg_check``)."""
    return Call("@linalg_check", (x, Num(kind)) + others)


def mT(a):
    """The matrices of a stack transposed (the last two axes swapped)."""
    return np_("swapaxes")(a, Num(-1), Num(-2))


def _n(a, axis=-1):
    return Subscript(Call("numpy.shape", (a,)), Num(axis))


def _eye(a, axis=-1):
    """The identity matrix of the size of ``a``'s axis."""
    return Call("numpy.eye", (_n(a, axis),))


def _part(raw, i):
    return Subscript(raw, Num(i))


def _static(arg, default=None):
    """The value of a constant argument (lowering refuses others: ``STATIC``)."""
    return arg.value if isinstance(arg, Num) else default


def _triangle(d, uplo):
    """The symmetric matrix whose lower (``"L"``) or upper triangle is d's: what eigh and cholesky read."""
    if uplo == "U":
        return triu(d) + mT(triu(d, Num(1)))
    return tril(d) + mT(tril(d, Num(-1)))


def _triangle_adjoint(m, uplo):
    """The adjoint of ``_triangle``: m's triangle plus its transpose's strict triangle."""
    if uplo == "U":
        return triu(m) + triu(mT(m), Num(1))
    return tril(m) + tril(mT(m), Num(-1))


def _gaps(w, eye):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (distinct values)."""
    d = expand(w, Num(-2)) - expand(w, Num(-1))
    return (1.0 - eye) / (d + eye)


# --- slogdet: d log|det A| = tr(A^-1 dA) (Giles 2008, sec. 2.2), by a solve; the sign is constant.
def _logdet_tangent(a, da):
    return Call("numpy.trace", (solve(a, da), Num(0), Num(-2), Num(-1)))


def _logdet_adjoint(a, g):
    return expand(g, LAST_TWO) * solve(mT(a), Call("numpy.zeros_like", (a,)) + _eye(a))  # g A^-T


# --- cholesky A = L L^T: dL = L Phi(L^-1 dA L^-T), Phi the lower triangle with half its diagonal;
# adjoint L^-T Phi(L^T G) L^-1 (Murray 2016, "Differentiation of the Cholesky decomposition", eqs. 8
# and 10), both by triangular systems solved with solve.
def _phi(x, eye):
    return tril(x) - 0.5 * (x * eye)


def _cholesky_tangent(l, da):
    s = _triangle(da, "L")
    return l @ _phi(solve(l, mT(solve(l, s))), _eye(l))


def _cholesky_adjoint(l, g):
    lt = mT(l)
    p = _phi(lt @ g, _eye(l))
    m = mT(solve(lt, mT(solve(lt, p))))  # L^-T P L^-1
    return _triangle_adjoint(m, "L")


# --- eigh A = V diag(w) V^T, distinct eigenvalues: dw = diag(V^T dA V), dV = V (F o V^T dA V);
# adjoint V (diag(gw) + F o V^T gV) V^T (Giles 2008, sec. 3.1; Seeger et al. 2017, sec. 4).
def _eigh_tangent(i, a, uplo, raw, da):
    w, v = _part(raw, 0), _part(raw, 1)
    sv = _triangle(da, _static(uplo, "L")) @ v
    if i == 0:
        return npsum(v * sv, Num(-2))
    return v @ (_gaps(w, _eye(a)) * (mT(v) @ sv))


def _eigh_adjoint(i, a, uplo, raw, g):
    w, v = _part(raw, 0), _part(raw, 1)
    inner = (v * expand(g, Num(-2))) if i == 0 else v @ (_gaps(w, _eye(a)) * (mT(v) @ g))
    return _triangle_adjoint(inner @ mT(v), _static(uplo, "L"))


# --- svd A = U diag(s) Vh (reduced: U m x k, Vh k x n), distinct nonzero singular values; with
# dP = U^T dA V and F[i, j] = 1 / (s_j^2 - s_i^2): ds = diag(dP),
# dU = U (F o (dP S + S dP^T)) + (I - U U^T) dA V S^-1, dV likewise with A^T; the adjoint is
# Townsend 2016, "Differentiating the singular value decomposition", eq. 36 (one term per output).
def _svd_parts(raw, i):
    """(U, s, Vh, F) for the derivative of part ``i`` (0: U, 2: Vh): U's first k columns and Vh's first
    k rows (the reduced svd's), part ``i`` whole checked to be no more than those (of a full svd of a
    matrix that is not square, the extra columns of U, or rows of Vh, have no unique derivative; the
    other part's extra ones do not enter part i's)."""
    u, vh, s = _singular_vectors(raw)
    checked = _check(_part(raw, 0), "svd", s, vh) if i == 0 else _check(u, "svd", s, _part(raw, 2))
    return checked, s, vh, _gaps(s * s, _eye(s))


def _singular_vectors(raw):
    """(U's first k columns, Vh's first k rows, s), k = len(s): all of them for a reduced svd; of a full
    one (full_matrices=True) of a matrix that is not square, those the singular values have (the others
    span the complement, a basis of which has no unique derivative, but they do not enter s's)."""
    k = _n(_part(raw, 1))
    columns, rows = Tuple((Num(Ellipsis), Slice(None, k))), Tuple((Num(Ellipsis), Slice(None, k), Slice(None, None)))
    return Subscript(_part(raw, 0), columns), Subscript(_part(raw, 2), rows), _part(raw, 1)


def _svd_tangent(i, a, raw, da):
    if i == 1:
        u, vh, _ = _singular_vectors(raw)
        return npsum(u * (da @ mT(vh)), Num(-2))
    u, s, vh, f = _svd_parts(raw, i)
    row, col = expand(s, Num(-2)), expand(s, Num(-1))
    dp = mT(u) @ (da @ mT(vh))
    if i == 0:
        return u @ (f * (dp * row + col * mT(dp))) + (da @ mT(vh) - u @ dp) / row
    return mT(f * (col * dp + mT(dp) * row)) @ vh + (mT(u) @ da - dp @ vh) / col


def _svd_adjoint(i, a, raw, g):
    if i == 1:
        u, vh, _ = _singular_vectors(raw)
        return (u * expand(g, Num(-2))) @ vh
    u, s, vh, f = _svd_parts(raw, i)
    row, col = expand(s, Num(-2)), expand(s, Num(-1))
    if i == 0:
        j = f * (mT(u) @ g)
        return (u @ ((j + mT(j)) * row) + (g - u @ (mT(u) @ g)) / row) @ vh
    k = f * (vh @ mT(g))
    return u @ ((col * (k + mT(k))) @ vh + (g - (g @ mT(vh)) @ vh) / col)


# --- qr A = Q R (reduced, m >= n): with B = dA R^-1, X = Q^T B and Omega = tril(X, -1) - its
# transpose: dR = (X - Omega) R, dQ = B - Q (X - Omega) (Walter & Lehmann 2018, "On the algorithmic
# differentiation of matrix factorizations", sec. 3.3); adjoint (gQ + Q copyltu(M)) R^-T with
# M = R gR^T - gQ^T Q (Liao et al. 2019, "Differentiable programming tensor networks", eq. 9).
def _right_solve(b, r):
    """b R^-1, by a solve."""
    return mT(solve(mT(r), mT(b)))


def _qr_tangent(i, a, raw, da):
    q, r = _part(raw, 0), _check(_part(raw, 1), "qr")
    b = _right_solve(da, r)
    x = mT(q) @ b
    upper = x - tril(x, Num(-1)) + mT(tril(x, Num(-1)))  # X - Omega
    return b - q @ upper if i == 0 else upper @ r


def _qr_adjoint(i, a, raw, g):
    q, r = _part(raw, 0), _check(_part(raw, 1), "qr")
    m = g @ mT(r) if i == 1 else -(mT(q) @ g)
    copied = triu(m) + tril(mT(m), Num(-1))
    head = q @ copied if i == 1 else g + q @ copied
    return mT(solve(r, mT(head)))  # head R^-T


# --- pinv of a full-rank matrix: dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P
# (Golub & Pereyra 1973, "The differentiation of pseudo-inverses", thm. 4.3), and its transpose.
def _pinv_tangent(a, p, da):
    y, z = p @ (mT(p) @ mT(da)), (mT(da) @ mT(p)) @ p
    return -(p @ (da @ p)) + (y - (y @ a) @ p) + (z - p @ (a @ z))


def _pinv_adjoint(a, p, g):
    y, z = mT(g) @ (p @ mT(p)), (mT(p) @ p) @ mT(g)
    return -(mT(p) @ (g @ mT(p))) + (y - a @ (p @ y)) + (z - (z @ p) @ a)


# --- lstsq(A, b)[0] of a full-rank A: x = P b with P = pinv(A), so dx = dP b + P db with dP as above;
# the adjoint is pinv's with gP = g b^T (an outer product of columns: b and g may be vectors), and P^T g.
# Only the solution is differentiated (the residuals and singular values are refused where used).
def _columns(v):
    return np_("reshape")(v, Tuple((_n(v, 0), Num(-1))))


def _lstsq_pinv(a, raw):
    """pinv(A), once A is known to have full rank (the rank lstsq found, raw[2])."""
    return _check(np_("linalg.pinv")(a), "lstsq", _part(raw, 2), a)


def _lstsq_tangent(a, b, raw, da, db):
    x, p = _part(raw, 0), _lstsq_pinv(a, raw)
    terms = [p @ db] if db is not None else []
    if da is not None:  # dP b, with P b = x
        w = mT(da) @ (mT(p) @ x)
        terms.append(-(p @ (da @ x)) + p @ (mT(p) @ (mT(da) @ (b - a @ x))) + (w - p @ (a @ w)))
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


def _lstsq_adjoint(a, b, raw, g):
    p = _lstsq_pinv(a, raw)
    return (_pinv_adjoint(a, p, _columns(g) @ mT(_columns(b))), mT(p) @ g, None, None)


# --- matrix_power(A, n), n a constant: d A^n = sum_k A^k dA A^(n-1-k); for n < 0, of B = A^-1
# with dB = -B dA B (Giles 2008, sec. 2.2).
def _power(a, k):
    return None if k == 0 else (a if k == 1 else np_("linalg.matrix_power")(a, Num(k)))


def _times(*factors):
    out = None
    for f in factors:
        if f is not None:
            out = f if out is None else out @ f
    return out


def _power_tangent(a, n, z, da):
    k = _static(n, 0)
    if k == 0:
        return 0.0 * da
    b, db = (a, da) if k > 0 else (np_("linalg.inv")(a), None)
    if k < 0:
        db = -(b @ (da @ b))
    terms = [_times(_power(b, j), db, _power(b, abs(k) - 1 - j)) for j in range(abs(k))]
    return terms[0] if len(terms) == 1 else sum(terms[1:], terms[0])


def _power_adjoint(a, n, z, g):
    k = _static(n, 0)
    if k == 0:
        return (0.0 * g, None)
    b = a if k > 0 else np_("linalg.inv")(a)
    bt = mT(b)
    terms = [_times(_power(bt, j), g, _power(bt, abs(k) - 1 - j)) for j in range(abs(k))]
    gb = terms[0] if len(terms) == 1 else sum(terms[1:], terms[0])
    return (gb if k > 0 else -(bt @ (gb @ bt)), None)


# --- norm(x, ord, axis, keepdims).  Vector norms (ord None or 2: x / |x|, 0 at the origin; 1: sign x;
# +-inf: the largest or smallest |x_i|, ties sharing; p: |x|^(p-1) sign x / |x|_p^(p-1)); matrix norms
# of the last two axes once moved there ('fro' as a vector 2-norm; 'nuc': U V^T; 2 and -2: the largest
# or smallest singular value's u v^T, Giles 2008, sec. 3.2; 1, -1, inf, -inf: the extreme column or
# row sum of |x|).
def _nonzero(z):
    return npwhere(Call("numpy.equal", (z, Num(0.0))), 1.0, z)


def _nonzero_number(z, axis, keepdims):
    """``_nonzero(z)`` of a norm that is one number (no axis, no kept dimensions): ``z if z else 1.0``,
    as a number (``numpy.where`` of a number makes a 0-d array, at about 5 us a call: the particle
    field's Euler steps take two norms' derivatives each)."""
    if isinstance(axis, Num) and axis.value is None and _static(keepdims) is False:
        return IfExp(z, z, Num(1.0))
    return _nonzero(z)


def _vector_norm(p, x, axis, keepdims, z, t=None, g=None):
    """The tangent (given t) or the cotangent (given g) of a vector norm of x along axis."""
    x = np_("asarray")(x)
    inf = isinstance(p, float) and abs(p) == float("inf")
    if p is None or p in (2, "fro"):
        scale = x
    elif p == 0:
        scale = 0.0 * x
    elif inf or p == 1:
        scale = np_("sign")(x)
    else:
        scale = np_("abs")(x) ** Num(p - 1) * np_("sign")(x)
    zp = 1.0 if inf or p in (0, 1) else _nonzero_number(z, axis, keepdims) ** Num(1 if p in (None, 2, "fro") else p - 1)
    if inf:
        ax = np_("abs")(x)
        if t is not None:
            return Call("@extreme_jvp", (scale * t, ax, z, axis, keepdims))
        return scale * Call("@extreme_vjp", (g, ax, z, axis, keepdims))
    if t is not None:
        return npsum(scale * t, axis, keepdims) / zp
    spread = g / zp  # broadcast against scale (x's shape) as it is, unless the norm dropped an axis
    if not (isinstance(axis, Num) and axis.value is None or isinstance(keepdims, Num) and keepdims.value is True):
        spread = Call("@unreduce", (spread, x, axis, keepdims))
    return scale * spread


def _matrix_norm(p, x, axis, keepdims, z, t=None, g=None):
    """The tangent or cotangent of a matrix norm of x over the two axes ``axis`` (None: a matrix)."""
    axes = _static(axis) or (-2, -1)
    if p in (None, "fro"):
        return _vector_norm(p, x, axis, keepdims, z, t, g)
    move = (lambda a: a) if axes == (-2, -1) else (lambda a: np_("moveaxis")(a, Tuple(tuple(map(Num, axes))), LAST_TWO))
    m = move(x)
    if p in ("nuc", 2, -2):
        svd = np_("linalg.svd")(m, Num(False))
        u, vh = _part(svd, 0), _part(svd, 2)
        if p != "nuc":  # only the largest (first) or smallest (last) singular value's vectors
            u = u * Subscript(Call("numpy.eye", (_n(_part(svd, 1)),)), Num(0 if p == 2 else -1))
        if t is not None:
            out = npsum(u * (move(t) @ mT(vh)), LAST_TWO)
        else:
            out = expand(_squeezed(g, axes, keepdims), LAST_TWO) * (u @ vh)
    else:
        k = -2 if p in (1, -1) else -1  # column sums, or row sums
        sums = npsum(np_("abs")(m), Num(k))
        zb = Call("numpy.max" if p > 0 else "numpy.min", (sums, Num(-1)))
        if t is not None:
            out = Call("@extreme_jvp", (npsum(np_("sign")(m) * move(t), Num(k)), sums, zb, Num(-1), Num(False)))
        else:
            spread = Call("@extreme_vjp", (_squeezed(g, axes, keepdims), sums, zb, Num(-1), Num(False)))
            out = np_("sign")(m) * expand(spread, Num(k))
    if t is not None:
        return expand(out, Tuple(tuple(map(Num, axes)))) if _static(keepdims) else out
    return out if axes == (-2, -1) else np_("moveaxis")(out, LAST_TWO, Tuple(tuple(map(Num, axes))))


def _squeezed(g, axes, keepdims):
    return np_("squeeze")(g, Tuple(tuple(map(Num, axes)))) if _static(keepdims) else g


NONE3 = (None, None, None)


def _parted(value_k):
    """The abstract value of a decomposition's part of ndim ``ndim(a) - k`` (a number for 0)."""
    return lambda ins, static, kit: kit.matrix_part(ins, static, value_k)


def _decomposition(name: str, signature: tuple, parts: tuple, **more) -> None:
    """Register ``np.linalg.<name>``, computed once (its value is no array: a tuple of them), and its parts."""
    register(
        Primitive(
            name=f"numpy.linalg.{name}",
            family="linalg",
            signature=signature,
            value=lambda ins, static, kit: kit.STATIC,
            parts=parts,
            **more,
        )
    )


# slogdet: the sign (constant: no derivative) and log|det A|
_decomposition(
    "slogdet",
    (("a", None),),
    (
        Part(_parted(2)),
        Part(
            _parted(2),
            lambda a, raw, z, da, dr: _logdet_tangent(a, da),
            lambda a, raw, z, g: (_logdet_adjoint(a, g), None),
            (True, False),
        ),
    ),
)
# eigh: the eigenvalues and the eigenvectors, each of (a, UPLO, raw)
_decomposition(
    "eigh",
    (("a", None), ("UPLO", Num("L"))),
    tuple(
        Part(
            _parted(1 - i),
            lambda a, u, raw, z, da, du, dr, i=i: _eigh_tangent(i, a, u, raw, da),
            lambda a, u, raw, z, g, i=i: (_eigh_adjoint(i, a, u, raw, g), None, None),
            (True, False, False),
        )
        for i in range(2)
    ),
    static={"UPLO": ("L", "U")},
)
# eigvalsh: eigh's eigenvalues (eigh's rule needs the vectors anyway)
register(
    Primitive(
        name="numpy.linalg.eigvalsh",
        family="linalg",
        signature=(("a", None), ("UPLO", Num("L"))),
        value=None,
        static={"UPLO": ("L", "U")},
        expand=lambda build, a, uplo: build.part("numpy.linalg.eigh", [a, uplo], 0),
    )
)
# svd: U, s, Vh, each of (a, raw) (lowering computes the vectors whatever compute_uv says)
_decomposition(
    "svd",
    (("a", None), ("full_matrices", Num(True)), ("compute_uv", Num(True))),
    tuple(
        Part(
            _parted(i % 2),
            lambda a, raw, z, da, dr, i=i: _svd_tangent(i, a, raw, da),
            lambda a, raw, z, g, i=i: (_svd_adjoint(i, a, raw, g), None),
            (True, False),
        )
        for i in range(3)
    ),
    static={"full_matrices": (True, False), "compute_uv": (True, False)},
)
# qr: Q and R, each of (a, raw)
_decomposition(
    "qr",
    (("a", None), ("mode", Num("reduced"))),
    tuple(
        Part(
            _parted(0),
            lambda a, raw, z, da, dr, i=i: _qr_tangent(i, a, raw, da),
            lambda a, raw, z, g, i=i: (_qr_adjoint(i, a, raw, g), None),
            (True, False),
        )
        for i in range(2)
    ),
    static={"mode": ("reduced", "r")},
)
# lstsq: the solution (differentiated), the residuals and singular values (refused where a derivative needs
# them), the rank (an int)
_decomposition(
    "lstsq",
    (("a", None), ("b", None), ("rcond", Num(None))),
    (
        Part(
            lambda ins, static, kit: kit.array_of(kit.ndim_of(ins[1]), kit.float_dtype(ins[:2])),
            lambda a, b, rc, raw, z, da, db, drc, dr: _lstsq_tangent(a, b, raw, da, db),
            lambda a, b, rc, raw, z, g: _lstsq_adjoint(a, b, raw, g),
            (True, True, False, False),
        ),
        Part(lambda ins, static, kit: kit.array_of(1, kit.float_dtype(ins[:2])), refused=True),
        Part(lambda ins, static, kit: kit.Num("int")),
        Part(lambda ins, static, kit: kit.array_of(1, kit.float_dtype(ins[:1])), refused=True),
    ),
)

# matrix_power(a, n), n a constant
register(
    Primitive(
        name="numpy.linalg.matrix_power",
        family="linalg",
        signature=(("a", None), ("n", None)),
        value=lambda ins, static, kit: kit.array_of(kit.ndim_of(ins[0]), kit.result_dtype(ins[:1])),
        jvp=lambda a, n, z, da, dn: _power_tangent(a, n, z, da),
        vjp=lambda a, n, z, g: _power_adjoint(a, n, z, g),
        slots=(True, False),
        static={"n": None},  # any int
    )
)


def _norm_value(ins, static, kit):
    """np.linalg.norm(x, ord, axis, keepdims): over every axis, one (a vector norm) or two (a matrix norm)."""
    nd, dtype = kit.ndim_of(ins[0]), kit.float_dtype(ins[:1])
    axis = static[2] if len(static) > 2 else None
    keepdims = static[3] if len(static) > 3 else False
    if keepdims is True:
        return kit.array_of(nd, dtype)
    if axis is None:
        return kit.scalar(dtype)
    if axis is kit.UNKNOWN or keepdims is not False:
        return kit.Arr(None, dtype)
    left = kit.minus(nd, len(axis) if isinstance(axis, tuple) else 1)
    return kit.scalar(dtype) if left == 0 else kit.array_of(left, dtype)


def _norm_kind(ins, static, kit):
    """ "matrix" where ord means a matrix norm: of two axes, or of a matrix with no axis given."""
    if kit.UNKNOWN in static[1:3]:
        return None
    ord_, axis = static[1], static[2]
    two_axes = isinstance(axis, tuple) and len(axis) == 2
    if axis is None and ord_ is not None and kit.ndim_of(ins[0]) is None:  # a vector's norm or a matrix's
        if ord_ in ("fro", "nuc"):  # (a matrix's only)
            return "matrix"
        return Refusal(
            f"np.linalg.norm(x, ord={ord_!r}) of an array whose number of dimensions is not known here "
            "(a vector's norm or a matrix's, whose derivatives differ)",
            "give the axes: axis=0 for a vector's norm, axis=(0, 1) for a matrix's",
        )
    return "matrix" if two_axes or axis is None and ord_ is not None and kit.ndim_of(ins[0]) == 2 else None


# norm(x, ord, axis, keepdims): a vector norm, or (the variant "matrix") a matrix norm
register(
    Primitive(
        name="numpy.linalg.norm",
        family="linalg",
        signature=(("x", None), ("ord", Num(None)), ("axis", Num(None)), ("keepdims", Num(False))),
        value=_norm_value,
        jvp=lambda x, p, axis, keep, z, dx, dp, da, dk: _vector_norm(_static(p), x, axis, keep, z, t=dx),
        vjp=lambda x, p, axis, keep, z, g: (_vector_norm(_static(p), x, axis, keep, z, g=g),) + NONE3,
        slots=(True, False, False, False),
        static={"ord": None, "axis": None, "keepdims": (True, False)},
        variants={
            "matrix": Variant(
                lambda x, p, axis, keep, z, dx, dp, da, dk: _matrix_norm(_static(p), x, axis, keep, z, t=dx),
                lambda x, p, axis, keep, z, g: (_matrix_norm(_static(p), x, axis, keep, z, g=g),) + NONE3,
                (True, False, False, False),
            )
        },
        variant=_norm_kind,
    )
)


# --- solve A z = b: A dz = db - dA z, solved (not inverted); gb = A^-T g by a solve, gA = -gb z^T.  b a matrix
# (a stack of them), or (the variants) a vector: for one matrix A, gA an outer product; for a stack of matrices
# and one vector b (NumPy 2: b for each), column by column.
def _solve_tangent(a, z, da, db):
    rhs = [t for t in (db, -(da @ z) if da is not None else None) if t is not None]
    return solve(a, rhs[0] if len(rhs) == 1 else rhs[0] + rhs[1])


def _solve_adjoint(a, z, g, outer):
    gb = solve(mT(a), g)
    return (outer(gb), gb)


def _column(v):
    """``v[..., None]``: vectors as one-column matrices."""
    return Subscript(v, Tuple((Num(Ellipsis), Num(None))))


def _first_column(m):
    """``m[..., 0]``: one-column matrices as vectors."""
    return Subscript(m, Tuple((Num(Ellipsis), Num(0))))


def _stacked_solve_tangent(a, z, da, db):
    """A_k z_k = b for each matrix A_k of a stack: A_k dz_k = db - dA_k z_k, solved column by column."""
    minus = -_first_column(da @ _column(z)) if da is not None else None
    rhs = [t for t in (db, minus) if t is not None]
    return _first_column(solve(a, _column(rhs[0] if len(rhs) == 1 else rhs[0] + rhs[1])))


def _stacked_solve_adjoint(a, b, z, g):
    """gb_k = A_k^-T g_k, summed over the stack into b's shape; gA_k = -gb_k z_k^T."""
    gb = _first_column(solve(mT(a), _column(g)))
    rows = Subscript(z, Tuple((Num(Ellipsis), Num(None), Slice(None, None))))
    return (-(_column(gb) * rows), Call("@unbroadcast", (gb, b)))


def _solved_value(ins, static, kit):
    """b's ndim, or for a stack of matrices and one vector b, a vector per matrix."""
    a, b = kit.ndim_of(ins[0]), kit.ndim_of(ins[1])
    return kit.array_of(a - 1 if b == 1 and a is not None and a > 2 else b, kit.float_dtype(ins[:2]))


def _solve_kind(ins, static, kit):
    if not (isinstance(ins[1], kit.Arr) and ins[1].ndim == 1):
        return None
    return "stacked" if isinstance(ins[0], kit.Arr) and ins[0].ndim is not None and ins[0].ndim > 2 else "vector"


register(
    Primitive(
        name="numpy.linalg.solve",
        family="linalg",
        signature=(("a", None), ("b", None)),
        value=_solved_value,
        jvp=lambda a, b, z, da, db: _solve_tangent(a, z, da, db),
        vjp=lambda a, b, z, g: _solve_adjoint(a, z, g, lambda gb: -(gb @ mT(z))),
        slots=(True, True),
        variants={
            "vector": Variant(
                lambda a, b, z, da, db: _solve_tangent(a, z, da, db),
                lambda a, b, z, g: _solve_adjoint(a, z, g, lambda gb: -np_("outer")(gb, z)),
                (True, True),
            ),
            "stacked": Variant(
                lambda a, b, z, da, db: _stacked_solve_tangent(a, z, da, db),
                lambda a, b, z, g: _stacked_solve_adjoint(a, b, z, g),
                (True, True),
            ),
        },
        variant=_solve_kind,
    )
)


# --- np.linalg.inv, det, cholesky and pinv: functions of one matrix (or a stack of them), one record each
# (rules.primitive), written by ``_of_a_matrix``.
def _of_a_matrix(name: str, value, jvp, vjp) -> None:
    """Register ``np.linalg.<name>(a)``: its value ``value(ins, static, kit)``, its rules ``jvp(a, z, da)`` and
    ``vjp(a, z, g)`` (the cotangent of a alone, not in a tuple)."""
    register(
        Primitive(
            name=f"numpy.linalg.{name}",
            family="linalg",
            signature=(("a", None),),
            value=value,
            jvp=jvp,
            vjp=lambda a, z, g: (vjp(a, z, g),),
            slots=(True,),
        )
    )


def _inverse_value(ins, static, kit):
    """An array of a's ndim, of a floating dtype."""
    return kit.array_of(kit.ndim_of(ins[0]), kit.float_dtype(ins[:1]))


def _matrix_value(ins, static, kit):
    """A matrix function's result: a's ndim (a number for a number), of a floating dtype."""
    return kit.matrix_part(ins, static, 0)


# inv: Z = A^-1, dZ = -Z dA Z, and the cotangent of A is -Z^T G Z^T.
_of_a_matrix("inv", _inverse_value, lambda a, z, da: -(z @ (da @ z)), lambda a, z, g: -(mT(z) @ (g @ mT(z))))
# det: z = det A, dz = z tr(A^-1 dA) = z sum(A^-T * dA) over each matrix, and the cotangent of A is g z A^-T.
_of_a_matrix(
    "det",
    lambda ins, static, kit: kit.matrices_reduced([_inverse_value(ins, static, kit)], static),
    lambda a, z, da: z * npsum(mT(np_("linalg.inv")(a)) * da, LAST_TWO),
    lambda a, z, g: expand(g * z, LAST_TWO) * mT(np_("linalg.inv")(a)),
)
# cholesky: L L^T = A (A's lower triangle read, as NumPy reads it); pinv: P = A^+ (their rules above).
_of_a_matrix(
    "cholesky", _matrix_value, lambda a, z, da: _cholesky_tangent(z, da), lambda a, z, g: _cholesky_adjoint(z, g)
)
_of_a_matrix("pinv", _matrix_value, lambda a, z, da: _pinv_tangent(a, z, da), lambda a, z, g: _pinv_adjoint(a, z, g))
