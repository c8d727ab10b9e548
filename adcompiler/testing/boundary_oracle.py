"""The oracle of the API-boundary fuzzer (``testing.boundary``), independent of adcompiler: central
differences over the float leaves only (integers have no derivative), and the structure of every result
written out from the arguments and the output, for every entry point on one object (``check_entries``).
A list of Python numbers with a float among them is a list of floats, as adcompiler's abstract values
join a list's numbers; elsewhere an int, a bool, a NumPy integer or an integer array is an integer."""

from __future__ import annotations

import dataclasses

import numpy as np

from .structures import Box


def _fields(value):
    """A record's items (dict, NamedTuple, dataclass, plain object), or None."""
    if isinstance(value, dict):
        return value
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return dict(zip(type(value)._fields, value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Box):
        return vars(value)
    return None


def _integer(value) -> bool:
    return type(value) in (int, bool) or getattr(getattr(value, "dtype", None), "kind", "") in ("i", "u", "b")


def _children(value):
    items = _fields(value)
    return list(items.values()) if items is not None else list(value) if isinstance(value, (list, tuple)) else None


def float_leaves(value) -> list:
    """The floats and float arrays of a structure, left to right (integers left out, but in a list of
    numbers with a float, which is a list of floats: adcompiler joins a list's numbers)."""
    if _joined(value):
        return list(value)
    parts = _children(value)
    if parts is not None:
        return [x for v in parts for x in float_leaves(v)]
    return [] if _integer(value) or value is None else [value]  # (None: an integer's derivative)


def _joined(value) -> bool:
    kinds = set(map(type, value)) if type(value) is list else set()
    return float in kinds and kinds <= {float, int, bool}


def _with_floats(like, items, widen=False, integers=lambda v: v):
    """``like`` with its float leaves' numbers taken in order from ``items`` (arrays of their shape, and
    of their dtype unless ``widen``: float64); each integer leaf ``integers(leaf)``."""
    if _joined(like):
        return [float(next(items)) for _ in like]
    parts = _children(like)
    if parts is None:
        if _integer(like):
            return integers(like)
        if isinstance(like, np.ndarray):
            values = [next(items) for _ in range(like.size)]
            return np.array(values, dtype=np.float64 if widen else like.dtype).reshape(like.shape)
        return float(next(items))
    new = [_with_floats(v, items, widen, integers) for v in parts]
    items_of = _fields(like)
    if items_of is None:
        return tuple(new) if isinstance(like, tuple) else new
    if isinstance(like, dict):
        return dict(zip(items_of, new))
    if isinstance(like, Box):
        box = Box()
        box.__dict__.update(zip(items_of, new))
        return box
    return type(like)(*new)


def _flat(values) -> np.ndarray:
    return np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in values]) if values else np.zeros(0)


def _split(vector, likes) -> list:
    """The float leaves of each of ``likes`` from a flat vector."""
    out, k = [], 0
    for like in likes:
        chunk = []
        for leaf in float_leaves(like):
            n = int(np.size(leaf))
            chunk.append(vector[k : k + n].reshape(np.shape(leaf)))
            k += n
        out.append(chunk)
    return out


def fd_jacobian(f, args, active, h=1e-6) -> np.ndarray:
    """(m, n) Jacobian of the output's float leaves by the active arguments' float leaves (float32 widened
    to float64: a difference quotient in float32 is mostly rounding)."""
    wide = [_with_floats(a, iter(_flat(float_leaves(a)).tolist()), True) for a in args]
    x0 = _flat([leaf for i in active for leaf in float_leaves(wide[i])])
    cols = []
    for j in range(x0.size):
        step = h * max(1.0, abs(x0[j]))
        outs = []
        for sign in (1, -1):
            x = x0.copy()
            x[j] += sign * step
            new, k = list(wide), 0
            for i in active:
                n = _flat(float_leaves(wide[i])).size
                new[i] = _with_floats(wide[i], iter(x[k : k + n].tolist()))
                k += n
            outs.append(_flat(float_leaves(f(*new))))
        cols.append((outs[0] - outs[1]) / (2 * step))
    return np.array(cols).T


