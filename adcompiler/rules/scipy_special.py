"""Derivative rules for ``scipy.special`` (issue 37): the functions users reach for, each a line of
partial derivatives written with NumPy and SciPy, given to the function with ``defrule`` the first time
differentiated code calls a SciPy function (SciPy is optional: nothing is imported before).

``multigammaln(a, d)``'s rule is in ``a`` (``d``, the dimension, is a whole number).  The rules take arrays or numbers, broadcast as the function does; a cotangent is summed back to its
argument's shape.  ``logsumexp``, ``softmax`` and ``log_softmax`` get ``axis`` (and ``b``, ``keepdims``) by
position: a keyword argument of a function with rules is put in its place by lowering.  These rules are
functions of this module, so derivative code that calls them can be differentiated again (a Hessian
of a function of ``expit`` is forward mode over the rule's own code).
"""

from __future__ import annotations

import math

import numpy as np

_done = False
# constants as Python floats (a NumPy float64 times a float32 array is float64: a float32 tangent kept float32)
_ROOT_PI = math.sqrt(math.pi)
_TWO_BY_ROOT_PI = 2.0 / _ROOT_PI
_ROOT_TWO_PI = math.sqrt(2.0 * math.pi)
_digamma = None  # scipy.special.digamma, once SciPy is imported (register)


def _sum_to(g, x):
    """``g`` summed down to the shape of ``x`` (the adjoint of broadcasting ``x`` up to ``g``'s shape)."""
    shape = np.shape(x)
    g = np.asarray(g, dtype=float)
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    return g if shape else float(g)


def _unary(fn, partial):
    """``fn(x)`` given the jvp ``partial(x) * dx`` and the vjp ``(partial(x) * ct,)``."""
    from .custom import defrule

    defrule(fn, jvp=lambda x, dx: partial(x) * dx, vjp=lambda x, ct: (_sum_to(partial(x) * ct, x),))


def _binary(fn, d0, d1):
    """``fn(a, b)`` given its partial derivatives ``d0(a, b)`` and ``d1(a, b)``."""
    from .custom import defrule

    defrule(
        fn,
        jvp=lambda a, b, da, db: d0(a, b) * da + d1(a, b) * db,
        vjp=lambda a, b, ct: (_sum_to(d0(a, b) * ct, a), _sum_to(d1(a, b) * ct, b)),
    )


