"""A sum over the rows of a product's cotangent taken before the product, not after it.

The adjoint of ``(x - mu) @ B`` with respect to ``mu``, a vector broadcast along the rows of a matrix (a
Gaussian mixture's ``(x - mu[j]) @ Q.T``, a layer's input less its mean), is the cotangent of the n x d
matrix summed over its rows: ``unbroadcast(matmul_vjp_a(g, a, B), mu)``, the product ``g @ B.T`` of an
n x m and an m x d matrix (n m d multiplications) made only to be summed.  The rows of ``g`` summed first
give the same sum through a vector times a matrix (m d multiplications)::

    unbroadcast(matmul_vjp_a(g, a, B), mu)  ->  unbroadcast(matmul_vjp_a(np.sum(g, axis=0), mu, B), mu)

(``matmul_vjp_a`` of a vector ``mu`` is ``B @ g``; the outer ``unbroadcast`` still sums a ``mu`` of length
one.)  For float64 matrices ``a`` and ``B`` and a float64 vector ``mu``, known from the primal's abstract
values; the product's cotangent may be a name read once, bound to it earlier in the block.  The same sum
in another order: equal up to rounding, on every target alike (GradBench gmm at d = 64, under Numba: the
gradient 2.97 -> 2.25 ms, a third of its matrix products gone).
"""

from __future__ import annotations

from ..analysis import values as V
from ..ir import expr as E
from .earlier import Context, rewritten, take, value_of


def sums_first(body: tuple, avals: dict) -> tuple:
    """``body`` with the rewrite above wherever it applies."""
    return rewritten(body, avals, _rule)


def _rule(e, bound: dict, ctx: Context):
    if not (isinstance(e, E.Call) and e.func == "@unbroadcast" and len(e.args) == 2 and not e.keywords):
        return e
    product, mu = e.args
    value = value_of(product, bound, ctx)
    if not (isinstance(value, E.Call) and value.func == "@matmul_vjp_a" and len(value.args) == 3):
        return e
    g, a, b = value.args
    if value.keywords or not (_floats(a, 2, ctx) and _floats(b, 2, ctx) and _floats(mu, 1, ctx)):
        return e
    take(product, bound, ctx)
    rows = E.Call("numpy.sum", (g,), (("axis", E.Num(0)),))
    return E.Call(e.func, (E.Call(value.func, (rows, mu, b)), mu))


def _floats(e, ndim: int, ctx: Context) -> bool:
    """Whether ``e`` is a name of a float64 array of ``ndim`` axes."""
    aval = ctx.avals.get(e.id) if isinstance(e, E.Name) else None
    return isinstance(aval, V.Arr) and aval.dtype == "float64" and aval.ndim == ndim
