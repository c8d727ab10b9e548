"""What a call's arguments, tangents and cotangents must look like: the checks behind the API's
clear errors, and the tangent a zero becomes."""

from __future__ import annotations

import functools
import sys

from ..analysis import values as V
from ..analysis.show import show
from ..errors import UnsupportedSyntaxError
from ..front.parse import parse_function
from ..front.scopes import integer_only
from .entries import tangent_mismatch
from .trees import (
    all_integral,
    any_records,
    constant_argument,
    converts,
    flatten_given,
    none_as_zero,
    plain,
    zero_integers,
)


def zeros_for(value, tangent):
    """The tangent 0 of an array as zeros of its shape: the number would broadcast (np.dot(0, y) is an array)."""
    if type(value).__name__ == "ndarray" and not hasattr(tangent, "shape"):
        return sys.modules["numpy"].zeros_like(value, dtype=float) + tangent
    return tangent


def tangent_like(value, tangent, aval) -> bool:
    """Whether a tangent is what the fast entry of jvp takes for a parameter of abstract value
    ``aval``: a float for a float, an array of the same shape for an array, a list or tuple of the
    same structure for a list (the entry checks that as the method does, with ``tangent_mismatch``)."""
    if isinstance(aval, V.Arr):
        return type(tangent) is type(value) and tangent.shape == value.shape
    if isinstance(aval, V.Seq):
        return not tangent_mismatch(value, tangent)
    return isinstance(tangent, float)


def all_floats(values) -> bool:
    """Whether every value is a float (the arguments of the fast paths: nothing to check or refuse)."""
    for v in values:
        if type(v) is not float:
            return False
    return True


def ct_mismatch(out, ct) -> str:
    """Why ``ct`` cannot be a cotangent of an output of abstract value ``out`` (tuples for the tuples a
    function returns, a list or tuple for a list, a number or an array for a number or an array), or ""."""
    if isinstance(out, tuple):
        if not isinstance(ct, (tuple, list)) or len(ct) != len(out):
            return f"the function returns a tuple of {len(out)} values, so ct must be a tuple of {len(out)} cotangents, not {ct!r}"
        return next((p for p in (ct_mismatch(o, c) for o, c in zip(out, ct)) if p), "")
    if isinstance(out, V.Seq) and not isinstance(ct, (list, tuple)):
        return f"the output is {show(out)}, so its cotangent is a list of the same length, not {ct!r}"
    if isinstance(out, (V.Num, V.Arr)) and isinstance(ct, (list, tuple)):
        return f"the output is {show(out)}, so its cotangent is a number or an array, not {ct!r}"
    if isinstance(out, (V.Num, V.Arr, V.Numeric)) and not _numeric(ct):
        return f"the output is {show(out)}, so its cotangent is a number or an array of numbers, not {ct!r}"
    ndim = getattr(ct, "ndim", 0)
    if isinstance(out, V.Arr) and out.ndim is not None and ndim and ndim != out.ndim or isinstance(out, V.Num) and ndim:
        return f"the output is {show(out)}, but its cotangent is an array of {ndim} dimensions"
    return ""


def _numeric(ct) -> bool:
    """A real number or an array of them (of any library: the standard's arrays have a dtype too)."""
    if type(ct) in (float, int, bool):
        return True
    name = str(getattr(ct, "dtype", "")).rpartition(".")[2]
    return name.startswith(("float", "int", "uint", "bool"))


def ct_shapes(name: str, ct, value) -> None:
    """A ValueError where an array in vjp's output cotangent ``ct`` is not of the shape of the output's
    value there (``value()``: the output, records as tuples), which NumPy would broadcast or refuse."""
    if not _holds_array(ct):
        return
    problem = _shape_problem(ct, value(), "")
    if problem:
        raise ValueError(f"{name}.vjp: the output cotangent does not match the output: {problem}")


def _holds_array(ct) -> bool:
    if isinstance(ct, (list, tuple)):
        return any(_holds_array(c) for c in ct)
    return getattr(ct, "ndim", 0) > 0


def _shape_problem(ct, value, where: str) -> str:
    if isinstance(ct, (list, tuple)) and isinstance(value, (list, tuple)):
        return next((p for k, (c, v) in enumerate(zip(ct, value)) if (p := _shape_problem(c, v, f"{where}[{k}]"))), "")
    shape = tuple(getattr(value, "shape", ()))
    if getattr(ct, "ndim", 0) > 0 and tuple(ct.shape) != shape:
        kind = f"has shape {shape}" if shape else "is a number"
        return f"the output{where} {kind}, but its cotangent has shape {tuple(ct.shape)}"
    return ""


