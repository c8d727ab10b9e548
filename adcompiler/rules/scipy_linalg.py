"""``scipy.linalg`` as scientists call it (issue 37): each function written with NumPy's primitives,
whose rules (``rules/arrays.py``, ``rules/linalg.py``) give both modes and second order.

* ``cholesky(a, lower=False)``: ``np.linalg.cholesky`` of the triangle SciPy reads (the upper one by
  default: the factor of ``a.T``, transposed), the same numbers LAPACK gives SciPy;
* ``cho_factor(a, lower=False)``: the pair ``(c, lower)``, ``c`` the factor in its triangle and ``a``'s
  entries in the other, as SciPy returns it (``lower`` a constant, so ``cho_solve`` knows the triangle);
* ``cho_solve((c, lower), b)``: two triangular systems, ``c``'s triangle only read;
* ``solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False)``: ``np.linalg.solve`` of the
  triangle read (the diagonal taken as ones for ``unit_diagonal``), transposed for ``trans`` 1, 2, 'T', 'C'.

A triangular system is solved by ``np.linalg.solve`` (LU): the same solution to rounding, at O(n^3)
rather than O(n^2).  ``overwrite_a``/``overwrite_b`` are refused (SciPy may change the argument);
``check_finite`` is accepted and not checked.

``expm`` has rules given with ``defrule`` on first use (``register``): its Frechet derivative
``expm_frechet(A, dA)`` forward and ``expm_frechet(A^T, G)`` back (Al-Mohy and Higham 2009); a second
derivative through it is refused where the rule calls ``expm_frechet``.
"""

from __future__ import annotations

from ..ir.expr import Num

# trans as SciPy takes it: whether the system is op(a) = a^T (real matrices: 'C' is 'T')
TRANS = {0: False, 1: True, 2: True, "N": False, "T": True, "C": True}
FLAGS = (True, False)
_FACTOR = (("a", None), ("lower", Num(False)), ("overwrite_a", Num(False)), ("check_finite", Num(True)))
SIGNATURES = {
    "scipy.linalg.cholesky": _FACTOR,
    "scipy.linalg.cho_factor": _FACTOR,
    "scipy.linalg.cho_solve": (
        ("c_and_lower", None),
        ("b", None),
        ("overwrite_b", Num(False)),
        ("check_finite", Num(True)),
    ),
    "scipy.linalg.solve_triangular": (
        ("a", None),
        ("b", None),
        ("trans", Num(0)),
        ("lower", Num(False)),
        ("unit_diagonal", Num(False)),
        ("overwrite_b", Num(False)),
        ("check_finite", Num(True)),
    ),
}
_STATIC_FACTOR = {"lower": FLAGS, "overwrite_a": (False,), "check_finite": FLAGS}
STATIC = {
    "scipy.linalg.cholesky": _STATIC_FACTOR,
    "scipy.linalg.cho_factor": _STATIC_FACTOR,
    "scipy.linalg.cho_solve": {"overwrite_b": (False,), "check_finite": FLAGS},
    "scipy.linalg.solve_triangular": {
        "trans": tuple(TRANS),
        "lower": FLAGS,
        "unit_diagonal": FLAGS,
        "overwrite_b": (False,),
        "check_finite": FLAGS,
    },
}


def _mT(apply, const, x):
    """The matrix (or stack of them) transposed."""
    return apply("numpy.swapaxes", [x, const(-1), const(-2)])


def cholesky(apply, const, a, lower, hint=None):
    """SciPy's Cholesky factor: lower (``L L^T = a``) or upper (``U^T U = a``), of the triangle it reads."""
    if lower:
        return apply("numpy.linalg.cholesky", [a], hint)
    factor = apply("numpy.linalg.cholesky", [_mT(apply, const, a)], None)  # a's upper triangle, as a lower one
    return apply("numpy.swapaxes", [factor, const(-1), const(-2)], hint)


def cho_factor(apply, const, a, lower, hint=None):
    """``(c, lower)``: the factor in its triangle plus ``a``'s other triangle, as LAPACK leaves it."""
    factor = cholesky(apply, const, a, lower)
    rest = apply("numpy.triu" if lower else "numpy.tril", [a, const(1 if lower else -1)], None)
    return apply("add", [factor, rest], hint), const(bool(lower))


def triangle(apply, const, a, lower, unit=False):
    """The triangular matrix a triangular solve reads of ``a`` (its diagonal ones for ``unit``)."""
    shift = (-1 if lower else 1) if unit else 0
    part = apply("numpy.tril" if lower else "numpy.triu", [a, const(shift)], None)
    if not unit:
        return part
    n = apply("getitem", [apply("numpy.shape", [a], None), const(-1)], None)
    return apply("add", [part, apply("numpy.eye", [n], None)], None)


def solve_triangular(apply, const, a, b, trans, lower, unit, hint=None):
    """``op(a) x = b`` for the triangle of ``a`` read."""
    t = triangle(apply, const, a, lower, unit)
    return apply("numpy.linalg.solve", [_mT(apply, const, t) if TRANS[trans] else t, b], hint)


def cho_solve(apply, const, c, lower, b, hint=None):
    """``a x = b`` given ``cho_factor(a)``: ``L L^T x = b`` (or ``U^T U x = b``), two triangular solves."""
    t = triangle(apply, const, c, lower)
    first, second = (t, _mT(apply, const, t)) if lower else (_mT(apply, const, t), t)
    y = apply("numpy.linalg.solve", [first, b], None)
    return apply("numpy.linalg.solve", [second, y], hint)


WRITTEN = {
    "scipy.linalg.cholesky": lambda apply, const, v, hint: cholesky(apply, const, v[0], v[1].value, hint),
    "scipy.linalg.cho_factor": lambda apply, const, v, hint: cho_factor(apply, const, v[0], v[1].value, hint),
    "scipy.linalg.solve_triangular": lambda apply, const, v, hint: solve_triangular(
        apply, const, v[0], v[1], v[2].value, v[3].value, v[4].value, hint
    ),
}

_done = False


def register() -> None:
    """Give ``scipy.linalg.expm`` its rules (once; SciPy imported now)."""
    global _done
    if _done:
        return
    _done = True
    import scipy.linalg as sl

    from .custom import defrule

    def expm_jvp(a, da):
        return sl.expm_frechet(a, da, compute_expm=False)

    def expm_vjp(a, ct):
        return (sl.expm_frechet(a.T, ct, compute_expm=False),)

    defrule(sl.expm, jvp=expm_jvp, vjp=expm_vjp)
