"""Fast entries: what ``f.grad``, ``f.jvp``, ``f.vjp`` and ``f.value_and_grad`` become after a
call with floats (and float arrays).

An entry is a small generated function.  It tests that its arguments are like that first call's
(a type test each) and runs the generated derivative; anything else goes to the checking method
of ``Differentiable``, which binds keywords and defaults, refuses integers and wrong structures,
and specialises for other arrays.  For a small derivative (straight-line code, a few lines) the
entry holds the derivative's body itself: a Python call costs about as much as ``x * y``'s whole
tangent, and the forward mode of ``x * y`` is what the hand-written tangent is measured against.
"""

from __future__ import annotations

import inspect

from .emit import render_body
from .ir import Def, ForS, IfS, WhileS
from .load import load

_INLINE_LIMIT = 30  # statements: a longer derivative's own work hides the cost of one call


def make_entry(
    name: str, owner, generated, method, sequences=None, arrays=frozenset(), ndarray=None, source=None, list_kinds=None
):
    """The entry ``f.<name>`` of Differentiable ``owner``: ``generated`` (the derivative for this
    call's kinds of arguments) when the arguments are like this call's, else ``method(owner, ...)``.

    ``sequences``: the entry's parameters, each with the number of values it holds (None: passed
    whole), in the order ``generated`` takes their values; None: the function's own parameters.
    ``arrays``: the parameters that are float arrays (their tangents: arrays of the same shape).
    ``source``: ``(Def, Namespace)``, the IR ``generated`` was emitted from, to inline a short body.
    ``list_kinds``: for each list parameter, its type and its first leaf's type: what decides, with
    the other arguments' types, which generated code the method would run (a list's tangent is
    checked as the method checks it, by ``tangent_mismatch``).
    """
    code = generated.__code__
    gen_params = code.co_varnames[: code.co_argcount]
    body = _inlined_body(*source) if source is not None else None
    if body is not None and sequences is None and gen_params != owner.params:
        body = None
    space = generated.__globals__ if body is not None else {}  # the body's globals, if it is inlined
    taken = set(space) | set(code.co_varnames) | set(code.co_names) | set(owner.params)
    wholes = [p for p, n in sequences or () if p != "ct"]
    parts = [f"ct{j}" for p, n in sequences or () if p == "ct" for j in range(n or 0)]
    defaults = [f"default{i}" for i in range(len(owner.params))]
    kinds = [f"{k}{i}" for i in range(len(owner.params)) for k in ("list", "leaf")]
    helpers = ("generated", "method", "owner", "ndarray", "first_leaf", "mismatch")
    g = _fresh([name, *helpers, *_BUILTINS, *wholes, *parts, *defaults, *kinds], taken)
    space.update({g[k]: v for k, v in _BUILTINS.items()})
    space.update({g["generated"]: generated, g["method"]: method, g["owner"]: owner, g["ndarray"]: ndarray})
    if sequences is None:
        head, guard = _own_parameters(owner, g, space, arrays, list_kinds or {})
    else:
        head, guard = _sequence_parameters(owner, gen_params, sequences, g, space, arrays, list_kinds or {})
    if body is None:
        body = [f"return {g['generated']}({', '.join(gen_params)})"]
    text = "\n".join([f"def {g[name]}({head}):", *guard, *("    " + line for line in body), ""])
    load(text, space, f"{name} entry of {owner.fn.__qualname__}")
    entry = space.pop(g[name])
    entry.__name__ = entry.__qualname__ = name
    entry.__self__ = owner  # like the bound method it replaces: differentiate(f.grad) finds f
    return entry


def first_leaf(value):
    """The type of the first non-list element of a (nested) list or tuple (None if empty): what
    decides whether a list argument holds arrays (``api._holds_array``)."""
    while isinstance(value, (list, tuple)):
        if not value:
            return None
        value = value[0]
    return type(value)


def tangent_mismatch(value, tangent, where="") -> str:
    """Why ``tangent`` cannot be a tangent of ``value`` (lists must match in length and nesting), or ""."""
    if isinstance(value, (list, tuple)):
        if not isinstance(tangent, (list, tuple)) and not hasattr(tangent, "shape"):
            return f"{where or 'it'} is a {type(value).__name__} of {len(value)} but the tangent is {type(tangent).__name__}"
        if len(tangent) != len(value):
            return f"{where or 'it'} has {len(value)} elements but the tangent has {len(tangent)}"
        if value and isinstance(value[0], (list, tuple)):  # flat lists (uniform): checking the length is enough
            for k, (v, t) in enumerate(zip(value, tangent)):
                if isinstance(v, (list, tuple)) and tangent_mismatch(v, t):
                    return tangent_mismatch(v, t, f"{where}[{k}]")  # named only when wrong: formatting costs
        return ""
    if type(value).__name__ == "ndarray":  # numbers carry vector tangents
        shape = value.shape
        other = getattr(tangent, "shape", ())
        if tuple(other) != shape and not (isinstance(tangent, (int, float)) and tangent == 0):
            return f"{where or 'it'} has shape {shape} but the tangent has shape {tuple(other)}"
        return ""
    if isinstance(tangent, (list, tuple)):
        return f"{where or 'it'} is a number but the tangent is a {type(tangent).__name__}"
    return ""


# what the entry's tests call, as globals no name of the derivative's body can shadow
_BUILTINS = {
    "type": type,
    "float": float,
    "isinstance": isinstance,
    "seq": (tuple, list),
}


