"""Jacobians, Hessians and Hessian-vector products, built from generated code.

``jacobian`` in forward mode pushes every input direction through one forward
pass at once: each tangent is a NumPy array holding one component per input
scalar (a row of the identity), so the generated tangent code, written for
floats, carries whole Jacobian columns.  In reverse mode it runs one vjp per
output scalar.  ``hessian`` is forward mode applied to the generated
reverse-mode code (forward over reverse; ``hvp`` in ``api.hvp``).  NumPy is
imported only here, when one of these is called.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any, Callable

from ..analysis import values as V
from ..targets import registry as targets
from .differentiable import Differentiable, Wrt, differentiate
from .variadic import Variadic
from .entries import STATES, current_tests, make_entry
from ..compile.load import load
from ..compile.origins import second_order_of
from ..modes import reverse
from .trees import converts, fields, make
from ..ir.nodes import Eq, walk
from ..rules import HELPER_RULES
from ..modes.callgraph import may_draw
from .arguments import checked_ct, checked_tangents
from .trees import any_records
from .hvp import reverse_differentiable


def _numpy():
    try:
        import numpy
    except ImportError as exc:  # pragma: no cover - exercised only without NumPy
        raise ImportError("adcompiler.jacobian, hessian and hvp return NumPy arrays: pip install numpy") from exc
    return numpy


def leaves(value, split_arrays=True) -> list:
    """The scalars of a nested list/tuple/array structure, left to right (arrays whole if not split;
    records' items in key order, as generated code holds them)."""
    if type(value) in _NUMBERS:  # the common leaf first: a record's test costs ten times as much
        return [value]
    items = fields(value)
    if items is not None:
        return [x for v in items.values() for x in leaves(v, split_arrays)]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in leaves(v, split_arrays)]
    if split_arrays and _is_array(value):
        return list(value.ravel())
    return [value]


def rebuild(like, items):
    """``like``'s structure with its scalars taken in order from the iterator ``items``."""
    if type(like) in _NUMBERS:
        return next(items)
    record = fields(like)
    if record is not None:
        return make(type(like), tuple(record), [rebuild(v, items) for v in record.values()])
    if isinstance(like, (list, tuple)):
        out = [rebuild(v, items) for v in like]
        return tuple(out) if isinstance(like, tuple) else out
    if _is_array(like):
        np = _numpy()
        return np.array([next(items) for _ in range(like.size)], dtype=float).reshape(like.shape)
    return next(items)


_NUMBERS = (float, int, bool)


def integer(value) -> bool:
    """Whether ``value`` is an integer (an int, a bool, a NumPy integer or bool scalar or array): it has no
    derivative (``trees.integral``), so it is no input of a Jacobian, and its gradient is None."""
    t = type(value)
    return t is int or t is bool or getattr(getattr(value, "dtype", None), "kind", "") in ("i", "u", "b")


def wrt_leaves(value, like=None, split_arrays=True) -> list:
    """The scalars of ``value`` (a derivative of ``like``, by default ``value`` itself) where ``like``
    has no integer: the inputs of a Jacobian, and the entries of their tangents and cotangents."""
    like = value if like is None else like
    if type(like) in _NUMBERS or _is_array(like) or _joined(like):
        return [] if integer(like) else leaves(value, split_arrays)
    items = fields(like)
    if items is not None:
        got = fields(value)
        values = [got[k] for k in items] if got is not None else list(value)
        return [x for v, w in zip(values, items.values()) for x in wrt_leaves(v, w, split_arrays)]
    if isinstance(like, (list, tuple)):
        return [x for v, w in zip(value, like) for x in wrt_leaves(v, w, split_arrays)]
    return [] if integer(like) or value is None else leaves(value, split_arrays)


def _joined(value) -> bool:
    """A list of Python numbers with a float among them: a list of floats (``values.describe`` joins a
    list's numbers), its ints included."""
    return type(value) is list and all(type(v) in _NUMBERS for v in value) and float in set(map(type, value))