def checked_tangents(name: str, params: tuple, positions: tuple, args, sig: V.Sig, tangents, derived) -> tuple:
    """jvp's tangents as the generated code takes them: one per wrt parameter, records as tuples (for
    derivative code, ``derived``, by their own structure), each with its value's structure, the zero
    of an array as zeros of its shape; else a ValueError that says which one does not match."""
    if len(tangents) != len(positions):
        wrt = ", ".join(params[i] for i in positions)
        raise ValueError(f"{name}.jvp: expected {len(positions)} tangents (for {wrt}), got {len(tangents)}")
    where = f"{name}.jvp: the tangent for"
    if derived is not None:
        tangents = tuple(plain(t) for t in tangents)
    elif any_records(sig.avals):
        tangents = tuple(flatten_given(t, sig.avals[i], f"{where} {params[i]}") for i, t in zip(positions, tangents))
    if all_floats(tangents) and all_floats(args):
        return tangents
    if converts([sig.avals[i] for i in positions]):  # an integer inside a record, list or tuple: its tangent is 0
        tangents = tuple(
            zero_integers(t, args[i], sig.avals[i], f"{where} {params[i]}") for i, t in zip(positions, tangents)
        )
    for i, t in zip(positions, tangents):
        problem = tangent_mismatch(args[i], t)
        if problem:
            raise ValueError(f"{name}.jvp: the tangent for {params[i]} does not match its value: {problem}")
    return tuple(zeros_for(args[i], t) for i, t in zip(positions, tangents))


def checked_ct(name: str, out, ct, records: bool, derived):
    """vjp's output cotangent as the generated code takes it (records as tuples), else a ValueError."""
    if derived is not None:
        ct = plain(ct)
    elif records:
        ct = flatten_given(ct, out, f"{name}.vjp: the output cotangent")
    if isinstance(out, tuple) or converts((out,)):  # None for an output with no derivative: 0.0
        ct = none_as_zero(ct, out)
    problem = ct_mismatch(out, ct)
    if problem:
        raise ValueError(f"{name}.vjp: the output cotangent does not match the output: {problem}")
    return ct


def require_scalar(name: str, what: str, shape, out) -> None:
    """Refuse ``grad`` of a function whose output is not one number (a tuple, a list, an array of
    one or more dimensions): its gradient would be of the sum of the outputs, silently.  ``shape``:
    the output's tuple structure (None: one value); ``out()``: the output's abstract value."""
    if shape is not None:
        raise TypeError(f"{name}.{what} needs one output; {name} returns a tuple: use vjp (or jvp) instead")
    out = out()
    if isinstance(out, V.Seq) or isinstance(out, V.Arr) and out.ndim not in (0, None):
        raise TypeError(
            f"{name}.{what} needs a number as the output; {name} returns {show(out)}: "
            f"use vjp with a cotangent of its shape (or adcompiler.jacobian)"
        )


def require_number(name: str, what: str, out: V.Aval) -> None:
    """Refuse ``grad`` of a function returning a string, None or a truth value (its gradient was 0.0): checked
    once its code is built, so that a function that may end without a return is refused at its line first."""
    if isinstance(out, V.Static) or out == V.Num("bool"):  # a string, None, a truth value: no derivative to take
        kind = {"none": "None", "str": "a string"}.get(
            getattr(out, "what", ""), "a truth value" if out == V.Num("bool") else "a value of no number"
        )
        raise TypeError(f"{name}.{what} needs a number as the output; {name} returns {kind}, which has no derivative")


def active_tangents(name: str, tangents: tuple, wrts: tuple, active: tuple) -> tuple:
    """jvp's tangents for the parameters differentiated (``active``, of the default wrt those whose
    argument is no integer): one per active parameter, or one per parameter of one of ``wrts`` (the
    default wrt; those of it the call passes) where that of an integer argument (a constant) is None
    or 0 and is left out."""
    wrt = next((w for w in wrts if len(w) == len(tangents) and set(active) <= set(w)), None)
    if len(tangents) == len(active) or wrt is None:
        return tangents
    for w, t in zip(wrt, tangents):
        if w not in active and not (t is None or type(t) in (int, float) and t == 0):
            raise ValueError(
                f"{name}.jvp: the argument for {w} is an integer, a constant (integers have no derivative): "
                f"give its tangent as None or 0, or leave it out ({len(active)} tangents, for {', '.join(active)})"
            )
    return tuple(t for w, t in zip(wrt, tangents) if w in active)