def _fresh(bases, taken) -> dict:
    """``base + "_" * width`` for each base, with the least width that clashes with no taken name."""
    width = 1
    while any(b + "_" * width in taken for b in bases):
        width += 1
    return {b: b + "_" * width for b in bases}


def _test(v: str, array: bool, exact: bool, g: dict) -> str:
    """The test that value ``v`` is like this call's: a float array, or a float."""
    if array:
        return f'{g["type"]}({v}) is {g["ndarray"]} and {v}.dtype.kind == "f"'
    return f"{g['type']}({v}) is {g['float']}" if exact else f"{g['isinstance']}({v}, {g['float']})"


def _own_parameters(owner, g, space, arrays, list_kinds):
    """Head and guard of an entry taking the function's own parameters (``grad``, ``value_and_grad``)."""
    signature = []
    for i, (n, param) in enumerate(owner.signature.parameters.items()):
        if param.default is not inspect.Parameter.empty:
            space[g[f"default{i}"]] = param.default
            n = f"{n}={g[f'default{i}']}"
        signature.append(n)
    tests = [_kind_test(n, i, n, g, space, arrays, list_kinds, True) for i, n in enumerate(owner.params)]
    call = f"{g['method']}({g['owner']}, {', '.join(owner.params)})"
    return ", ".join(signature), [f"    if not ({' and '.join(tests) or 'True'}):", f"        return {call}"]


def _kind_test(v: str, i: int, param: str, g, space, arrays, list_kinds, exact: bool) -> str:
    """The test that value ``v`` of parameter ``param`` (the ``i``-th) is like this call's: a float, a float array, or a
    list of the same type holding the same type of leaf first."""
    if param in list_kinds:
        space[g[f"list{i}"]], space[g[f"leaf{i}"]] = list_kinds[param]
        space[g["first_leaf"]] = first_leaf
        return f"{g['type']}({v}) is {g[f'list{i}']} and {g['first_leaf']}({v}) is {g[f'leaf{i}']}"
    return _test(v, param in arrays, exact, g)


def _sequence_parameters(owner, gen_params, sequences, g, space, arrays, list_kinds):
    """Head and guard of an entry taking sequences (``jvp(primals, tangents)``, ``vjp(primals,
    ct)``).  Primals and tangents are unpacked into the generated function's parameter names; the
    cotangent is its one parameter, unpacked only to test a tuple's parts.

    Unpacking in a ``try`` costs nothing when it succeeds, where testing each sequence's type and
    length first cost as much as the tangent of ``x * y``.  A one-shot iterator spent so is handed
    on as a tuple of its values, so only where any other length is an error anyway: not the
    primals of a function with defaults, nor a tuple cotangent (the generated code unpacks it
    again, and the method takes only a tuple or list)."""
    has_defaults = any(p.default is not inspect.Parameter.empty for p in owner.signature.parameters.values())
    heads, slots, k = [], [], 0
    for p, n in sequences:  # the generated parameters each sequence fills
        width = 1 if p == "ct" else n
        heads.append(gen_params[k] if p == "ct" else g[p])
        slots.append(gen_params[k : k + width])
        k += width
    guard, tests, passed = [], [], list(heads)
    for i, ((p, n), head, slot) in enumerate(zip(sequences, heads, slots)):
        items = slot if p != "ct" or n is None else [g[f"ct{j}"] for j in range(n)]
        if n is not None:
            target = "()" if n == 0 else ", ".join(items) + ("," if n == 1 else "")
            fallback = f"        return {g['method']}({g['owner']}, {', '.join(passed)})"
            if p == "ct" or p == "primals" and has_defaults:
                test = f"{g['type']}({head}) in {g['seq']} and len({head}) == {n}"
                guard += [f"    if not ({test}):", fallback, f"    {target} = {head}"]
            else:
                guard += ["    try:", f"        {target} = {head}", "    except (TypeError, ValueError):", fallback]
            if p != "ct":
                passed[i] = f"({target})"
        for j, v in enumerate(items):
            if p == "primals":
                tests.append(_kind_test(v, j, owner.params[j], g, space, arrays, list_kinds, False))
            elif p == "tangents" and owner.wrt[j] in arrays:  # an array of its primal's shape
                primal = gen_params[owner.params.index(owner.wrt[j])]
                tests.append(f'{g["type"]}({v}) is {g["ndarray"]} and {v}.shape == {primal}.shape')
            elif p == "tangents" and owner.wrt[j] in list_kinds:  # a list of its primal's structure
                space[g["mismatch"]] = tangent_mismatch
                primal = gen_params[owner.params.index(owner.wrt[j])]
                tests.append(f"not {g['mismatch']}({primal}, {v})")
            elif p == "ct" and arrays:  # an array output's cotangent: any float or array, as in vjp
                tests.append(f'({_test(v, False, False, g)} or {g["type"]}({v}) is {g["ndarray"]})')
            else:
                tests.append(_test(v, False, False, g))
    guard += [
        f"    if not ({' and '.join(tests) or 'True'}):",
        f"        return {g['method']}({g['owner']}, {', '.join(passed)})",
    ]
    return ", ".join(heads), guard


def _inlined_body(d: Def | None, ns) -> list | None:
    """The statements of generated function ``d`` as source lines if it is short and straight-line
    (no loop: a loop's own work hides the cost of one call), else None."""
    if d is None:
        return None
    count, todo = 0, list(d.body)
    while todo:
        s = todo.pop()
        count += 1
        if isinstance(s, (ForS, WhileS)) or count > _INLINE_LIMIT:
            return None
        if isinstance(s, IfS):
            todo.extend(s.body + s.orelse)
    return render_body(d, ns)