def wrt_rebuild(like, items):
    """``rebuild`` of a tangent of ``like``: an integer's tangent zero (0.0, or zeros of its shape),
    taking nothing from ``items``."""
    if integer(like):
        return _numpy().zeros(like.shape) if _is_array(like) else 0.0
    if type(like) in _NUMBERS or _is_array(like) or _joined(like):
        return rebuild(like, items)
    record = fields(like)
    if record is not None:
        return make(type(like), tuple(record), [wrt_rebuild(v, items) for v in record.values()])
    if isinstance(like, (list, tuple)):
        out = [wrt_rebuild(v, items) for v in like]
        return tuple(out) if isinstance(like, tuple) else out
    return next(items)


def _is_array(value) -> bool:
    return type(value).__name__ == "ndarray"


def _scalar_code(d: Differentiable, args: tuple) -> bool:
    """Whether ``d``'s code for these arguments handles numbers only: then its tangents may be NumPy
    arrays carrying many directions at once.  Code that may handle arrays (shape-generic helpers such
    as ``unbroadcast``, which sum a tangent to its value's shape) takes one direction per pass."""
    if any(_is_array(a) or isinstance(a, (list, tuple)) and _holds_array(a) for a in args):
        return False
    _, sig = d._bound(tuple(args))
    facts = d._built.facts(sig)
    return not facts.arrays and not _calls_numpy(d, facts, set())


def _calls_numpy(d: Differentiable, facts, seen: set) -> bool:
    """Whether the function (or a function it calls) calls NumPy: on numbers too, ``np.dot`` or
    ``np.sum`` of a tangent that carries many directions would mix the directions up."""
    for eq in walk(facts.fn.body):
        if not isinstance(eq, Eq):
            continue
        if eq.prim.startswith("numpy.") or eq.prim in HELPER_RULES:
            return True
        if eq.prim == "call" and eq.outs in facts.calls:
            key = (eq.param, facts.call_sig(eq))
            if key not in seen:
                seen.add(key)
                callee = d._built.program(facts.sig).facts(*key)
                if callee.arrays or _calls_numpy(d, callee, seen):
                    return True
    return False


def float_dtype(np, values):
    """The dtype of a derivative of these values: the result type of their floating dtypes, a Python
    number's float64 (float32 arrays and scalars only: float32)."""
    found = {
        x.dtype if getattr(getattr(x, "dtype", None), "kind", "") == "f" else np.dtype(float) for x in _scalars(values)
    }
    return np.result_type(*found) if found else np.dtype(float)


def _scalars(value):
    """Each array and number of a structure (records, lists, tuples) but integers."""
    items = fields(value) if type(value) not in _NUMBERS else None
    if items is not None or isinstance(value, (list, tuple)):
        for v in (items.values() if items is not None else value):
            yield from _scalars(v)
    elif value is not None and not integer(value):
        yield value


def _holds_array(value) -> bool:
    return any(_is_array(v) or isinstance(v, (list, tuple)) and _holds_array(v) for v in value)


def _directions(positions: tuple, args: tuple):
    """One tangent tuple per input scalar (unit vectors), for arguments that hold arrays."""
    values = [args[i] for i in positions]
    n = sum(len(wrt_leaves(v)) for v in values)
    for k in range(n):
        items = iter([1.0 if j == k else 0.0 for j in range(n)])
        yield tuple(wrt_rebuild(v, items) for v in values)


def _from_one_state(np, passes, draws=True) -> list:
    """Each pass run from one state of np.random's global generator (the current one), leaving it as one
    pass leaves it, where the function may draw (``_draws``): a function that draws (np.random.randn in
    its body) makes its draw once per call, and the several passes of one Hessian are one call."""
    if not draws:
        return [run() for run in passes]
    state = np.random.get_state()
    out = []
    for run in passes:
        np.random.set_state(state)
        out.append(run())
    return out


def as_differentiable(f, wrt) -> Differentiable:
    if isinstance(f, Differentiable) and (wrt is None or tuple(wrt) == f.wrt):
        return f
    if not isinstance(f, Differentiable):
        return differentiate(f, wrt=wrt)
    return differentiate(f.fn, wrt=wrt, backend=f.backend, arrays=f.arrays)


def _basis_tangents(positions: tuple, args: tuple, np):
    """One tangent per wrt argument, each scalar carrying a row of the n x n identity."""
    values = [args[i] for i in positions]
    n = sum(len(wrt_leaves(v)) for v in values)
    rows = iter(np.eye(n))
    return tuple(wrt_rebuild(v, rows) for v in values), n


