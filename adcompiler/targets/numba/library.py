"""Library functions called from compiled code as they are, each in Numba's object mode.

A call of a library function whose arguments have no derivative (``multigammaln(0.5 * n, d)`` in
GradBench's gmm, which has a rule, ``rules.scipy_special``; ``lower.expressions``' ``library``
equations, which have none) is computed as the primal computes it.  Numba compiles NumPy's and
``math``'s functions itself; a function of another library (SciPy's, whose ``multigammaln`` is Python
over a ufunc Numba does not know) it cannot type.  This target hands the
compiled code, under the function's name, a stand-in that calls the function itself in object mode
(``numba.objmode``): the same function on the same arguments, the result converted back.  Its type is
learnt at compile time from one call on example arguments of the argument types (as ``analysis.
library_values`` learns the abstract value); a call whose result then has another type raises at
run time.  Each such call costs microseconds of Python (SciPy's multigammaln 12 us), so the few with a
form of ``math``'s functions are compiled instead where their arguments are numbers (``_compiled_form``:
gammaln and multigammaln, GradBench gmm's constant).
"""

from __future__ import annotations

import math

_RULES = __name__.rsplit(".", 3)[0] + ".rules"  # (adcompiler.rules)
_COMPILED = ("numpy", "math", "cmath", "builtins")  # the libraries whose functions Numba compiles itself
EXAMPLE_INT, EXAMPLE_FLOAT, EXAMPLE_SIZE = 3, 2.5, 3


def library_functions(functions) -> dict:
    """id(function) -> function, for the library functions the ANF ``functions`` call that Numba does not
    compile: those with no rule of a library other than NumPy and ``math``, and SciPy's with a rule
    (``multigammaln``, ``gammaln``: ``rules.scipy_special``), whose primal the code calls as it is."""
    from ...ir.nodes import Eq, walk

    found = {}
    for function in functions:
        for eq in walk(function.body):
            if not isinstance(eq, Eq):
                continue
            if eq.prim == "library" and eq.param[1].split(".")[0] not in _COMPILED:
                found[id(eq.param[3])] = eq.param[3]
            elif eq.prim == "custom" and _scipy(eq.param):
                found[id(eq.param)] = eq.param
    return found


def library_rule(function) -> bool:
    """Whether ``function`` is a derivative rule adcompiler gives a SciPy function (``rules.scipy_special``,
    ``rules.scipy_stats``, ``rules.scipy_linalg``: the vjp of ``logsumexp(x, axis=1)``, of ``softmax``).  They
    are NumPy and SciPy code Numba does not compile (``keepdims``, SciPy's own functions), so compiled code
    calls them in object mode, as it calls the function itself."""
    return callable(function) and (getattr(function, "__module__", None) or "").startswith(f"{_RULES}.scipy_")


def _scipy(function) -> bool:
    """Whether ``function`` is SciPy's (a Python function of its modules, or a ufunc of ``scipy.special``)."""
    module = getattr(function, "__module__", None)
    if module is not None:
        return module.split(".")[0] == "scipy"
    import scipy.special

    return getattr(scipy.special, getattr(function, "__name__", ""), None) is function


_MADE: dict = {}  # function -> its stand-in (one a process, so that Numba compiles each overload once)


def in_object_mode(function):
    """A function of positional arguments that compiled code calls in place of ``function`` (see the
    module docstring); called from Python, it is ``function``."""
    if function in _MADE:
        return _MADE[function]
    import numba

    def stand_in(*args):
        return function(*args)

    stand_in.__name__ = stand_in.__qualname__ = getattr(function, "__name__", "library_function")
    stand_in.__doc__ = f"{stand_in.__name__}(*args) called in Numba's object mode (targets.numba.library)."

    @numba.extending.overload(stand_in)
    def _typed(*args):
        compiled = _compiled_form(function, _flat(args))
        if compiled is not None:
            return compiled
        result_type = _contiguous(numba.typeof(_example_call(function, _flat(args))))

        def impl(*args):
            with numba.objmode(out=result_type):
                out = _conformed(function(*args))
            return out

        return impl

    _MADE[function] = stand_in
    return stand_in