def register() -> None:
    """Give the functions of ``scipy.special`` below their rules (once; SciPy imported now)."""
    global _done, _digamma
    if _done:
        return
    _done = True
    import scipy.special as sp

    _digamma = sp.digamma

    def expit_partial(x):
        s = sp.expit(x)
        return s * (1.0 - s)

    _unary(sp.expit, expit_partial)
    _unary(sp.logit, lambda x: 1.0 / (x * (1.0 - x)))
    _unary(sp.erf, lambda x: _TWO_BY_ROOT_PI * np.exp(-(np.asarray(x) ** 2)))
    _unary(sp.erfc, lambda x: -_TWO_BY_ROOT_PI * np.exp(-(np.asarray(x) ** 2)))
    _unary(sp.erfinv, lambda x: _ROOT_PI / 2.0 * np.exp(sp.erfinv(x) ** 2))
    _unary(sp.gammaln, sp.digamma)
    _unary(sp.digamma, lambda x: sp.polygamma(1, x))
    _unary(sp.psi, lambda x: sp.polygamma(1, x))
    _unary(sp.log_ndtr, lambda x: np.exp(-(np.asarray(x) ** 2) / 2.0 - sp.log_ndtr(x)) / _ROOT_TWO_PI)
    _unary(sp.ndtr, lambda x: np.exp(-(np.asarray(x) ** 2) / 2.0) / _ROOT_TWO_PI)
    _unary(sp.ndtri, lambda p: _ROOT_TWO_PI * np.exp(sp.ndtri(p) ** 2 / 2.0))
    _unary(sp.i0, sp.i1)

    def i1_partial(x):
        u = _nonzero(x)
        return np.where(u == x, sp.i0(u) - sp.i1(u) / u, 0.5)  # (I1'(0) = 1/2)

    _unary(sp.i1, i1_partial)

    from .custom import defrule

    def polygamma_jvp(n, x, dn, dx):
        return sp.polygamma(n + 1, x) * dx  # (n: an integer, no derivative)

    def polygamma_vjp(n, x, ct):
        return (None, _sum_to(sp.polygamma(n + 1, x) * ct, x))

    defrule(sp.polygamma, jvp=polygamma_jvp, vjp=polygamma_vjp)
    defrule(sp.multigammaln, jvp=multigammaln_jvp, vjp=multigammaln_vjp)
    _unary(sp.gamma, lambda x: sp.gamma(x) * sp.digamma(x))
    _unary(sp.entr, lambda x: -np.log(x) - 1.0)  # -x log x (x > 0)
    if hasattr(sp, "log_expit"):  # (SciPy 1.8)
        _unary(sp.log_expit, lambda x: sp.expit(-np.asarray(x)))
    _binary(sp.betaln, lambda a, b: sp.digamma(a) - sp.digamma(a + b), lambda a, b: sp.digamma(b) - sp.digamma(a + b))
    _binary(sp.rel_entr, lambda x, y: np.log(x / y) + 1.0, lambda x, y: -x / y)  # x log(x / y) (x, y > 0)
    _binary(sp.xlogy, lambda x, y: sp.xlogy(np.ones_like(x) * 1.0, y), lambda x, y: x / y)
    _binary(sp.xlog1py, lambda x, y: sp.xlog1py(np.ones_like(x) * 1.0, y), lambda x, y: x / (1.0 + y))
    _elementary(sp)
    _bessel(sp)
    _incomplete(sp)

    # logsumexp, softmax, log_softmax: called as f(x) or f(x, axis); a jvp rule gets (x, dx) or
    # (x, axis, dx, daxis), a vjp rule (x, ct) or (x, axis, ct)

    def logsumexp_jvp(a, *rest):
        half = (len(rest) + 1) // 2  # (a, axis, b, keepdims, da, daxis, db, dkeepdims): each argument's tangent
        (axis, b, keepdims), (da, _, db, _) = _lse_args(rest[: half - 1]), _padded(rest[half - 1 :], 4)
        w = _lse_weights(a, axis, b)
        dz = (0.0 if da is None else (1.0 if b is None else b) * da) + (0.0 if db is None else db)
        return np.sum(w * dz, axis=axis, keepdims=keepdims)

    def logsumexp_vjp(a, *rest):
        (axis, b, keepdims), ct = _lse_args(rest[:-1]), rest[-1]
        w = _lse_weights(a, axis, b)  # (of the shape a and b broadcast to)
        g = w * (ct if keepdims else _expanded(ct, w, axis))
        parts = (g if b is None else _sum_to(g * b, a), None, None if b is None else _sum_to(g, b), None)
        return parts[: len(rest)]

    defrule(sp.logsumexp, jvp=logsumexp_jvp, vjp=logsumexp_vjp)

    def softmax_jvp(x, *rest):
        axis = rest[0] if len(rest) == 3 else None
        dx = rest[len(rest) // 2]
        s = sp.softmax(x, axis)
        return s * (dx - np.sum(s * dx, axis=axis, keepdims=True))

    def softmax_vjp(x, *rest):
        axis = rest[0] if len(rest) == 2 else None
        s = sp.softmax(x, axis)
        g = s * (rest[-1] - np.sum(s * rest[-1], axis=axis, keepdims=True))
        return (g, None) if len(rest) == 2 else (g,)

    defrule(sp.softmax, jvp=softmax_jvp, vjp=softmax_vjp)

    def log_softmax_jvp(x, *rest):
        axis = rest[0] if len(rest) == 3 else None
        dx = rest[len(rest) // 2]
        return dx - np.sum(sp.softmax(x, axis) * dx, axis=axis, keepdims=True)

    def log_softmax_vjp(x, *rest):
        axis = rest[0] if len(rest) == 2 else None
        g = rest[-1] - sp.softmax(x, axis) * np.sum(rest[-1], axis=axis, keepdims=True)
        return (g, None) if len(rest) == 2 else (g,)

    defrule(sp.log_softmax, jvp=log_softmax_jvp, vjp=log_softmax_vjp)


def _elementary(sp) -> None:
    """Rules of scipy.special's elementary and gamma-family functions, and of its losses and transforms."""
    _unary(sp.expm1, lambda x: np.exp(x))
    _unary(sp.log1p, lambda x: 1.0 / (1.0 + np.asarray(x)))
    _unary(sp.cbrt, lambda x: 1.0 / (3.0 * sp.cbrt(x) ** 2))

    def exprel_partial(x):  # (e^x - 1) / x
        u = _nonzero(x)
        return np.where(u == x, (np.exp(u) - sp.exprel(u)) / u, 0.5 + x / 3.0)

    _unary(sp.exprel, exprel_partial)
    _unary(sp.erfcinv, lambda x: -_ROOT_PI / 2.0 * np.exp(sp.erfcinv(x) ** 2))
    _unary(sp.erfi, lambda x: _TWO_BY_ROOT_PI * np.exp(np.asarray(x) ** 2))
    _unary(sp.erfcx, lambda x: 2.0 * np.asarray(x) * sp.erfcx(x) - _TWO_BY_ROOT_PI)  # exp(x^2) erfc(x)
    _unary(sp.dawsn, lambda x: 1.0 - 2.0 * np.asarray(x) * sp.dawsn(x))
    _unary(sp.rgamma, lambda x: -sp.rgamma(x) * sp.digamma(x))  # 1 / gamma(x)
    _unary(sp.loggamma, lambda x: sp.digamma(x))  # (of real arguments)
    _unary(sp.exp1, lambda x: -np.exp(-np.asarray(x)) / x)
    _unary(sp.expi, lambda x: np.exp(x) / x)

    def spence_partial(z):  # log z / (1 - z), -1 at z = 1
        u = _nonzero(z - 1.0)
        return np.where(u == z - 1.0, np.log(u + 1.0) / -u, -1.0 + (z - 1.0) / 2.0)

    _unary(sp.spence, spence_partial)

    def ellipk_partial(m):
        u = _nonzero(m)
        return np.where(
            u == m,
            (sp.ellipe(u) - (1.0 - u) * sp.ellipk(u)) / (2.0 * u * (1.0 - u)),
            np.pi / 8.0 + 9.0 * np.pi / 64.0 * m,
        )

    _unary(sp.ellipk, ellipk_partial)

    def ellipe_partial(m):
        u = _nonzero(m)
        return np.where(u == m, (sp.ellipe(u) - sp.ellipk(u)) / (2.0 * u), -np.pi / 8.0 - 3.0 * np.pi / 64.0 * m)

    _unary(sp.ellipe, ellipe_partial)
    _binary(
        sp.beta,
        lambda a, b: sp.beta(a, b) * (sp.digamma(a) - sp.digamma(a + b)),
        lambda a, b: sp.beta(a, b) * (sp.digamma(b) - sp.digamma(a + b)),
    )
    _binary(
        sp.binom,
        lambda n, k: sp.binom(n, k) * (sp.digamma(n + 1.0) - sp.digamma(n - k + 1.0)),
        lambda n, k: sp.binom(n, k) * (sp.digamma(n - k + 1.0) - sp.digamma(k + 1.0)),
    )
    _binary(sp.kl_div, lambda x, y: np.log(x / y), lambda x, y: 1.0 - x / y)  # x log(x / y) - x + y
    _binary(  # r^2 / 2 inside |r| <= delta, delta (|r| - delta / 2) outside
        sp.huber,
        lambda d, r: np.where(np.abs(r) <= d, 0.0, np.abs(r) - d),
        lambda d, r: np.where(np.abs(r) <= d, r, d * np.sign(r)),
    )
    _binary(  # delta^2 (sqrt(1 + (r / delta)^2) - 1)
        sp.pseudo_huber,
        lambda d, r: 2.0 * d * (np.sqrt(1.0 + (r / d) ** 2) - 1.0) - r * r / (d * np.sqrt(1.0 + (r / d) ** 2)),
        lambda d, r: r / np.sqrt(1.0 + (r / d) ** 2),
    )
    _binary(sp.boxcox, lambda x, lam: np.power(x, lam - 1.0), lambda x, lam: _boxcox_in_lambda(x, lam))
    _binary(sp.boxcox1p, lambda x, lam: np.power(1.0 + x, lam - 1.0), lambda x, lam: _boxcox_in_lambda(1.0 + x, lam))
    _binary(sp.inv_boxcox, _inv_boxcox_in_y, _inv_boxcox_in_lambda)
    _binary(sp.inv_boxcox1p, _inv_boxcox_in_y, _inv_boxcox_in_lambda)


def _bessel(sp) -> None:
    """Rules of the Bessel functions: of order 0 and 1 (and scaled), and of a real order ``v`` in ``x`` only
    (``v``, mostly a whole number, is left out: ``rules.custom.NOT_IN``)."""
    _unary(sp.i0e, lambda x: sp.i1e(x) - np.sign(x) * sp.i0e(x))  # exp(-|x|) I0(x)

    def i1e_partial(x):
        u = _nonzero(x)
        return np.where(u == x, sp.i0e(u) - sp.i1e(u) / u - np.sign(u) * sp.i1e(u), 0.5)

    _unary(sp.i1e, i1e_partial)
    _unary(sp.j0, lambda x: -sp.j1(x))

    def j1_partial(x):
        u = _nonzero(x)
        return np.where(u == x, sp.j0(u) - sp.j1(u) / u, 0.5)

    _unary(sp.j1, j1_partial)
    _unary(sp.y0, lambda x: -sp.y1(x))
    _unary(sp.y1, lambda x: sp.y0(x) - sp.y1(x) / x)
    _unary(sp.k0, lambda x: -sp.k1(x))
    _unary(sp.k1, lambda x: -sp.k0(x) - sp.k1(x) / x)
    _unary(sp.k0e, lambda x: sp.k0e(x) - sp.k1e(x))  # exp(x) K0(x)
    _unary(sp.k1e, lambda x: sp.k1e(x) - sp.k0e(x) - sp.k1e(x) / x)
    _in_second(sp.iv, lambda v, x: (sp.iv(v - 1.0, x) + sp.iv(v + 1.0, x)) / 2.0)
    _in_second(sp.jv, lambda v, x: (sp.jv(v - 1.0, x) - sp.jv(v + 1.0, x)) / 2.0)
    _in_second(sp.yv, lambda v, x: (sp.yv(v - 1.0, x) - sp.yv(v + 1.0, x)) / 2.0)
    _in_second(sp.kv, lambda v, x: -(sp.kv(v - 1.0, x) + sp.kv(v + 1.0, x)) / 2.0)
    _in_second(sp.ive, lambda v, x: (sp.ive(v - 1.0, x) + sp.ive(v + 1.0, x)) / 2.0 - np.sign(x) * sp.ive(v, x))
    _in_second(sp.kve, lambda v, x: sp.kve(v, x) - (sp.kve(v - 1.0, x) + sp.kve(v + 1.0, x)) / 2.0)


def _incomplete(sp) -> None:
    """Rules of the regularised incomplete gamma functions and Hurwitz's zeta, in their second argument (the
    derivative in the first has no closed form: left out, ``rules.custom.NOT_IN``)."""
    density = lambda a, x: np.exp((a - 1.0) * np.log(x) - x - sp.gammaln(a))  # noqa: E731  (gamma's pdf)
    _in_second(sp.gammainc, density)
    _in_second(sp.gammaincc, lambda a, x: -density(a, x))
    _in_second(sp.zeta, lambda s, q: -s * sp.zeta(s + 1.0, q))


def _in_second(fn, partial):
    """``fn(a, x)`` given its partial derivative ``partial(a, x)`` in ``x``; in ``a`` none (``NOT_IN``: a call
    whose ``a`` varies is refused, a call of ``a`` alone too, ``zeta(s)``)."""
    from .custom import NOT_IN, defrule

    defrule(
        fn,
        jvp=lambda a, x, da, dx: partial(a, x) * dx,  # (da: a's tangent, which NOT_IN keeps zero)
        vjp=lambda a, x, ct: (None, _sum_to(partial(a, x) * ct, x)),
    )
    NOT_IN[fn] = ((0,), f"scipy.special.{fn.__name__}")


def _nonzero(x):
    """``x`` with its zeros 0.5 (inside every rule's domain; ellipk's is m < 1): where a partial derivative
    divides by ``x``, it is computed at this and its limit at 0 taken where ``x`` is 0 (``np.where(u == x,
    ..., limit)``), the limit written as its Taylor polynomial of first order in ``x``, so that a Hessian at 0 is
    right too.  Written without a function handed in, so that the rules are differentiated again."""
    return np.where(x == 0.0, 0.5, x)


def _boxcox_in_lambda(x, lam):
    """d/dlambda of (x^lambda - 1) / lambda (log x at lambda = 0): x^lambda log x / lambda - (x^lambda - 1) /
    lambda^2, and (log x)^2 / 2 at 0."""
    u, log_x = _nonzero(lam), np.log(x)
    return np.where(
        u == lam,
        np.power(x, u) * log_x / u - (np.power(x, u) - 1.0) / (u * u),
        log_x * log_x * (0.5 + lam * log_x / 3.0),
    )


def _inv_boxcox_in_y(y, lam):
    """d/dy of (lambda y + 1)^(1 / lambda) (exp(y) at lambda = 0)."""
    u = _nonzero(lam)
    return np.where(u == lam, np.power(u * y + 1.0, 1.0 / u - 1.0), np.exp(y) * (1.0 - lam * (y * y / 2.0 + y)))


def _inv_boxcox_in_lambda(y, lam):
    """d/dlambda of (lambda y + 1)^(1 / lambda): f (y / (lambda b) - log(b) / lambda^2), b = lambda y + 1;
    -exp(y) y^2 / 2 at lambda = 0."""
    u = _nonzero(lam)
    base = u * y + 1.0
    away = np.power(base, 1.0 / u) * (y / (u * base) - np.log(base) / (u * u))
    return np.where(u == lam, away, np.exp(y) * (-y * y / 2.0 + lam * (2.0 * y**3 / 3.0 + y**4 / 4.0)))


def multigammaln_jvp(a, d, da, dd):
    """d/da log Gamma_d(a) = sum_j digamma(a - j / 2), j < d (d: a whole number, no derivative)."""
    return _multidigamma(a, d) * da


def multigammaln_vjp(a, d, ct):
    return (_sum_to(_multidigamma(a, d) * ct, a), None)


def _multidigamma(a, d):
    """sum_j digamma(a - j / 2) over j < d: the derivative of multigammaln(a, d) in a."""
    total = 0.0
    for j in range(d):
        total = total + _digamma(a - 0.5 * j)
    return total


def _weights(a, axis):
    """softmax of ``a`` over ``axis`` (every entry for None): logsumexp's partial derivatives."""
    a = np.asarray(a) * 1.0  # (an integer array as floats; float32 kept)
    shifted = np.exp(a - np.max(a, axis=axis, keepdims=True))
    return shifted / np.sum(shifted, axis=axis, keepdims=True)


def _lse_args(rest) -> tuple:
    """``(axis, b, keepdims)`` of logsumexp's arguments after ``a``, given by position; ``return_sign`` (a pair
    out) refused."""
    axis, b, keepdims, sign = _padded(rest, 4, (None, None, False, False))
    if sign:
        raise ValueError("the derivative of logsumexp(..., return_sign=True) is not supported; take the sign apart")
    return axis, b, keepdims


def _padded(values, n: int, defaults=None) -> tuple:
    """``values`` followed by ``defaults`` (None each) up to ``n`` items."""
    defaults = defaults or (None,) * n
    return tuple(values) + tuple(defaults[len(values) :])


def _lse_weights(a, axis, b):
    """exp(a) / sum(b exp(a)) over ``axis`` (kept, to broadcast), of the shape ``a`` and ``b`` broadcast to (``b``
    may have more entries than ``a``): what a change of ``b * da + db`` is weighed by."""
    if b is None:
        return _weights(a, axis)
    a = np.asarray(a) * 1.0  # (an integer array as floats; float32 kept)
    top = np.max(a, axis=axis, keepdims=True)
    shifted = np.exp(a - top) * np.ones_like(b, dtype=a.dtype)
    return shifted / np.sum(b * shifted, axis=axis, keepdims=True)


def _expanded(ct, a, axis):
    """A cotangent of a reduction of ``a`` over ``axis`` with the reduced axes put back (to broadcast)."""
    return np.expand_dims(ct, axis) if axis is not None and np.ndim(ct) < np.ndim(a) else ct