def structure_problem(got, like, where: str, derivative: bool = False) -> str:
    """Why ``got`` is not of ``like``'s structure (records of the same type and keys, lists, tuples),
    or ''.  A ``derivative`` (tangent, cotangent) has None for an integer, a float for a Python float,
    an array of its shape and floating dtype (float32 kept), a NumPy float32 for one."""
    if derivative and _joined(like):  # a list of floats: numbers of it
        return "" if type(got) is list and len(got) == len(like) else f"{where}: {got!r} for {like!r}"
    parts, items = _children(like), _fields(like)
    if parts is not None:
        if type(got) is not type(like) or (_fields(got) is not None and list(_fields(got)) != list(items or ())):
            return f"{where}: {type(got).__name__} for {type(like).__name__}"
        got_parts = _children(got)
        if len(got_parts) != len(parts):
            return f"{where}: {len(got_parts)} items for {len(parts)}"
        keys = list(items) if items is not None else range(len(parts))
        return next(
            (
                p
                for k, g, w in zip(keys, got_parts, parts)
                if (p := structure_problem(g, w, f"{where}[{k!r}]", derivative))
            ),
            "",
        )
    if derivative and _integer(like):
        return "" if got is None else f"{where}: {got!r} for the integer {like!r} (no derivative: None)"
    if isinstance(like, np.ndarray):
        if not isinstance(got, np.ndarray) or got.shape != like.shape or got.dtype != like.dtype:
            return f"{where}: {type(got).__name__} {getattr(got, 'dtype', '')} {np.shape(got)} for {like.dtype} {like.shape}"
        return ""
    if derivative and type(like) is float and not isinstance(got, float):  # (a Python float or a float64)
        return f"{where}: {type(got).__name__} for a float (a float's derivative is a float)"
    if derivative and isinstance(like, np.floating) and type(got) is not type(like):
        return f"{where}: {type(got).__name__} for a {type(like).__name__}"
    return "" if np.ndim(got) == 0 else f"{where}: shape {np.shape(got)} for a number"


def _close(got, want, rtol, atol, what: str) -> None:
    np.testing.assert_allclose(_flat(got) if isinstance(got, list) else got, want, rtol=rtol, atol=atol, err_msg=what)


def _assert(problem: str) -> None:
    assert not problem, problem


def check_entries(f, args, float32: bool, gen) -> None:
    """Every entry point of ``adcompiler.differentiate(f)`` (one object) and the functions of functions at
    ``args``, against central differences and the structures written out from the arguments."""
    import adcompiler

    value = f(*args)
    active = [i for i, a in enumerate(args) if float_leaves(a)]  # (wrt by default: no integers only)
    J = fd_jacobian(f, args, active)
    rtol, atol = (2e-3, 1e-4) if float32 else (1e-5, 1e-7)
    d = adcompiler.differentiate(f)
    v, u = gen.uniform(-1, 1, J.shape[1]), gen.uniform(-1, 1, J.shape[0])
    parts = _split(v, [args[i] for i in active])
    tangents = [
        _with_floats(args[i], iter(np.concatenate([np.ravel(p) for p in part]).tolist()), integers=lambda _: None)
        for i, part in zip(active, parts)
    ]
    every = [tangents[active.index(i)] if i in active else None for i in range(len(args))]
    for given in (tangents, every):  # one per parameter differentiated, or one per parameter (None: an integer's)
        val, tan = d.jvp(args, given)
        _assert(structure_problem(val, value, "jvp's value"))
        _assert(structure_problem(tan, value, "jvp's tangent"))
        _close(float_leaves(tan), J @ v, rtol, atol, "jvp against J v")
    ct = _with_floats(value, iter(u.tolist()))
    val, cts = d.vjp(args, ct)
    _assert(structure_problem(val, value, "vjp's value"))
    assert isinstance(cts, tuple) and len(cts) == len(active), f"vjp gave {len(cts)} cotangents for {len(active)}"
    for i, c in zip(active, cts):
        _assert(structure_problem(c, args[i], f"the cotangent of p{i}", True))
    got = _flat([x for c in cts for x in float_leaves(c) if x is not None])
    _close(got, J.T @ u, rtol, atol, "vjp against J^T u")
    lhs, rhs = float(u @ _flat(float_leaves(tan))), float(got @ v)
    assert abs(lhs - rhs) <= (1e-4 if float32 else 1e-9) * (
        abs(lhs) + abs(rhs) + 1.0
    ), f"<u, Jv> {lhs} != <J^T u, v> {rhs}"
    if _children(value) is None:  # a number out: grad and value_and_grad, as vjp's cotangent 1.0
        ones = d.vjp(args, 1.0)[1]
        g = d.grad(*args)
        _, g2 = d.value_and_grad(*args)
        for grads in (g, g2):
            grads = (grads,) if len(active) == 1 else grads
            for i, a, b in zip(active, grads, ones):
                _assert(structure_problem(a, args[i], f"grad of p{i}", True))
                _close(float_leaves(a), _flat(float_leaves(b)), 1e-12, 1e-12, "grad against vjp(1.0)")
    _, pullback = adcompiler.vjp(f, *args)
    pulled = pullback(ct)
    for i, c in enumerate(pulled):
        assert (c is None) == (i not in active), f"adcompiler.vjp's cotangent of p{i}: {c!r}"
    _close(_flat([x for c in pulled if c is not None for x in float_leaves(c)]), J.T @ u, rtol, atol, "adcompiler.vjp")
    _close(float_leaves(adcompiler.jvp(f, args, every)[1]), J @ v, rtol, atol, "adcompiler.jvp")
    for jac in (adcompiler.jacfwd, adcompiler.jacrev):
        _check_jacobian(jac(f, argnums=tuple(active))(*args), value, [args[i] for i in active], J, rtol, atol)


