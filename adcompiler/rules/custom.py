"""Derivative rules users give their own functions (``adcompiler.defrule``)."""

CUSTOM: dict = {}


def defrule(fn, jvp=None, vjp=None):
    """Give ``fn`` derivative rules, used by both modes wherever differentiated code calls it.

    ``jvp(*primals, *tangents)`` returns the output tangent (a zero tangent is
    passed as 0.0); ``vjp(*primals, ct)`` returns a tuple with one cotangent per
    argument.  Typical uses: a function written in C, a numerically stable
    formula, an iterative solver differentiated implicitly.  Returns ``fn``.
    """
    if jvp is None and vjp is None:
        raise ValueError(f"defrule({getattr(fn, '__name__', fn)!r}) needs a jvp rule, a vjp rule, or both")
    CUSTOM[fn] = (jvp, vjp)
    return fn