def jacobian(f: Callable[..., Any], wrt: Wrt = None, mode: str = "auto") -> Callable[..., Any]:
    """A callable giving the (m, n) Jacobian: m output scalars (flattened), n wrt input scalars (flattened, wrt order).

    ``mode`` is "forward" (all n directions in one pass, tangents as NumPy
    arrays), "reverse" (one reverse pass per output scalar) or "auto" (forward
    when n <= m).
    """
    if mode not in ("auto", "forward", "reverse"):
        raise ValueError(f"mode must be 'auto', 'forward' or 'reverse', not {mode!r}")
    d = as_differentiable(f, wrt)
    if isinstance(d, Variadic):  # def f(*xs): the Jacobian of f with as many parameters as arguments
        return lambda *args: jacobian(d.fixed(len(args)), mode=mode)(*args)
    return jacobians(d, mode)[0]


def jacobians(d: Differentiable, mode: str) -> tuple:
    """``(jac, with_value)`` for ``d`` (made once per mode, kept with ``d``'s derived code, so each
    later call of ``jacobian(d)``, ``jacfwd`` or ``jacrev`` finds the plans of the earlier ones):
    ``jac(*args)`` the (m, n) Jacobian, ``with_value(*args)`` ``(Jacobian, the function's value, or
    None where no pass gave it)``."""
    made = d.derived.get(("jacobian", mode))
    if made is None:
        with d._building:
            made = d.derived.setdefault(("jacobian", mode), _jacobians(d, mode))
    return made


_PLANS = 8  # argument kinds planned per Jacobian (others take the checking path each call)


def _jacobians(d: Differentiable, mode: str) -> tuple:
    """``jacobians``' pair, made.  The first call for arguments of one kind (each a number, or a NumPy
    array of a shape and dtype) binds and checks them, runs the function to count its outputs and
    plans the passes (``_plan``); later calls of that kind run the plan: no binding, no primal run."""
    entry = array = None  # the entry giving the rows of the reverse Jacobian (see _rows_entry), and np.array
    plans: dict = {}  # the arguments' kinds (_kinds) -> the plan of the passes for them
    kinds = None  # _kinds, once NumPy is imported

    def jac(*args):
        if entry is not None:  # closure cells, read at the cost of a local: the whole call is a few microseconds
            return array(entry(*args), float)  # (dtype=float)
        return with_value(*args)[0]

    def with_value(*args):
        if plans:
            plan = plans.get(kinds(args))
            if plan is not None and plan.current():  # (the module still holds what the code was built from)
                found = plan(args)
                if found is not None:  # (None: the value is not shaped as the plan's: planned again)
                    return found
        return checked(*args)

    def checked(*args, rows=True):
        nonlocal entry, array, kinds
        np = _numpy()
        given = args
        args, sig = d._bound(args, flat=False)  # records kept: jvp and vjp take them
        if any(type(a).__module__.split(".")[0] not in ("numpy", "builtins") and hasattr(a, "dtype") for a in args):
            raise TypeError(
                f"jacobian of {d.fn.__name__} builds NumPy arrays; for arrays of {type(args[0]).__module__.split('.')[0]} "
                'or another library (arrays="any"), call its vjp or jvp, which keep them'
            )
        if rows and mode == "reverse" and _rows_apply(d, sig):  # no primal run to count the outputs
            made = _rows_entry(d, sig, lambda *a: checked(*a, rows=False)[0].tolist())  # (arguments its test
            # refuses: the passes planned below, not this entry again)
            if entry is None:  # the first of two threads' (the other's works as well)
                array, entry = np.array, made
            return np.array(made(*args), dtype=float), None
        if mode == "reverse" and _rows_apply(d, sig, targets.NUMBA):
            rows = _vjp_rows(d, sig, d.fn(*args))
            made = lambda *a: _or_else(rows(*a), lambda: with_value(*a)[0].tolist())  # noqa: E731
            if entry is None:
                array, entry = np.array, made
            return np.array(made(*args), dtype=float), None
        draws = _draws(d, sig)
        written = any(d._built.facts(sig).summary.written)  # each run below from the arguments as given
        state = np.random.get_state() if draws else None  # every pass from it: one draw per call
        value = d.fn(*(copy.deepcopy(args) if written else args))
        plan = _plan(d, sig, args, value, mode, np, draws, written)
        if plan.direct and len(given) == len(args) and len(plans) < _PLANS:  # no defaults filled in
            kinds = kinds or _kinds_of(np.ndarray)
            plans[kinds(args)] = plan
        return plan(args, state, False)[0], value

    jac.__name__ = f"jacobian_of_{d.fn.__name__}"
    return jac, with_value


