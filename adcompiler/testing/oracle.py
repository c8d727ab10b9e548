"""Independent oracles for derivatives of functions of nested structures: floats, NumPy arrays of any shape and dtype, and lists
and tuples of these, as arguments and as outputs.

``check_both_modes(f, args, wrt)`` differentiates ``f`` with adcompiler and compares, against
central finite differences of ``f`` itself (and autograd, where given a twin):

* the value returned by ``jvp`` and ``vjp`` with ``f``'s own;
* ``jvp`` along a random direction with ``J v``, ``vjp`` with a random cotangent with ``J^T u``;
* ``<u, J v> == <J^T u, v>`` between adcompiler's two modes;
* every cotangent has its primal's structure: a list where a list was passed, a tuple for a tuple, an
  array of the same shape and dtype for an array, a number for a number (a float for a Python float);
* ``grad`` with ``vjp(1.0)`` for a scalar output.

Nothing here uses adcompiler's output as a reference.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import adcompiler


def _fields(value):
    """A record's items by key (a dict, a NamedTuple, a dataclass), or None."""
    if isinstance(value, dict):
        return value
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return dict(zip(type(value)._fields, value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if type(getattr(value, "__dict__", None)) is dict and not callable(value) and not isinstance(value, type):
        return vars(value)  # a plain object: its attributes
    return None


def _record_like(like, items: dict):
    """A record of ``like``'s type holding ``items``."""
    if isinstance(like, dict):
        return items
    if isinstance(like, tuple):
        return type(like)(*items.values())
    if not dataclasses.is_dataclass(like):  # a plain object of like's class with these attributes
        obj = type(like).__new__(type(like))
        obj.__dict__.update(items)
        return obj
    return type(like)(**items)


def leaves(value) -> list:
    """The floats of a nested structure, left to right (arrays flattened; records in key order)."""
    fields = _fields(value)
    if fields is not None:
        return [x for v in fields.values() for x in leaves(v)]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in leaves(v)]
    if isinstance(value, np.ndarray):
        return [float(x) for x in value.ravel()]
    return [float(value)]


def rebuild(like, items):
    """``like``'s structure, its floats taken in order from the iterator ``items``."""
    fields = _fields(like)
    if fields is not None:
        return _record_like(like, {k: rebuild(v, items) for k, v in fields.items()})
    if isinstance(like, (list, tuple)):
        out = [rebuild(v, items) for v in like]
        return tuple(out) if isinstance(like, tuple) else out
    if isinstance(like, np.ndarray):
        return np.array([next(items) for _ in range(like.size)], dtype=like.dtype).reshape(like.shape)
    return float(next(items))


def structure_problem(value, like, where="cotangent") -> str:
    """Why ``value`` does not have ``like``'s structure, shape and dtype, or ''."""
    fields = _fields(like)
    if fields is not None:
        got = _fields(value)
        if type(value) is not type(like) or got is None or list(got) != list(fields):
            return f"{where}: {type(value).__name__} {list(got or ())} for {type(like).__name__} {list(fields)}"
        for k in fields:
            problem = structure_problem(got[k], fields[k], f"{where}[{k!r}]")
            if problem:
                return problem
        return ""
    if isinstance(like, (list, tuple)):
        if type(value) is not type(like) or len(value) != len(like):
            return f"{where}: {type(value).__name__} of {len(value) if hasattr(value, '__len__') else '?'} for {type(like).__name__} of {len(like)}"
        for k, (v, l) in enumerate(zip(value, like)):
            problem = structure_problem(v, l, f"{where}[{k}]")
            if problem:
                return problem
        return ""
    if isinstance(like, np.ndarray):
        if not isinstance(value, np.ndarray):
            return f"{where}: {type(value).__name__} for an array of shape {like.shape}"
        if value.shape != like.shape:
            return f"{where}: shape {value.shape} for an array of shape {like.shape}"
        expected = like.dtype if like.dtype.kind == "f" else np.dtype(float)
        if value.dtype != expected:
            return f"{where}: dtype {value.dtype} for an array of dtype {like.dtype}"
        return ""
    if isinstance(value, (list, tuple)) or np.ndim(value) != 0:
        return f"{where}: {type(value).__name__} {np.shape(value)} for a number"
    if type(like) is float and not isinstance(value, float):  # a float's derivative: a float (float64)
        return f"{where}: {type(value).__name__} for a float"
    return ""


def fd_jacobian(f, args, wrt_index, h=1e-6) -> np.ndarray:
    """(m, n) Jacobian of f's flattened output with respect to the flattened wrt arguments (float32
    arrays are widened to float64 first: a difference quotient in float32 is mostly rounding)."""
    args = [widened(a) for a in args]
    flat = [leaves(args[i]) for i in wrt_index]
    sizes = [len(x) for x in flat]
    x0 = np.array([v for x in flat for v in x])
    cols = []
    for j in range(x0.size):
        step = h * max(1.0, abs(x0[j]))
        outs = []
        for sign in (1, -1):
            x = x0.copy()
            x[j] += sign * step
            new, k = list(args), 0
            for i, n in zip(wrt_index, sizes):
                new[i] = rebuild(args[i], iter(x[k : k + n]))
                k += n
            outs.append(np.array(leaves(f(*_copy(new)))))
        cols.append((outs[0] - outs[1]) / (2 * step))
    return np.array(cols).T


def widened(value):
    """``value`` with its float32 arrays as float64."""
    fields = _fields(value)
    if fields is not None:
        return _record_like(value, {k: widened(v) for k, v in fields.items()})
    if isinstance(value, (list, tuple)):
        out = [widened(v) for v in value]
        return tuple(out) if isinstance(value, tuple) else out
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        return value.astype(np.float64)
    return value


def _single(value) -> bool:
    if _fields(value) is not None:
        return any(_single(v) for v in _fields(value).values())
    return (
        any(_single(v) for v in value)
        if isinstance(value, (list, tuple))
        else getattr(value, "dtype", None) == np.float32
    )


def _copy(args):
    """Deep copies of list arguments (a function may change a list it is given)."""
    fields = _fields(args)
    if fields is not None:
        return _record_like(args, {k: _copy(v) for k, v in fields.items()})
    if isinstance(args, list):
        return [_copy(a) for a in args]
    if isinstance(args, tuple):
        return tuple(_copy(a) for a in args)
    return args.copy() if isinstance(args, np.ndarray) else args


def check_both_modes(f, args, wrt=None, rtol=1e-5, atol=1e-7, seed=0, twin=None):
    """Assert adcompiler's jvp, vjp and grad of ``f`` at ``args`` against finite differences (and
    autograd's ``twin``, a function of the same arguments returning the same flattened Jacobian)."""
    params = list(adcompiler.differentiate(f).params)
    wrt = tuple(params[: len(args)]) if wrt is None else ((wrt,) if isinstance(wrt, str) else tuple(wrt))
    idx = [params.index(w) for w in wrt]
    d = adcompiler.differentiate(f, wrt=wrt)
    rng = np.random.default_rng(seed)
    if any(_single(a) for a in args):  # float32 arithmetic: agreement to its precision
        rtol, atol = max(rtol, 2e-3), max(atol, 1e-5)
    value = f(*_copy(args))
    J = fd_jacobian(f, args, idx)
    if twin is not None:
        np.testing.assert_allclose(J, twin(*args), rtol=1e-4, atol=1e-6, err_msg="oracle twin disagrees with FD")
    # forward mode
    v = rng.uniform(-1, 1, J.shape[1])
    tangents, k = [], 0
    for i in idx:
        n = len(leaves(args[i]))
        tangents.append(rebuild(args[i], iter(v[k : k + n])))
        k += n
    val, tan = d.jvp(_copy(args), tuple(tangents))
    np.testing.assert_allclose(leaves(val), leaves(value), rtol=1e-12, atol=1e-12, err_msg="jvp value")
    if any(_single(a) for a in args):
        tan = widened(tan)
    np.testing.assert_allclose(leaves(tan), J @ v, rtol=rtol, atol=atol, err_msg="jvp against J v")
    # reverse mode
    u = rng.uniform(-1, 1, J.shape[0])
    ct = rebuild(value, iter(u)) if isinstance(value, (list, tuple, dict, np.ndarray)) else float(u[0])
    val, cts = d.vjp(_copy(args), ct)
    np.testing.assert_allclose(leaves(val), leaves(value), rtol=1e-12, atol=1e-12, err_msg="vjp value")
    assert isinstance(cts, tuple) and len(cts) == len(idx), cts
    for i, c in zip(idx, cts):
        problem = structure_problem(c, args[i], f"cotangent of {params[i]}")
        assert not problem, problem
    got = np.array([x for c in cts for x in leaves(c)])
    np.testing.assert_allclose(got, J.T @ u, rtol=rtol, atol=atol, err_msg="vjp against J^T u")
    lhs, rhs = float(u @ np.array(leaves(tan))), float(got @ v)
    tol = 1e-5 if any(_single(a) for a in args) else 1e-9
    assert abs(lhs - rhs) <= tol * (abs(lhs) + abs(rhs) + 1.0), f"<u, Jv> = {lhs} but <J^T u, v> = {rhs}"
    if not isinstance(value, (list, tuple, dict)) and _fields(value) is None and np.ndim(value) == 0:
        g = d.grad(*_copy(args))
        g = (g,) if len(idx) == 1 else g
        _, cts1 = d.vjp(_copy(args), 1.0)
        np.testing.assert_allclose(
            [x for c in g for x in leaves(c)], [x for c in cts1 for x in leaves(c)], rtol=1e-12, atol=1e-14
        )
    return d


def check_second_order(f, args, rtol=1e-5, atol=1e-6):
    """Assert ``adcompiler.hessian_matrix`` of ``f`` with respect to each parameter (forward over reverse)
    against central differences of adcompiler's gradient, its leaves moved one at a time."""
    for k, a in enumerate(args):
        name = adcompiler.differentiate(f).params[k]
        h = adcompiler.hessian_matrix(f, wrt=name)(*args)
        grad = adcompiler.differentiate(f, wrt=name).grad
        flat = np.array(leaves(a), dtype=float)
        cols = []
        for j in range(flat.size):
            step = 1e-5 * max(1.0, abs(flat[j]))
            grads = []
            for sign in (1, -1):
                moved = flat.copy()
                moved[j] += sign * step
                changed = args[:k] + (rebuild(a, iter(moved)),) + args[k + 1 :]
                grads.append(np.array(leaves(grad(*changed)), dtype=float))
            cols.append((grads[0] - grads[1]) / (2 * step))
        got = np.array(leaves(h), dtype=float).reshape(flat.size, flat.size)
        np.testing.assert_allclose(got, np.array(cols).T, rtol=rtol, atol=atol, err_msg=f"Hessian in {name}")
