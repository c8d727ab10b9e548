"""JAX-style functions of functions: ``grad``, ``value_and_grad``, ``jvp``, ``vjp``, ``jacfwd``, ``jacrev``,
``hessian``, ``hvp``.

Each is a spelling of ``differentiate`` a JAX or autograd user guesses right: ``argnums`` is an int or
a tuple of positions (an int gives one result, a tuple a tuple of them, as in JAX), ``has_aux`` lets
``f`` return ``(output, aux)`` with ``aux`` handed back untouched.  ``f`` may be a function or a lambda,
a bound method, a callable object, a ``functools.partial`` or another of these transforms (``targets``):
``grad(grad(f))`` and ``jacfwd(jacrev(f))`` differentiate the inner one's generated code.  They share one
``Differentiable`` per function and ``argnums``, so a function is transformed once per specialisation
whichever of them is called.
"""

from __future__ import annotations

import inspect
import types
from typing import Any, Callable, Sequence, Union

from ..analysis import values as V
from .differentiable import Differentiable
from .methods import instance_of
from ..analysis.assume import assumed_signature, read_by_key
from ..compile.origins import second_order_of
from ..lower.nested import INNER, Inner
from .arguments import called_with
from .blocks import gradient_like, out_blocks
from .higher import hessian_matrix, jacobian, jacobians, leaves, rebuild, wrt_leaves
from .hvp import hvp_of, one_number
from .transforms import TRANSFORM, Target, as_argnums, differentiable, made, name_of, positions, refuse_rows, shaped
from .transforms import target
from .trees import all_integral, fields, flatten, make
from .higher import float_dtype, integer

Argnums = Union[int, Sequence[int]]  # one position (one result) or a tuple of them (a tuple of results)