def _kinds_of(ndarray):
    """``kinds(args)``: what a Jacobian's plan is made for: each argument's type, an array's shape and dtype too."""

    def kinds(args):
        return tuple((ndarray, a.shape, a.dtype) if type(a) is ndarray else type(a) for a in args)

    return kinds


def _draws(d: Differentiable, sig) -> bool:
    """Whether the function may draw from ``np.random``'s generator (``modes.callgraph.may_draw``): then the
    passes of one Jacobian or Hessian each start from one state of it (``_from_one_state``)."""
    key = ("draws", sig)
    if key not in d.derived:
        with d._building, d._built._told():  # (a refusal met here told at the user's line, as the build's)
            d.derived[key] = may_draw(d._built.program(sig), d.fn)
    return d.derived[key]


def _direct(d: Differentiable, sig, args: tuple, positions: tuple) -> bool:
    """Whether the passes may call the generated code itself, as ``jvp`` and ``vjp`` do after their checks:
    numbers and NumPy arrays of numbers in, floats and float arrays differentiated, no records in or out."""
    if any_records(sig.avals) or converts(sig.avals):
        return False
    out = d._built.facts(sig).summary.out
    if any_records(out if isinstance(out, tuple) else (out,)):
        return False
    return all(_plain(a, "fiub") for a in args) and all(_plain(args[i], "f") for i in positions)


def _plain(value, kinds: str) -> bool:
    """A Python number or a NumPy scalar or array whose dtype is of one of these kinds (``"fiub"``)."""
    if type(value) in _NUMBERS:
        return type(value) is float or kinds != "f"
    dtype = getattr(value, "dtype", None)
    return type(value).__module__ == "numpy" and dtype is not None and dtype.kind in kinds


def _structure(value):
    """What of an output its Jacobian's rows and blocks depend on: the nesting of tuples and lists, arrays'
    shapes, dtypes other than float64."""
    if type(value) is tuple or type(value) is list:
        return type(value), tuple(map(_structure, value))
    dtype = getattr(value, "dtype", None)
    return getattr(value, "shape", None) or None, None if dtype is None or dtype.char == "d" else dtype.char