def refuse_not_differentiable(fn, params: tuple, wrt: tuple, positions: tuple, values: tuple) -> None:
    """A TypeError for the first argument at ``positions`` that cannot be differentiated (an integer, a
    complex number), which says what to pass instead or how to leave it out of ``wrt``."""
    for i in positions:
        problem = not_differentiable(values[i])
        if problem:
            others = tuple(  # (the parameters differentiated whose arguments can be: not another integer)
                w
                for w in wrt
                if w != params[i] and not (w in params[: len(values)] and not_differentiable(values[params.index(w)]))
            )
            leave = f"leave it out with differentiate({fn.__name__}, wrt={others!r}), or " if others else ""
            raise TypeError(
                f"{fn.__name__}: cannot differentiate with respect to {params[i]}, {problem}: "
                + leave
                + real_remedy(values[i])
            )


def not_differentiable(value) -> str:
    """Why a value cannot be differentiated with respect to ("" if it can): integers and booleans (not
    real numbers), complex numbers (the derivative of a function that is not holomorphic has no one
    meaning), and arrays of those dtypes, and lists and tuples (records as tuples) of integers only;
    NumPy's scalars are named as such, not as arrays."""
    if type(value) in (int, bool):
        return f"the integer {value!r}"
    if isinstance(value, (list, tuple)) and all_integral(V.describe(value)):
        return f"a {type(value).__name__} of integers only"
    if isinstance(value, complex):
        return f"the complex number {value!r} (complex arguments are not supported)"
    dtype = getattr(value, "dtype", None)
    name = str(dtype).rpartition(".")[2]  # another library's dtype (array-api-strict's) has no kind
    kind = getattr(dtype, "kind", None) or ("b" if name == "bool" else "c" if "complex" in name else "f")
    kind = "i" if kind == "f" and "int" in name else kind
    if kind not in "iubc":
        return ""
    what = "a NumPy scalar" if type(value).__module__ == "numpy" and type(value).__name__ != "ndarray" else "an array"
    if kind == "c":
        return f"{what} of {dtype} (complex arguments are not supported)"
    return f"{what} of {dtype}"


def as_sequence(value, what: str, fn: str, method: str, names: tuple) -> tuple:
    """``primals`` or ``tangents`` as a tuple, or a TypeError that shows the call's form."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    try:
        return tuple(value)
    except TypeError:

        def tup(items):
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"

        second = tup(["d" + n for n in names]) if method == "jvp" else "ct"
        first = tup(list(names)) if what == "primals" else "(...)"
        each = "parameter" if what == "primals" else "wrt parameter"
        raise TypeError(
            f"{fn}.{method} takes {what} as a tuple, one per {each}: {fn}.{method}({first}, {second}); got {value!r}"
        ) from None


def refusal(fn) -> tuple:
    """``(parsed, error)``: ``fn`` parsed (None without source or past the fence), and the located error
    the fence gives it (a construct outside the subset) or None: raised before anything is checked of
    a call's arguments, whichever entry point is called.  Without source, building says so."""
    try:
        return parse_function(fn), None
    except UnsupportedSyntaxError as exc:
        return None, exc
    except (SyntaxError, OSError, TypeError):
        return None, None


def refuse_shared_writes(fn, params: tuple, sig: V.Sig, facts) -> None:
    """The same list passed as two parameters, one of which the function writes into, has no
    derivative with respect to each parameter: refuse it (a helper called so is handled).
    ``facts()``: what the analysis knows of ``fn`` for arguments of signature ``sig``."""
    shared = [i for i in range(len(sig.avals)) if sig.aliased(i)]
    if not shared and not sig.repeated:
        return
    summary = facts().summary
    twice = next((params[i] for i in sig.repeated if summary.written[i]), None)
    if twice is not None:
        raise ValueError(
            f"{fn.__name__}: the argument for {twice} holds one list twice (as [row] * n or [row, row] make), and "
            f"{fn.__name__} changes it; pass one list per row ([[0.0] * m for _ in range(n)])"
        )
    if not shared:
        return
    written = [params[i] for i in shared if summary.written[i]]
    if written:
        others = [params[j] for j in shared if sig.alias[j] == sig.alias[params.index(written[0])]]
        raise ValueError(
            f"{fn.__name__}: the arguments for {', '.join(others)} share a list, and {fn.__name__} "
            f"changes it through {written[0]}; pass a copy (list(...)) for one of them"
        )


def constant_integers(wrt: tuple, params: tuple, sig: V.Sig) -> tuple:
    """The default ``wrt`` for a call of signature ``sig``: ``wrt`` without the parameters whose
    argument is an integer (an int, a bool, a NumPy integer, an integer array, or a list, tuple or
    record of integers only) or a string, as JAX refuses integers as inputs of grad: ``def pend(theta, n=200)``
    then ``pend.grad(0.5)`` is the number d/dtheta.  When every one is an integer, ``wrt`` itself
    (so that the refusal names them)."""
    kept = tuple(w for w in wrt if not constant_argument(sig.avals[params.index(w)]))
    return kept or wrt


