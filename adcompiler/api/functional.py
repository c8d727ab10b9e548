"""JAX-style functions of functions: ``grad``, ``value_and_grad``, ``jvp``, ``vjp``, ``jacfwd``, ``jacrev``.

Each is a spelling of ``differentiate`` a JAX or autograd user guesses right: ``argnums`` is an int or
a tuple of positions (an int gives one result, a tuple a tuple of them, as in JAX), ``has_aux`` lets
``f`` return ``(output, aux)`` with ``aux`` handed back untouched.  They share one ``Differentiable``
per function and ``argnums``, so a function is transformed once per specialisation whichever of them
is called.
"""

from __future__ import annotations

import inspect
import threading
import types
import weakref
from typing import Any, Callable, Sequence, Union

from .differentiable import Differentiable, differentiate
from .higher import hessian as flat_hessian
from .higher import float_dtype, integer, jacobian, leaves, rebuild, wrt_leaves
from ..analysis import values as V
from .trees import all_integral, fields, make
from .methods import instance_of
from ..analysis.assume import assumed_signature
from ..compile.pipeline import BUILDING
from ..lower.nested import INNER, Inner

Argnums = Union[int, Sequence[int]]  # one position (one result) or a tuple of them (a tuple of results)
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # function -> {wrt: Differentiable}
_LOCK = threading.Lock()