def _plan(d: Differentiable, sig, args: tuple, value, mode: str, np, draws: bool, written: bool):
    """``run(args, state=None, check=True)``: the Jacobian of ``d`` at arguments of the kinds of ``args``
    (signature ``sig``) where it has the value ``value``, as ``(Jacobian, value)``: the passes' unit
    tangents or cotangents made here, once.  ``run.direct``: the passes call the generated code itself
    (``_direct``), else ``d.jvp`` or ``d.vjp``.  ``check``: None where the first pass's value is not
    structured as ``value`` (an output whose shape depends on the arguments' values).  ``state``: the
    state of ``np.random`` each pass starts from where the function may draw (``draws``)."""
    positions = d._positions_of(sig)
    wrt = [args[i] for i in positions]
    n = sum(len(wrt_leaves(a)) for a in wrt)
    m = len(leaves(value))
    dtype = float_dtype(np, [value, *wrt])  # float32 in and out: float32 (float64 for any Python float)
    direct = _direct(d, sig, args, positions)
    expected = _structure(value)
    forward = mode == "forward" or (mode == "auto" and n <= m)
    if forward:
        batched = _scalar_code(d, args)  # numbers only: every direction in one pass
        passes = [_basis_tangents(positions, args, np)[0]] if batched else list(_directions(positions, args))
        if direct:
            code, name = d._built.function("forward", sig), d.fn.__name__
            passes = [checked_tangents(name, d.params, positions, args, sig, ts, d._origin) for ts in passes]
        call = (lambda a, ts: code(*a, *ts)) if direct else d.jvp  # noqa: E731
    else:
        passes = [rebuild(value, iter([1.0 if j == k else 0.0 for j in range(m)])) for k in range(m)]
        if direct:
            code, out = d._built.function("reverse", sig), d._built.facts(sig).summary.out
            passes = [checked_ct(d.fn.__name__, out, ct, False, d._origin) for ct in passes]
        call = (lambda a, ct: code(*a, ct)) if direct else d.vjp  # noqa: E731
    offsets = list(itertools.accumulate(len(wrt_leaves(a)) for a in wrt))
    spans = list(zip([0, *offsets], offsets))  # each wrt argument's columns
    like = None if direct else wrt  # (the caller's arrays not kept alive by a plan kept for later calls)

    ndarray = np.ndarray

    def run(args, state=None, check=True):
        if draws and state is None:
            state = np.random.get_state()
        got = None
        results = []
        for k, p in enumerate(passes):
            if draws:
                np.random.set_state(state)
            if check and k == 0:  # a cotangent of another shape may fail: the checked path says why
                try:
                    got, d_out = call(copy.deepcopy(args) if written else args, p)
                except (ValueError, TypeError, IndexError):
                    got = None
                if got is None or _structure(got) != expected:
                    np.random.set_state(state) if draws else None  # (the checked path starts from it)
                    return None
            else:
                got, d_out = call(copy.deepcopy(args) if written else args, p)
            results.append(d_out)
        if forward and batched:
            columns = [np.broadcast_to(np.asarray(t, dtype=float), (n,)) for t in leaves(results[0], False)]
            return np.array(columns, dtype=dtype).reshape(m, n), got
        if forward and not direct:
            columns = [[float(t) for t in leaves(out)] for out in results]
            return np.array(columns, dtype=dtype).reshape(n, m).T, got
        if forward:
            flat = np.empty((n, m), dtype=dtype)
            for k, out in enumerate(results):
                parts = leaves(out, False)
                flat[k] = np.ravel(parts[0]) if len(parts) == 1 else np.concatenate([np.ravel(t) for t in parts])
            return flat.T, got
        if not direct:
            rows = [[float(c) for c in wrt_leaves(list(out), like)] for out in results]
            return np.array(rows, dtype=dtype).reshape(m, n), got
        flat = np.empty((m, n), dtype=dtype)
        for row, cts in zip(flat, results):
            for (a, b), c in zip(spans, cts):
                row[a:b] = c.ravel() if type(c) is ndarray else c  # (a number: the one entry of its span)
        return flat, got

    run.direct = direct  # type: ignore[attr-defined]
    run.current = _current(d)  # type: ignore[attr-defined]
    return run


def _current(d: Differentiable):
    """``current()``: whether the module still holds what ``d``'s code was built from (``d._built.stale``),
    what it depends on gathered once."""
    if d._origin is not None:  # derivative code: also whether the code it differentiates was built again
        return lambda: not d._built.stale()
    depends = d._built.dependencies()
    if not depends:
        return lambda: True
    g = {b: b + "_" for b in ("current", "now", "type", "int", "ndarray", "KeyError")}  # (it reads no other name)
    g.update({f"{k}{j}": f"{k}{j}_" for j in range(len(depends)) for k in STATES})
    space = {g["type"]: type, g["int"]: int, g["ndarray"]: _numpy().ndarray, g["KeyError"]: KeyError}
    tests = " and ".join(current_tests(depends, g, space))  # (entries' own: a lookup and a test or two each)
    text = (
        f"def {g['current']}():\n    try:\n        return {tests}\n    except {g['KeyError']}:\n        return False\n"
    )
    label = f"jacobian's current test of {d.fn.__qualname__}"
    return load(text, {}, label, lambda names: {n: space[n] for n in names if n in space})[g["current"]]


def _rows_apply(d: Differentiable, sig, target=targets.PYTHON) -> bool:
    """Whether the reverse Jacobian of ``d`` (of ``target``) for this signature is one generated
    function (see ``modes.reverse.jacobian``; under Numba, ``_vjp_rows``): numbers in (floats, flat
    lists), numbers of a known count out, nothing written."""
    if d.target is not target:  # the vjp of other targets makes the rows
        return False
    facts = d._built.facts(sig)
    if converts([sig.avals[i] for i in d._positions_of(sig)]):  # an integer in a tuple: no column of it
        return False
    return reverse.jacobian_applies(facts, d._wrt_of(sig)) and all(V.entry_testable(a) for a in sig.avals)