def _compiled_form(function, types):
    """The impl of a SciPy function Numba compiles from ``math`` for arguments of ``types``, where it has one:
    ``scipy.special.gammaln`` of a number (``math.lgamma``) and ``multigammaln`` of a number and an integer
    (the sum of lgamma SciPy's makes, added in order); else None (object mode).  GradBench gmm's
    ``multigammaln(0.5 * n, d)`` took 12 us of Python a call, 8% of the gradient at its smallest size."""
    import sys

    import numba

    special = sys.modules.get("scipy.special")
    kinds = numba.core.types
    number = lambda t: isinstance(t, (kinds.Integer, kinds.Float))  # noqa: E731
    if special is None or not all(number(t) for t in types):
        return None
    if function is getattr(special, "gammaln", None) and len(types) == 1:
        return lambda *args: math.lgamma(args[0])
    if function is getattr(special, "multigammaln", None) and len(types) == 2 and isinstance(types[1], kinds.Integer):

        def multigammaln(*args):
            a, d = args
            if not a > 0.5 * (d - 1):
                raise ValueError("multigammaln: condition a > 0.5 * (d-1) not met")
            total = 0.0
            for j in range(1, d + 1):
                total += math.lgamma(a - (j - 1.0) / 2)
            return (d * (d - 1) * 0.25) * math.log(math.pi) + total

        return multigammaln
    return None


def _example_call(function, types):
    """``function`` called on examples of the argument ``types``, for the type of what it returns: its
    integers ``EXAMPLE_INT``, else 1, else 0 where a call on that raises (an axis: ``logsumexp(x, axis=1)``
    of a matrix, whose axis 3 is out of bounds); a literal as it is."""
    for whole in (EXAMPLE_INT, 1, 0):
        try:
            return function(*(_example(t, whole) for t in types))
        except Exception:
            if whole == 0:
                raise


def _contiguous(t):
    """The Numba type ``t`` with every array in it C-contiguous: what a stand-in's result is declared as
    (``_conformed`` makes it so).  Numba's object mode takes an array back by the layout it is told, not the
    one it has: SciPy's ``expm_frechet`` of a matrix of equal entries is C-contiguous, of most others
    Fortran, read as C its transpose."""
    import numba

    kinds = numba.core.types
    if isinstance(t, kinds.Array):
        return t.copy(layout="C")
    if isinstance(t, kinds.Tuple):
        return kinds.Tuple(tuple(_contiguous(e) for e in t.types))
    if isinstance(t, kinds.UniTuple):
        return kinds.UniTuple(_contiguous(t.dtype), t.count)
    return t


def _conformed(value):
    """A stand-in's result with every array in it C-contiguous (see ``_contiguous``)."""
    import numpy

    if type(value) is numpy.ndarray:
        return numpy.ascontiguousarray(value)
    if type(value) is tuple:
        return tuple(_conformed(v) for v in value)
    return value


def _flat(types) -> tuple:
    """The argument types an overload with ``*args`` is given (one StarArgTuple, or the types themselves)."""
    import numba

    if len(types) == 1 and isinstance(types[0], numba.core.types.StarArgTuple):
        return tuple(types[0].types)
    return tuple(types)


def _example(t, whole: int = EXAMPLE_INT):
    """A small value of the Numba type ``t``: the example an argument of that type stands for (an integer
    ``whole``, an integer literal its value)."""
    import numba
    import numpy

    kinds = numba.core.types
    if isinstance(t, kinds.Boolean):
        return True
    if isinstance(t, kinds.Literal):
        return t.literal_value
    if isinstance(t, kinds.NoneType):  # (logsumexp(x, 1, None, True): its b)
        return None
    if isinstance(t, kinds.Omitted):
        return t.value
    if isinstance(t, kinds.Integer):
        return whole
    if isinstance(t, kinds.Float):
        return EXAMPLE_FLOAT
    if isinstance(t, kinds.Array):
        dtype = numpy.dtype(str(t.dtype))
        return numpy.full((EXAMPLE_SIZE,) * t.ndim, EXAMPLE_INT if dtype.kind in "iub" else EXAMPLE_FLOAT, dtype)
    if isinstance(t, kinds.BaseTuple):
        return tuple(_example(e, whole) for e in t.types)
    raise TypeError(f"no example of the Numba type {t} for a library function called in object mode")