def grad(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """``g(*args)``: the gradient of ``f``'s scalar output with respect to the arguments at ``argnums``
    (``(gradient, aux)`` with ``has_aux``)."""
    fn, obj = instance_of(f)
    if obj is not None:  # model.loss: the instance is the function's first argument
        return _with_instance(grad(fn, _past_self(argnums), has_aux), obj, f"grad_of_{_name(fn)}")
    both = value_and_grad(f, argnums, has_aux)

    def gradient(*args, **kwargs):
        if has_aux:
            (_, aux), g = both(*args, **kwargs)
            return g, aux
        return _shaped(_differentiable(f, argnums).grad(*args, **kwargs), argnums)

    gradient.__name__ = f"grad_of_{_name(f)}"
    gradient.__adc_of__ = ("grad", f, argnums, has_aux)  # called inside a differentiated function: _inner
    return gradient


def value_and_grad(f: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Callable[..., Any]:
    """``g(*args)``: ``(value, gradient)``, or ``((value, aux), gradient)`` with ``has_aux``, as JAX gives."""
    fn, obj = instance_of(f)
    if obj is not None:
        return _with_instance(value_and_grad(fn, _past_self(argnums), has_aux), obj, f"value_and_grad_of_{_name(fn)}")

    def both(*args, **kwargs):
        d = _differentiable(f, argnums)
        if not has_aux:
            value, g = d.value_and_grad(*args, **kwargs)
            return value, _shaped(g, argnums)
        args = d._bind(args, kwargs)
        out = d.fn(*args)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError(f"{_name(f)} with has_aux=True must return (output, aux); it returned {out!r}")
        value, aux = out
        (value, aux), cts = d.vjp(args, (1.0, _zeros_like(aux)))
        return (value, aux), _shaped(cts if len(d.wrt) > 1 else cts[0], argnums)

    both.__name__ = f"value_and_grad_of_{_name(f)}"
    both.__adc_of__ = ("value_and_grad", f, argnums, has_aux)
    return both


def jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    """``(output, output tangent)`` of ``f`` at ``primals`` along ``tangents`` (one per primal; an
    integer primal's, which has no derivative, None or 0)."""
    fn, obj = instance_of(_derivative_code(f))
    first = 0 if obj is None else 1  # a bound method's instance: its first argument, not differentiated
    primals = (obj,) * first + tuple(primals)
    return _of_primals(fn, first, primals).jvp(primals, tuple(tangents))


def _derivative_code(f):
    """For ``grad(g)`` / ``value_and_grad(g)`` (an int or a longer tuple ``argnums``), the generated code
    it runs, which forward mode differentiates (``jvp(grad(g), ...)``: a Hessian-vector product, as
    inside a differentiated function: ``lower.nested``); ``f`` itself for anything else."""
    if getattr(f, "__adc_of__", None) is None:
        return f
    inner = _inner(f, ())
    return inner.function if inner is not None and inner.refusal is None and inner.wrap is None else f


def vjp(f: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """``(output, pullback)``: ``pullback(ct)`` is the tuple of cotangents of every primal, None for an
    integer (the primal sweep runs again when it is called: the output is computed first, as JAX
    returns it first)."""
    fn, obj = instance_of(f)
    first = 0 if obj is None else 1  # a bound method's instance: its first argument, not differentiated
    primals = (obj,) * first + tuple(primals)
    d = _of_primals(fn, first, primals)
    out = d.fn(*primals)

    def pullback(ct):
        cts = dict(zip(d._positions_of(d._bound(primals)[1]), d.vjp(primals, ct)[1]))
        return tuple(cts.get(i) for i in range(first, len(primals)))

    return out, pullback


def jacfwd(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``J(*args)``: the Jacobian, forward mode, shaped ``out.shape + in.shape`` per argument."""
    return _jacobian(f, argnums, "forward")


def jacrev(f: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``J(*args)``: the Jacobian, reverse mode, shaped ``out.shape + in.shape`` per argument."""
    return _jacobian(f, argnums, "reverse")


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


def hessian(f: Callable[..., Any], wrt: Any = None, argnums: Argnums | None = None) -> Callable[..., Any]:
    """``H(*args)``: with ``argnums`` (an int or a tuple, as in JAX), the Hessian of a scalar output
    shaped ``in.shape + in.shape``, a tuple of tuples of blocks ``H[i][j]`` shaped ``in_i.shape +
    in_j.shape`` for a tuple of argnums; without it, the (n, n) matrix over the ``wrt`` parameters'
    scalars (``adcompiler.api.higher.hessian``)."""
    if argnums is None:
        return flat_hessian(f, wrt)
    fn, obj = instance_of(f)
    if obj is not None:
        return _with_instance(hessian(fn, argnums=_past_self(argnums)), obj, f"hessian_of_{_name(fn)}")

    def hess(*args):
        import numpy as np

        d = _differentiable(f, argnums)
        args = d._bind(args)
        flat = flat_hessian(d)(*args)
        shapes = [np.shape(args[i]) for i in d._positions]
        if any(fields(args[i]) is not None or isinstance(args[i], (list, tuple)) for i in d._positions):
            raise TypeError(
                f"hessian with argnums of {_name(f)}: give arrays or numbers (or use wrt= for the flat matrix)"
            )
        edges = np.cumsum([0] + [int(np.prod(s)) for s in shapes])
        rows = tuple(
            tuple(
                flat[edges[i] : edges[i + 1], edges[j] : edges[j + 1]].reshape(si + sj) for j, sj in enumerate(shapes)
            )
            for i, si in enumerate(shapes)
        )
        return rows[0][0] if isinstance(argnums, int) else rows

    hess.__name__ = f"hessian_of_{_name(f)}"
    hess.__adc_of__ = ("hessian", f, argnums, False)
    return hess


def _jacobian(f, argnums, mode):
    fn, obj = instance_of(f)
    if obj is not None:
        return _with_instance(_jacobian(fn, _past_self(argnums), mode), obj, f"jac{mode[:3]}_of_{_name(fn)}")

    def jac(*args):
        d = _differentiable(f, argnums)
        args, sig = d._bound(args, flat=False)
        flat = jacobian(d, mode=mode)(*args)
        wrt = [args[i] for i in d._positions_of(sig)]
        blocks, _ = _out_blocks(d.fn(*args), flat, 0, wrt, argnums)
        return blocks

    jac.__name__ = f"jac{mode[:3]}_of_{_name(f)}"
    return jac


def _out_blocks(out, flat, row: int, wrt: list, argnums) -> tuple:
    """``(Jacobian, next row)``: the rows of ``flat`` from ``row`` on for the output ``out``, in its
    structure as JAX gives it: a record, tuple or list of parts (a list of numbers is one array) holding
    for each output array or number the blocks of the arguments (a tuple of them for a tuple argnums)."""
    import numpy as np

    if _structure(out):
        items = fields(out)
        parts, made = list(items.values()) if items is not None else list(out), []
        for part in parts:
            block, row = _out_blocks(part, flat, row, wrt, argnums)
            made.append(block)
        if items is not None:
            return make(type(out), tuple(items), made), row
        return (tuple(made) if isinstance(out, tuple) else made), row
    m, per_arg, col = len(leaves(out)), [], 0
    for a in wrt:
        n = len(wrt_leaves(a))
        per_arg.append(_block(flat[row : row + m, col : col + n], np.shape(out), a, out))
        col += n
    return _shaped(tuple(per_arg) if len(per_arg) > 1 else per_arg[0], argnums), row + m


def _block(columns, out_shape: tuple, like, out):
    """The Jacobian block of one argument, ``out_shape + like.shape``, of the dtype of the derivative
    of ``out`` by ``like`` (float32 for both float32); for a record (a dict, NamedTuple or dataclass),
    a tuple or a list of parts, the same structure of blocks, as JAX gives; None for an integer."""
    import numpy as np

    if integer(like):
        return None
    if not _structure(like):
        return columns.reshape(out_shape + np.shape(like)).astype(float_dtype(np, [out, like]), copy=False)
    items = fields(like)
    parts, blocks, col = list(items.values()) if items is not None else list(like), [], 0
    for value in parts:
        n = len(wrt_leaves(value))
        blocks.append(_block(columns[:, col : col + n], out_shape, value, out))
        col += n
    if items is not None:
        return make(type(like), tuple(items), blocks)
    return tuple(blocks) if isinstance(like, tuple) else blocks


def _structure(value) -> bool:
    """Whether a Jacobian has ``value``'s structure (a record, a tuple, a list of anything but floats
    and such lists) rather than its shape (a number, an array, a list of floats: NumPy's array)."""
    if fields(value) is not None or isinstance(value, tuple):
        return True
    return isinstance(value, list) and not _floats(value)


def _floats(value) -> bool:
    """A list of numbers with a float among them (a list of floats: its ints are joined to floats), or of
    such lists."""
    if not isinstance(value, list) or not value:
        return False
    kinds = set(map(type, value))
    return float in kinds and kinds <= {float, int, bool} or all(_floats(v) for v in value)


def _past_self(argnums):
    """A bound method's ``argnums`` as positions of its function, whose first argument is the instance."""
    return argnums + 1 if isinstance(argnums, int) else tuple(a + 1 for a in argnums)


def _with_instance(transformed, obj, name: str):
    """``transformed`` (of a method's function) called with the instance first."""

    def call(*args, **kwargs):
        return transformed(obj, *args, **kwargs)

    call.__name__ = name
    return call


def _of_primals(fn, first: int, primals: tuple) -> Differentiable:
    """The ``Differentiable`` of ``fn`` with respect to every primal from ``first`` on: the one grad
    shares where none is an integer, else one that leaves the integers out (they have no derivative)."""
    every = any(all_integral(V.describe(p)) for p in primals[first:])
    return _differentiable(fn, tuple(range(first, len(primals))), every)


def _differentiable(f, argnums, every=False) -> Differentiable:
    """The one ``Differentiable`` of ``f`` with respect to the parameters at ``argnums``; ``every``: those
    of every primal (jvp, vjp), an integer left out as by default (``api.Differentiable._wrt_of``)."""
    fn = f.fn if isinstance(f, Differentiable) else f
    positions = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    with _LOCK:
        table = _CACHE.setdefault(fn, {})
        key = (positions, "every") if every else positions
        if key not in table:
            table[key] = d = differentiate(fn, wrt=positions)
            d.wrt_given = not every
        return table[key]


def _inner(callee, given: tuple):
    """What a call of ``callee`` inside a differentiated function runs (``lower.nested``): the generated
    code of the derivative it computes, or a refusal; None when ``callee`` is no derivative."""
    of = getattr(callee, "__adc_of__", None)
    owner = getattr(callee, "__self__", None)
    if of is not None and not given:
        kind, f, argnums, has_aux = of
        text = f"adcompiler.{kind}({_name(f)})"
        if kind == "hessian" or has_aux or instance_of(f)[1] is not None:
            why = "with has_aux=True" if has_aux else "of a method" if kind != "hessian" else ""
            return Inner(
                None, refusal=(f"{text} {why} called inside a differentiated function".replace("  ", " "), _NESTED)
            )
        d = _differentiable(f, argnums)
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
        text = f"adcompiler.{callee.__name__}({_name(f)}, ...)"
        if callee is vjp:
            return Inner(None, refusal=(f"{text} called inside a differentiated function (its pullback)", _NESTED))
        inner = _inner(f, ()) if callable(f) else None  # jvp of a derivative: of its generated code
        if inner is not None and (inner.refusal is not None or inner.kind != "call" or inner.wrap is not None):
            return Inner(None, refusal=(f"{text} of that derivative called inside a differentiated function", _NESTED))
        fn = inner.function if inner is not None else f
        if not isinstance(fn, types.FunctionType) or instance_of(fn)[1] is not None:
            return Inner(None, refusal=(f"{text} of other than a function defined with def", _NESTED))
        d = _differentiable(fn, tuple(range(len(inspect.signature(fn).parameters))))
        return _generated(d, "forward", text, kind="jvp")
    return None


_NESTED = (
    "write the inner derivative as adcompiler.grad(f)(...), adcompiler.value_and_grad(f)(...) or "
    "adcompiler.jvp(f, (x, ...), (dx, ...)) of a function f defined with def"
)


def _generated(d: Differentiable, mode: str, text: str, kind: str = "call", wrap=None) -> Inner:
    """The generated code of ``d`` for ``mode`` (for the signature of its last call, or the one its code
    assumes), as the callee of a nested derivative call."""
    if d.backend != "python" or d.arrays != "numpy":
        return Inner(None, refusal=(f"{text} with backend={d.backend!r} inside a differentiated function", _NESTED))
    sig = _nested_signature(d)
    if mode in ("grad", "value_and_grad"):
        d._require_scalar(mode, sig)
    return Inner(d._function(mode, sig), kind, wrap)


def _nested_signature(d: Differentiable) -> V.Sig:
    """The signature a nested derivative's code is generated for: the one ``adc compile`` assumes from
    the code's use of each parameter, a parameter it reads as a list of numbers (``x[0] * x[0]``) taken
    for a number or array of any shape (NumPy arrays are what code differentiated twice is handed; a
    list argument is refused by the code's own check).  Not the last call's: the code built must not
    depend on which call ran first."""
    with BUILDING:
        assumed = assumed_signature(d.program, d.fn)
    numeric = (
        V.NUMERIC if isinstance(a, V.Seq) and all(isinstance(i, V.Num) for i in a.items or ()) and a.items else a
        for a in assumed.avals
    )
    return V.Sig(tuple(numeric))


def _shaped(g, argnums):
    """One gradient for an int ``argnums``, a tuple of them for a tuple (even of one), as JAX gives."""
    if isinstance(argnums, int):
        return g
    return g if len(argnums) > 1 else (g,)


def _zeros_like(value):
    """A zero cotangent of the structure of ``value`` (numbers, arrays, and records, lists and tuples of
    them; None for a value with no derivative: None, a string, an integer)."""
    items = fields(value)
    if items is not None:
        return make(type(value), tuple(items), [_zeros_like(v) for v in items.values()])
    if isinstance(value, (list, tuple)):
        return type(value)(_zeros_like(v) for v in value)
    if integer(value) or value is None or isinstance(value, str):
        return None
    if hasattr(value, "shape"):
        import numpy as np

        return np.zeros(np.shape(value), dtype=float_dtype(np, [value]))
    return 0.0


def _name(f) -> str:
    return getattr(f, "__name__", type(f).__name__)


INNER.append(_inner)
grad.__adc_static__ = value_and_grad.__adc_static__ = hessian.__adc_static__ = "call"  # (lower.nested)
jvp.__adc_static__ = vjp.__adc_static__ = "first"

__all__ = ["grad", "jacfwd", "jacrev", "jvp", "value_and_grad", "vjp"]
