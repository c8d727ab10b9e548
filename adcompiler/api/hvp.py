"""``adcompiler.hvp``'s product: the Hessian of a function of one number times a vector, without forming
the Hessian, as the tangent of its generated gradient code (or of its reverse code where the gradient code
cannot be differentiated); a later call with arguments like an earlier one's goes straight to that code.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from ..analysis import values as V
from ..analysis.show import show
from ..compile.origins import second_order_of
from .differentiable import Differentiable, differentiate
from .trees import converts, flatten, unflatten


def reverse_differentiable(d: Differentiable, args: tuple, sig) -> Differentiable:
    """The generated reverse-mode function of ``d`` for arguments of signature ``sig``, itself made
    differentiable in its wrt parameters (made once per signature)."""
    if d._built.output_shape() is not None:
        raise TypeError(f"hessian/hvp need a function with one output; {d.fn.__name__} returns a tuple")
    out = d._built.facts(sig).summary.out
    if not one_number(out):  # (the reverse code's tangent would be the Hessian of the outputs' sum)
        raise TypeError(
            f"hessian_matrix/hvp need a function of one number out; {d.fn.__name__} returns {show(out)}: "
            f"take adcompiler.hessian({d.fn.__name__}) (each output's Hessian) or jacfwd(jacrev({d.fn.__name__}))"
        )
    if not d.target.second_order:
        raise NotImplementedError(
            f'hessian/hvp of {d.fn.__name__} with arrays="{d.arrays}": second derivatives of array-API code are '
            f'not generated; use differentiate({d.fn.__name__}) (arrays="numpy") for them'
        )
    key = ("reverse", sig)
    if key not in d.derived:  # under backend="numba", the python target's reverse code compiled in forward mode
        code = d.target.reverse_code(d, sig) if d.target.reverse_code else d._built.function("reverse", sig)
        d.derived[key] = differentiate(code, wrt=d._wrt_of(sig), backend=d.backend)
    return d.derived[key]


def one_number(out) -> bool:
    """Whether an output of abstract value ``out`` is one number (or may be: a number or an array)."""
    return isinstance(out, (V.Num, V.Numeric)) or isinstance(out, V.Arr) and out.ndim == 0


def _gradient_differentiable(d: Differentiable, sig):
    """The generated gradient code of ``d`` for arguments of signature ``sig`` (one number out, no records),
    made differentiable in its wrt parameters (once), or None: gradient code that cannot be differentiated
    (it lets arrays go with ``del``, ``optimize.release``).  A Hessian-vector product is its tangent; the
    reverse code's tangent also carries the tangent of the function's value (GradBench kmeans: a third of
    the product's work), dropped.  A target with code of its own (Numba) hands the python target's
    gradient code made by its program, as it hands the reverse code (``reverse_code``)."""
    key = ("grad", sig)
    if key not in d.derived:
        out = d._built.facts(sig).summary.out
        number = isinstance(out, V.Num) or isinstance(out, V.Arr) and out.ndim == 0  # (else: the sum's, as before)
        g = None
        if not converts(sig.avals) and number:
            made = d.target.reverse_code
            code = made(d, sig, "grad") if made is not None else d._built.function("grad", sig)
            g = differentiate(code, wrt=d._wrt_of(sig), backend=d.backend)
            g = None if g._refusal is not None else g
        d.derived[key] = g
    return d.derived[key]


def _known_product(d: Differentiable, args: tuple, v):
    """hvp for arguments of floats and float arrays like those of an earlier call (``d.derived["hvp"]``,
    dropped with everything built when the function changes): each argument tested by its type, ndim and
    dtype, then the gradient code's forward entry called at once (which tests the tangents, and checks them
    all where they are not alike); None for other calls (binding, defaults, records and lists: ``hvp_of``)."""
    if len(args) != len(d.params) or not isinstance(v, (tuple, list)):
        return None
    d._check_current()
    for tests, g, positions in d.derived.get("hvp", ()):
        if len(v) == len(positions) and all(_alike(a, test) for a, test in zip(args, tests)):
            dg = g.jvp(args, tuple(v))[1]
            dcts = dg if len(positions) > 1 else (dg,)
            return tuple(c if tests[i] is not None else unflatten(c, V.FLOAT, True) for c, i in zip(dcts, positions))
    return None


def _alike(a, test) -> bool:
    """Whether ``a`` is a float (``test`` None) or an array of the ndim and dtype ``test`` holds."""
    if test is None:
        return type(a) is float
    return type(a) is test[0] and a.ndim == test[1] and a.dtype is test[2]


def _remember_product(d: Differentiable, args: tuple, sig, g, positions) -> None:
    """Keep ``g`` for later calls of hvp with arguments like ``args`` (``_known_product``), where each is a
    float or a float array."""
    tests = []
    for a, aval in zip(args, sig.avals):
        if aval == V.FLOAT and type(a) is float:
            tests.append(None)
        elif isinstance(aval, V.Arr) and str(aval.dtype).startswith("float") and a.ndim == aval.ndim:
            tests.append((type(a), a.ndim, a.dtype))
        else:
            return
    known = d.derived.setdefault("hvp", [])
    if len(known) < 8:  # (a few signatures: each later call tests them in turn)
        known.append((tuple(tests), g, positions))


def hvp_of(d: Differentiable) -> Callable[..., Any]:
    """``product(args, v)``: the Hessian of ``d``'s scalar output with respect to its wrt parameters
    times ``v`` (a tuple, one tangent per wrt parameter, each shaped like its argument), without forming
    the Hessian: one forward pass over the reverse code; a tuple of products shaped the same."""

    def product(args, v):
        with second_order_of(d.fn):
            known = _known_product(d, tuple(args), v)
            return _product(args, v) if known is None else known

    def _product(args, v):
        args, sig = d._bound(tuple(args))  # records as tuples: the generated reverse code takes those
        r = reverse_differentiable(d, args, sig)
        positions = d._positions_of(sig)
        if not isinstance(v, (tuple, list)) or len(v) != len(positions):
            wrt = ", ".join(d.params[i] for i in positions)
            raise ValueError(f"hvp of {d.fn.__name__}: give one tangent per differentiated argument ({wrt}), not {v!r}")
        tangents = tuple(flatten(t, sig.avals[i]) for t, i in zip(v, positions))
        written = any(d._built.facts(sig).summary.written)
        if written:  # the caller's lists and arrays left as they were
            args = copy.deepcopy(args)
        g = _gradient_differentiable(d, sig)
        if g is not None:  # the gradient code's tangent: not the tangent of the value, which would be dropped
            dg = g.jvp(args, tangents)[1]
            dcts = dg if len(positions) > 1 else (dg,)
            if not written:  # later calls like this one: _known_product (which copies nothing)
                _remember_product(d, args, sig, g, positions)
        else:
            _, (_, dcts) = r.jvp(args + (1.0,), tangents)
        return tuple(unflatten(c, sig.avals[i], True) for c, i in zip(dcts, positions))

    product.__name__ = f"hvp_of_{d.fn.__name__}"
    return product