def default_wrt(parsed, params: tuple) -> tuple:
    """Every parameter but those the code (``parsed``, None: none) reads only as integers (``range(n)``,
    ``xs[i]``, ``[0.0] * n``): ``def pend(theta, n=200)`` is differentiated with respect to ``theta``."""
    integers = integer_only(parsed.node) if parsed is not None else ()
    kept = tuple(p for p in params if p not in integers)
    return kept or params


def wrt_names(wrt, params: tuple, fn, signature) -> tuple:
    """``wrt`` as parameter names: a name, a position (as JAX's ``argnums``), or a tuple or list of them."""
    items = (wrt,) if isinstance(wrt, (str, int)) else wrt
    if not isinstance(items, (tuple, list)) or not all(isinstance(w, (str, int)) for w in items):
        raise TypeError(
            f"wrt names the parameters of {fn.__name__} to differentiate with respect to: a name ('x'), "
            f"a position (0), or a tuple of them; got {wrt!r}"
        )
    names = []
    for w in items:
        if isinstance(w, int) and not isinstance(w, bool):
            if not -len(params) <= w < len(params):
                raise ValueError(
                    f"wrt position {w} is out of range: {fn.__name__}{signature} has {len(params)} parameters"
                )
            w = params[w]
        if w not in params:
            raise ValueError(f"wrt names {[w]} are not parameters of {fn.__name__}{signature}")
        names.append(w)
    return tuple(names)


def real_remedy(value) -> str:
    """What to pass instead of a value that cannot be differentiated."""
    if isinstance(value, (bool, int)):
        return f"pass a float ({float(value)!r}) if it varies continuously"
    if isinstance(value, (list, tuple)):
        return "pass floats (1.0, not 1) if they vary continuously"
    if isinstance(value, complex) or getattr(getattr(value, "dtype", None), "kind", "") == "c":
        return "pass the real and imaginary parts as separate float arguments"
    if not hasattr(value, "astype") and hasattr(type(value), "__array_namespace__"):  # the standard's arrays
        return "convert it with xp.astype(x, xp.float64)"
    return "convert it with .astype(float)" if hasattr(value, "astype") else "pass a float"


def refuse_partial(fn) -> None:
    """Refuse ``functools.partial(g, ...)``: differentiate ``g`` itself, the bound arguments passed at each call."""
    if isinstance(fn, functools.partial):
        name = getattr(fn.func, "__name__", "f")
        raise TypeError(
            f"adcompiler differentiates plain Python functions, not functools.partial({name}, ...): differentiate "
            f"{name} itself (wrt= the parameters you want) and pass the bound arguments at each call"
        )


def refuse_other_arrays(fn, params: tuple, values: tuple) -> None:
    """Refuse an array of another library than NumPy (Dask, CuPy, ...) where the code is NumPy's: the
    code for it is generated under ``arrays="any"`` (see ``adcompiler.targets.array_api.backend``)."""
    for name, value in zip(params, values):
        t = type(value)
        if t.__module__.split(".")[0] != "numpy" and (
            hasattr(t, "__array_namespace__") or t.__module__.startswith("dask.")
        ):
            raise TypeError(
                f"{fn.__name__}: {name} is a {t.__module__.split('.')[0]} array, and this derivative code is NumPy's: "
                f'differentiate({fn.__name__}, arrays="any") generates code that runs on it'
            )


def called_with(fn, signature, values: tuple):
    """``fn`` called with ``values``, all its arguments in the order of its parameters (defaults filled in):
    keyword-only ones by keyword, a ``*args`` tuple spread."""
    positional, keywords = [], {}
    for param, value in zip(signature.parameters.values(), values):
        if param.kind is param.KEYWORD_ONLY:
            keywords[param.name] = value
        elif param.kind is param.VAR_POSITIONAL:
            positional.extend(value)
        elif param.kind is param.VAR_KEYWORD:
            keywords.update(value)
        else:
            positional.append(value)
    return fn(*positional, **keywords)


def copied_lists(x):
    """``x`` with each list in it (at any depth, in tuples too) a new list: a tangent handed to code that
    changes it in place, as the function changes its argument, leaving the caller's as it was."""
    if type(x) is list:
        return [copied_lists(e) for e in x]
    if type(x) is tuple:
        return tuple(copied_lists(e) for e in x)
    return x