def _vjp_rows(d: Differentiable, sig, value):
    """``rows(*args)``: the rows of the Jacobian by one call of the compiled vjp per output number (its
    fast entry), for arguments of signature ``sig`` (looked at whole), else None.  Under Numba: the
    python target's one function for all rows joins the rows' shadows, which compiled code cannot;
    ``value``, the function's value, gives the output's structure."""
    m = len(leaves(value))
    cts = [rebuild(value, iter([1.0 if j == k else 0.0 for j in range(m)])) for k in range(m)]
    avals = sig.avals

    def rows(*args):
        if len(args) != len(avals) or any(V.describe(a) != s for a, s in zip(args, avals)):
            return None
        return [[float(c) for c in leaves(list(d.vjp(args, ct)[1]))] for ct in cts]

    return rows


def _or_else(value, otherwise):
    return otherwise() if value is None else value


def _rows_entry(d: Differentiable, sig, slow):
    """``entry(*args)``: the rows of the Jacobian from the generated function when the arguments are
    like this call's (a type test each, lists looked at whole), else ``slow(*args)``."""
    with d._building:
        generated = d._built.function("jacobian", sig)
        source = d._built.sources.get(generated)  # (its body inlined into the entry, as for f.grad)
        return make_entry(
            "jacobian", d, generated, lambda owner, *a: slow(*a), None, sig, None, source, d._built.dependencies()
        )


def hessian_matrix(f: Callable[..., Any], wrt: Wrt = None) -> Callable[..., Any]:
    """A callable giving the (n, n) Hessian of a scalar function: forward mode over the generated reverse
    code; n counts the scalars of the ``wrt`` parameters (by default every one, as ``jacobian``), in
    order.  ``adcompiler.hessian`` gives JAX's shapes instead."""
    d = as_differentiable(f, wrt)
    if isinstance(d, Variadic):  # def f(*xs): the Hessian of f with as many parameters as arguments
        return lambda *args: hessian_matrix(d.fixed(len(args)))(*args)

    def hess(*args):
        with second_order_of(d.fn):
            return _hessian(*args)

    def _hessian(*args):
        np = _numpy()
        args, sig = d._bound(args)  # records as tuples: the generated reverse code takes those
        r = reverse_differentiable(d, args, sig)
        written = any(d._built.facts(sig).summary.written)  # each pass from the arguments as given
        fresh = (lambda: copy.deepcopy(args)) if written else (lambda: args)  # noqa: E731
        positions = d._positions_of(sig)
        wrt = [args[i] for i in positions]
        if r.target.hessian_rows is not None:  # one direction per pass (a tangent of one type): compiled code
            zeros = tuple(  # (a float array's of its dtype: float32 code's tangents float32, as Numba wants them)
                (
                    np.zeros_like(a)
                    if type(a) is np.ndarray and a.dtype.kind == "f"
                    else wrt_rebuild(a, itertools.repeat(0.0))
                )
                for a in wrt
            )
            return np.array(r.target.hessian_rows(r, args, zeros, written), dtype=float)
        if not _scalar_code(r, args + (1.0,)):  # array code: one direction per pass
            passes = [lambda ts=ts: r.jvp(fresh() + (1.0,), ts)[1][1] for ts in _directions(positions, args)]
            draws = _draws(d, sig)
            rows = [[float(t) for t in wrt_leaves(list(out), wrt)] for out in _from_one_state(np, passes, draws)]
            return np.array(rows, dtype=float)
        tangents, n = _basis_tangents(positions, args, np)
        _, (_, dcts) = r.jvp(fresh() + (1.0,), tangents)
        columns = [np.broadcast_to(np.asarray(t, dtype=float), (n,)) for t in wrt_leaves(list(dcts), wrt, False)]
        return np.array(columns).reshape(n, n)

    hess.__name__ = f"hessian_of_{d.fn.__name__}"
    return hess