def grad(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """``g(*args)``: the gradient of ``f``'s scalar output with respect to the arguments at ``argnums``
    (``(gradient, aux)`` with ``has_aux``)."""
    argnums = as_argnums(argnums)
    both = value_and_grad(f, argnums, has_aux) if has_aux else None  # (grad(f)(x) in a loop: one closure made)

    def gradient(*args, **kwargs):
        if has_aux:
            (_, aux), g = both(*args, **kwargs)
            return g, aux
        t = target(f, positions(argnums), args, kwargs)
        refuse_rows(t, "grad")
        return _restored(t, t.d.grad(*t.args, **t.kwargs), argnums)

    return made(gradient, "grad", f, argnums, has_aux)


def value_and_grad(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """``g(*args)``: ``(value, gradient)``, or ``((value, aux), gradient)`` with ``has_aux``, as JAX gives."""
    argnums = as_argnums(argnums)

    def both(*args, **kwargs):
        t = target(f, positions(argnums), args, kwargs)
        refuse_rows(t, "value_and_grad")
        d = t.d
        if not has_aux:
            value, g = d.value_and_grad(*t.args, **t.kwargs)
            return value, _restored(t, g, argnums)
        args = d._bind(t.args, t.kwargs)
        out = d.fn(*args)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError(f"{name_of(f)} with has_aux=True must return (output, aux); it returned {out!r}")
        (value, aux), cts = d.vjp(args, (1.0, zeros_like(out[1])))
        return (value, aux), _restored(t, cts if len(d.wrt) > 1 else cts[0], argnums)

    return made(both, "value_and_grad", f, argnums, has_aux)


def _restored(t: Target, g, argnums):
    """A gradient as JAX gives it: one for an int ``argnums``, a tuple for a tuple; of derivative code
    (a transform of a transform), with its records made records again."""
    if t.restore is not None:
        from .trees import gradient_of

        g = gradient_of(g, [t.avals[i] for i in t.positions])
    return shaped(g, argnums)


def jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    """``(output, output tangent)`` of ``f`` at ``primals`` along ``tangents`` (one per primal; an
    integer primal's, which has no derivative, None or 0)."""
    primals = tuple(primals)
    t = _of_primals(f, primals)
    refuse_rows(t, "jvp")
    # the arguments as given go to the Differentiable's jvp, whose fast entry takes a call like an earlier
    # one without binding and checking them again (its method binds, fills defaults and refuses, as _bind)
    args = t.args if not t.kwargs else t.d._bind(t.args, t.kwargs)
    out, tangent = t.d.jvp(args, tuple(tangents))
    if t.restore is not None:
        return t.restore(out), t.restore(tangent)
    return out, tangent


def vjp(f: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """``(output, pullback)``: ``pullback(ct)`` is the tuple of cotangents of every primal, None for an
    integer (the primal sweep runs again when it is called: the output is computed first, as JAX
    returns it first)."""
    t = _of_primals(f, primals)
    refuse_rows(t, "vjp")
    d = t.d
    args = d._bind(t.args, t.kwargs)
    point = _held(args)  # (the primal may change a list or array it is handed: the pullback's point is before)
    out = called_with(d.fn, d.signature, args)
    first = t.positions[0] if t.positions else 0
    if t.restore is not None:
        out = t.restore(out)

    def pullback(ct):
        at = _held(point)  # (the reverse code runs the primal sweep again, on a copy: each call at the point)
        ct = t.unshaped(ct) if t.unshaped is not None else ct
        cts = dict(zip(d._positions_of(d._bound(at)[1]), d.vjp(at, ct)[1]))
        if t.restore is not None:
            from .trees import unflatten

            cts = {i: unflatten(c, t.avals[i], True) for i, c in cts.items()}
        return tuple(cts.get(i) for i in range(first, first + len(primals)))

    return out, pullback


def _held(value):
    """``value`` with each list, dict and NumPy array in it copied (tuples and records rebuilt around them):
    what a call that changes its arguments in place cannot reach."""
    if type(value) is list:
        return [_held(v) for v in value]
    if type(value) is tuple:
        return tuple(_held(v) for v in value)
    if type(value) is dict:
        return {k: _held(v) for k, v in value.items()}
    if type(value).__name__ == "ndarray":
        return value.copy()
    return value


def _of_primals(f, primals: tuple) -> Target:
    """The target of ``f`` with respect to every primal: the one grad shares where none is an integer,
    else one that leaves the integers out (they have no derivative)."""
    every = False
    for p in primals:  # (a loop, not any() of a generator: jvp of a small function in a loop)
        if not _floats(p) and all_integral(V.describe(p)):
            every = True
            break
    return target(f, tuple(range(len(primals))), primals, {}, every)


def _floats(value) -> bool:
    """Whether ``value`` is a float or an array of floats (no integer in it: nothing to describe)."""
    return type(value) is float or getattr(getattr(value, "dtype", None), "kind", None) == "f"


def jacfwd(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """``J(*args)``: the Jacobian, forward mode, shaped ``out.shape + in.shape`` per argument
    (``(J, aux)`` with ``has_aux``)."""
    argnums = as_argnums(argnums)
    return made(_jacobian(f, argnums, "forward", has_aux), "jacfwd", f, argnums, has_aux)


def jacrev(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """``J(*args)``: the Jacobian, reverse mode, shaped ``out.shape + in.shape`` per argument
    (``(J, aux)`` with ``has_aux``)."""
    argnums = as_argnums(argnums)
    return made(_jacobian(f, argnums, "reverse", has_aux), "jacrev", f, argnums, has_aux)


def _jacobian(f, argnums, mode, has_aux):
    def jac(*args, **kwargs):
        t = target(f, positions(argnums), args, kwargs)
        if t.rows is not None:
            return _jacobian_of_rows(t, argnums)
        d = t.d
        full, sig = d._bound(t.args, t.kwargs, flat=False)
        if has_aux:
            return _jacobian_with_aux(f, d, full, sig, argnums, mode)
        # of derivative code: forward over it, as hessian (the same numbers; reverse over NumPy code is not made)
        flat, out = jacobians(d, mode if t.restore is None else "forward")[1](*full)  # (out: the value, if at hand)
        if out is None or t.restore is not None:
            out = d.fn(*d._bind(full)) if t.restore is None else t.restore(d.fn(*full))
        given = d._bind(t.args, t.kwargs) if t.restore is None else None
        wrt = [given[i] for i in d._positions_of(sig)] if given is not None else _originals(t, args, kwargs, sig)
        return out_blocks(out, flat, 0, wrt, argnums, shaped)[0]

    return jac


def _jacobian_of_rows(t: Target, argnums):
    """The Jacobian of the Jacobian of a function of several output numbers, shaped as JAX gives it:
    for each output number, the Jacobian of its gradient (forward mode over the reverse code with that
    number's unit cotangent); the rows put in the order of the inner Jacobian's blocks by cutting an
    index matrix into them the same way."""
    import numpy as np

    inner, inner_argnums, sig = t.rows
    d0 = inner.d
    given = d0._bind(inner.args, inner.kwargs)  # records as records
    value = d0.fn(*given)
    flat_value = flatten(value, d0._built.facts(sig).summary.out)  # the cotangent the reverse code takes
    m = len(leaves(flat_value))
    rows = []
    for k in range(m):
        unit = rebuild(flat_value, iter([1.0 if j == k else 0.0 for j in range(m)]))
        rows.append(jacobian(t.d, mode="forward")(*t.args, unit)[m:])  # (its value's rows first)
    inner_wrt = [given[i] for i in d0._positions_of(sig)]
    n = sum(len(wrt_leaves(a)) for a in inner_wrt)
    layout = out_blocks(value, np.arange(m * n, dtype=float).reshape(m, n), 0, inner_wrt, inner_argnums, shaped)[0]
    stacked = np.concatenate(rows)[[int(i) for i in leaves(layout)]]
    return out_blocks(layout, stacked, 0, [given[i] for i in t.positions], argnums, shaped)[0]


def _originals(t: Target, args, kwargs, sig) -> list:
    """The arguments a transform of a transform differentiates, records as records (for the blocks'
    structure): rebuilt from the flat arguments the code takes with the records' abstract values."""
    from .trees import unflatten

    return [unflatten(t.args[i], t.avals[i]) for i in t.d._positions_of(sig)]


def _jacobian_with_aux(f, d, full, sig, argnums, mode):
    """``(Jacobian of the output, aux)`` of a function returning ``(output, aux)``: the Jacobian of the
    pair, its first part kept (the aux's rows are its own derivative, dropped)."""
    args = d._bind(full)
    out = d.fn(*args)
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TypeError(f"{name_of(f)} with has_aux=True must return (output, aux); it returned {out!r}")
    flat = jacobian(d, mode=mode)(*full)
    wrt = [args[i] for i in d._positions_of(sig)]
    return out_blocks(out[0], flat, 0, wrt, argnums, shaped)[0], out[1]


def ravel(tree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """``(vector, unravel)``: the numbers of a structure of floats and arrays (dicts, NamedTuples,
    dataclasses, lists, tuples) as one float vector, and the function giving the structure back from
    such a vector; what ``scipy.optimize`` takes (``jac=`` a gradient ravelled the same way)."""
    import numpy as np

    vector = np.array([float(x) for x in leaves(tree)], dtype=float)

    def unravel(flat):
        items = iter(float(x) for x in np.asarray(flat, dtype=float).ravel())
        return rebuild(tree, items)

    return vector, unravel


def hessian(f: Callable[..., Any], argnums: Argnums = 0, **wrt) -> Callable[..., Any]:
    """``H(*args)``: the Hessian of a scalar output with respect to the arguments at ``argnums``, as JAX
    gives it: ``in.shape + in.shape`` (a number for a number), the blocks ``H[i][j]`` shaped ``in_i.shape
    + in_j.shape`` as a tuple of tuples for a tuple of argnums, a record of records for a record.
    Forward mode over the generated reverse code; of another transform, ``jacfwd(jacrev(f))``.  The flat
    ``(n, n)`` matrix over ``wrt`` parameters is ``hessian_matrix``."""
    argnums = as_argnums(argnums)
    if wrt:
        raise TypeError(
            "adcompiler.hessian takes argnums, as JAX does, and gives JAX's shapes; the (n, n) matrix over the "
            f"scalars of the wrt parameters is adcompiler.hessian_matrix(f, wrt={wrt.get('wrt')!r})"
        )

    def hess(*args, **kwargs):
        t = target(f, positions(argnums), args, kwargs)
        if t.restore is not None or t.rows is not None:  # of another transform: the Jacobian of its Jacobian
            return jacfwd(jacrev(f, argnums), argnums)(*args, **kwargs)
        d = t.d
        full, sig = d._bound(t.args, t.kwargs, flat=False)
        if d._built.output_shape() is not None or not one_number(d._built.facts(sig).summary.out):
            return jacfwd(jacrev(f, argnums), argnums)(*args, **kwargs)  # each output's Hessian, as JAX gives
        flat = hessian_matrix(d)(*full)
        wrt = [full[i] for i in d._positions_of(sig)]
        like = shaped(tuple(map(gradient_like, wrt)) if len(wrt) > 1 else gradient_like(wrt[0]), argnums)
        return out_blocks(like, flat, 0, wrt, argnums, shaped, none_rows=0)[0]

    return made(hess, "hessian", f, argnums)


def hvp(f: Callable[..., Any], argnums: Argnums = 0, wrt: Any = None) -> Callable[..., Any]:
    """``product(args, v)``: the Hessian of ``f``'s scalar output (with respect to the arguments at
    ``argnums``) times ``v``, without forming the Hessian; ``v`` and the product are shaped like the
    argument at ``argnums`` (a tuple of them for a tuple).  ``args`` is the tuple of arguments, or the
    first argument itself followed by the others: ``product(x, v, *rest)`` is SciPy's ``hessp(x, p,
    *args)``; keywords are the function's (``product(x, v, reg=3.0)``).  ``wrt`` (parameter names or positions)
    is another spelling of ``argnums``."""
    which: Any = argnums if wrt is None else wrt if isinstance(wrt, (int, str)) else tuple(wrt)
    one = isinstance(which, (int, str))

    made: dict = {}  # f's function and parameters -> the product of its Differentiable at those places

    def product(args, v, *rest, **kwargs):
        if rest or not isinstance(args, tuple):
            args = (args, *rest)
        if type(f) is Differentiable:  # its parameters read now: the places, and their product, made once
            f._check_current()
            read = made.get("read", (None, None))
            if read[0] is not f.fn or read[1] is not f.params:  # (a function or parameters read again: anew)
                made.update(read=(f.fn, f.params), product=hvp_of(target(f, _places(f, which), args, {}).d))
            args = f._bind(args, kwargs) if kwargs else args  # (keywords at the call: reg=3.0)
            result = made["product"](args, (v,) if one else v)
            return result[0] if one else result
        t = target(f, _places(f, which), args, kwargs)
        refuse_rows(t, "hvp")
        bound = t.d._bind(t.args, t.kwargs) if t.kwargs else t.args  # (a partial's keywords: reg=3.0)
        result = hvp_of(t.d)(bound, (v,) if one else v)
        return result[0] if one else result

    product.__name__ = f"hvp_of_{name_of(f)}"
    return product


def _places(f, argnums) -> tuple:
    """``argnums`` as positions, names (``hvp``'s ``wrt``) read as the positions of ``f``'s parameters."""
    items = (argnums,) if isinstance(argnums, (int, str)) else tuple(argnums)
    if all(isinstance(a, int) for a in items):
        return items
    import inspect

    if type(f) is Differentiable:  # its parameters as it reads them now (inspect.signature's answer, sooner)
        params = tuple(f.params)
    else:
        params = tuple(inspect.signature(f).parameters)
    return tuple(params.index(a) if isinstance(a, str) else a for a in items)


def zeros_like(value):
    """A zero cotangent of the structure of ``value`` (numbers, arrays, and records, lists and tuples of
    them; None for a value with no derivative: None, a string, an integer)."""
    items = fields(value)
    if items is not None:
        return make(type(value), tuple(items), [zeros_like(v) for v in items.values()])
    if isinstance(value, (list, tuple)):
        made_ = [zeros_like(v) for v in value]
        return made_ if isinstance(value, list) else tuple(made_) if type(value) is tuple else type(value)(*made_)
    if integer(value) or value is None or isinstance(value, str):
        return None
    if hasattr(value, "shape"):
        import numpy as np

        return np.zeros(np.shape(value), dtype=float_dtype(np, [value]))
    return 0.0


def _inner(callee, given: tuple):
    """What a call of ``callee`` inside a differentiated function runs (``lower.nested``): the generated
    code of the derivative it computes, or a refusal; None when ``callee`` is no derivative."""
    of = getattr(callee, TRANSFORM, None)
    owner = getattr(callee, "__self__", None)
    if of is not None and not given:
        kind, f, argnums, has_aux = of.kind, of.f, of.argnums, of.has_aux
        text = f"adcompiler.{kind}({name_of(f)})"
        if getattr(f, TRANSFORM, None) is not None:  # grad(grad(f)): of the inner derivative's generated code
            inner = _inner(f, ())
            if inner is None or inner.refusal is not None or inner.kind != "call" or inner.wrap is not None:
                return (
                    inner
                    if inner is not None and inner.refusal is not None
                    else Inner(
                        None, refusal=(f"{text} of that derivative called inside a differentiated function", _NESTED)
                    )
                )
            f = inner.function
        if kind == "hessian" or has_aux or instance_of(f)[1] is not None:
            why = "with has_aux=True" if has_aux else "of a method" if kind != "hessian" else ""
            return Inner(
                None, refusal=(f"{text} {why} called inside a differentiated function".replace("  ", " "), _NESTED)
            )
        d = differentiable(f, positions(argnums))
        one = not isinstance(argnums, int) and len(argnums) == 1
        return _generated(d, kind, text, wrap=f"{kind}1" if one else None)
    if isinstance(owner, Differentiable) and callee.__name__ in ("grad", "value_and_grad", "jvp", "vjp") and not given:
        text = f"{callee.__name__} of differentiate({owner.fn.__name__})"
        if callee.__name__ == "vjp":
            return Inner(None, refusal=(f"{text} called inside a differentiated function", _NESTED))
        if callee.__name__ == "jvp":
            return _generated(owner, "forward", text, kind="jvp")
        return _generated(owner, callee.__name__, text)
    if callee in (jvp, vjp) and given:
        f = given[0]
        text = f"adcompiler.{callee.__name__}({name_of(f)}, ...)"
        if callee is vjp:
            return Inner(None, refusal=(f"{text} called inside a differentiated function (its pullback)", _NESTED))
        inner = _inner(f, ()) if callable(f) else None  # jvp of a derivative: of its generated code
        if inner is not None and (inner.refusal is not None or inner.kind != "call" or inner.wrap is not None):
            return Inner(None, refusal=(f"{text} of that derivative called inside a differentiated function", _NESTED))
        fn = inner.function if inner is not None else f
        if not isinstance(fn, types.FunctionType) or instance_of(fn)[1] is not None:
            return Inner(None, refusal=(f"{text} of other than a function defined with def", _NESTED))
        d = differentiable(fn, tuple(range(len(inspect.signature(fn).parameters))))
        return _generated(d, "forward", text, kind="jvp")
    return None


_NESTED = (
    "write the inner derivative as adcompiler.grad(f)(...), adcompiler.value_and_grad(f)(...) or "
    "adcompiler.jvp(f, (x, ...), (dx, ...)) of a function f defined with def"
)


def _generated(d: Differentiable, mode: str, text: str, kind: str = "call", wrap=None) -> Inner:
    """The generated code of ``d`` for ``mode`` (for the signature its code assumes), as the callee of a
    nested derivative call; ``listed(positions)``: the code for the same signature but for the parameters
    at ``positions`` lists of numbers, where the call passes lists there."""
    if not d.target.nests:
        return Inner(None, refusal=(f"{text} with backend={d.backend!r} inside a differentiated function", _NESTED))
    with d._building:
        keyed = read_by_key(d.program, d.fn)
    if keyed is not None:  # a dict (or record) parameter: the inner code is built for numbers, arrays and lists
        param, key = keyed
        construct = f"{text}, whose function reads its parameter {param} by key ({param}[{key!r}]), inside a differentiated function"
        remedy = (
            f"hand {d.fn.__name__} the values as parameters of their own, or take that derivative outside the function"
        )
        return Inner(None, refusal=(construct, remedy))
    assumed, sig = _nested_signature(d)
    if mode in ("grad", "value_and_grad"):
        d._require_scalar(mode, sig)

    def listed(positions: frozenset):
        kept = (assumed.avals[k] if k in positions else a for k, a in enumerate(sig.avals))
        return d._built.function(mode, V.Sig(tuple(kept)))

    function = d._built.function(mode, sig)
    arrays = tuple(k for k, a in enumerate(sig.avals) if not isinstance(a, V.Seq))  # (a list there: refused)
    function.__adc_arrays_only__ = arrays + tuple(k + len(sig.avals) for k in arrays if kind == "jvp")
    return Inner(function, kind, wrap, listed=listed, told=second_order_of)


def _nested_signature(d: Differentiable) -> tuple:
    """The signature a nested derivative's code is generated for: the one ``adc compile`` assumes from
    the code's use of each parameter, a parameter it reads as a list of numbers (``x[0] * x[0]``) taken
    for a number or array of any shape (NumPy arrays are what code differentiated twice is handed, and
    what a call passes unless it passes a list it makes: ``_generated``'s ``listed``).  Not the last
    call's: the code built must not depend on which call ran first.  (assumed, that signature)"""
    with d._building:
        assumed = assumed_signature(d.program, d.fn)
    numeric = (
        V.NUMERIC if isinstance(a, V.Seq) and all(isinstance(i, V.Num) for i in a.items or ()) and a.items else a
        for a in assumed.avals
    )
    return assumed, V.Sig(tuple(numeric))


INNER.append(_inner)
for _transform, _how in ((grad, "call"), (value_and_grad, "call"), (hessian, "call"), (jvp, "first"), (vjp, "first")):
    setattr(_transform, "__adc_static__", _how)  # how lower.nested reads a call of it in a differentiated function
for _transform in (grad, value_and_grad, hessian):  # of a local function: its argnums moved past what it reads
    setattr(_transform, "__adc_closes__", True)  # of the enclosing one (lower.nested.closed_over)

__all__ = ["grad", "hessian", "hvp", "jacfwd", "jacrev", "jvp", "ravel", "value_and_grad", "vjp"]
