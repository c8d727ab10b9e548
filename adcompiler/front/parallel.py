"""``adcompiler.prange``: a ``range`` whose iterations the derivative code may run in parallel.

``for i in prange(n)`` (this one, or Numba's ``numba.prange``) tells adcompiler that the loop's
iterations are independent: each writes its own rows (``y[i] = ...``) and adds into shared totals
(``s += ...``).  Under ``backend="python"`` it is ``range``; under ``backend="numba"`` the primal, the
tangent and the adjoint loops are Numba ``prange`` loops (see ``modes.parallel``).
"""


class prange:  # noqa: N801 - spelt as Numba spells it, and as range is
    """``range(*args)``, marking a loop whose iterations are independent (as ``numba.prange`` does).

    ``for i in prange(n):`` in a differentiated function gives, under ``backend="numba"``, a parallel
    primal, tangent and adjoint loop; under ``backend="python"`` the loop runs in order, with the same
    numbers.  An iteration may read anything, write an array made before the loop at its own index
    (``y[i] = ...``) and add into a number (``total += ...``); a loop that does otherwise is refused at
    its line (see docs/numba.md, "Parallel loops")."""

    def __new__(cls, *args):
        return range(*args)


def is_prange(obj) -> bool:
    """Whether ``obj`` is ``adcompiler.prange`` or Numba's ``prange`` (without importing Numba)."""
    if obj is prange:
        return True
    return getattr(obj, "__name__", None) == "prange" and str(getattr(obj, "__module__", "")).startswith("numba")