def _check_jacobian(got, value, wrt: list, J, rtol, atol) -> None:
    """A Jacobian in the output's structure (a list of Python floats is one array), a tuple of blocks per
    output array or number, each block in its argument's structure (None at an integer), against J."""
    rows = []
    for out, blocks in _out_pairs(value, got, "jacobian"):
        _assert("" if isinstance(blocks, tuple) and len(blocks) == len(wrt) else f"jacobian: {blocks!r} per output")
        m, row = int(np.size(out)), []
        for arg, block in zip(wrt, blocks):
            for leaf, b in _in_pairs(arg, block):
                shape = np.shape(out) + np.shape(leaf)
                wide = np.float32 if _dtype(out) == _dtype(leaf) == np.float32 else np.float64
                _assert(
                    ""
                    if np.shape(b) == shape and np.asarray(b).dtype == wide
                    else f"jacobian block {np.shape(b)} {np.asarray(b).dtype} for {shape} {np.dtype(wide)}"
                )
                row.append(np.asarray(b, dtype=float).reshape(m, -1))
        rows.append(np.concatenate(row, axis=1))
    np.testing.assert_allclose(np.concatenate(rows, axis=0), J, rtol=rtol, atol=atol, err_msg="jacobian against J")


def _dtype(x):
    return x.dtype if isinstance(x, (np.ndarray, np.floating)) else np.dtype(float)


def _out_pairs(value, got, where):
    if _joined(value):  # a list of floats: one array
        return [(np.array(value, dtype=float), got)]
    parts = _children(value)
    if parts is None:
        return [(value, got)]
    same = type(got) is type(value) and (_fields(value) is None or list(_fields(got)) == list(_fields(value)))
    _assert("" if same else f"{where}: {type(got).__name__} for {type(value).__name__}")
    return [pair for p, g in zip(parts, _children(got)) for pair in _out_pairs(p, g, where)]


def _in_pairs(arg, block):
    if isinstance(arg, list) and arg and all(type(x) is float for x in arg):  # one array
        return [(np.array(arg), block)]
    if _joined(arg):  # a list of numbers with a float: a list of floats, one array
        return [(np.array(arg, dtype=float), block)]
    parts = _children(arg)
    if parts is None:
        if _integer(arg):
            _assert("" if block is None else f"jacobian block {block!r} for the integer {arg!r}")
            return []
        return [(arg, block)]
    return [pair for p, b in zip(parts, _children(block)) for pair in _in_pairs(p, b)]
