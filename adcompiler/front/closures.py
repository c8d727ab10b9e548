"""Nested functions -> top-level functions that take what they read of the enclosing one (lambda lifting).

A ``def g(z): return np.tanh(W @ z + b)`` inside ``f``, or ``g = lambda z: ...``, reads ``W`` and ``b``
from ``f`` when it is called.  ``lift`` takes every such local function out of ``f``'s body and returns
it as a function of its own, ``def g(W, b, z)``: its free variables (the names of ``f`` it reads, and
those of the local functions it calls) first, then its own parameters.  A call ``g(x)`` in ``f`` is
then lowered as ``g(W, b, x)`` (``lower.expressions``), an ordinary call of a user function, which
Python's own closure would have read at the same moment: each free variable's value at the call, its
derivative included when it has one.  A lambda written as the function of a nested derivative,
``adcompiler.grad(lambda t: t * y)(x)``, is lifted too (under a name of its place, ``lambda_12_8``), so
that ``lower.nested`` differentiates it as a function of ``y`` and ``t``.

Refused, with the location: a local function that calls itself (recursion), one that escapes (returned,
stored, passed anywhere but as ``key=`` to ``max``, ``min`` or ``sorted``), a name that is both a local
function and a variable, a decorator, defaults that are not constants, and a call before the definition.
``nonlocal`` is refused by the fence when the lifted function is read.
"""

from __future__ import annotations

import ast
import copy

from .scopes import nodes

KEY_CALLS = ("max", "min", "sorted")  # calls whose key= may be a local function
NESTED = ("grad", "value_and_grad", "hessian")  # transforms whose lambda argument is lifted as a local function
COMPREHENSIONS = (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)


class Local:
    """A local function of the function being lifted: its lifted definition and its free variables."""

    def __init__(self, name: str, node: ast.FunctionDef, frees: tuple, calls: frozenset):
        self.name = name
        self.node = node  # the lifted definition: frees first, then its own parameters
        self.frees = frees
        self.calls = calls  # the other local functions it calls (by the enclosing function's names)


def _placed(new, old):
    return ast.copy_location(new, old)


def _as_def(name: str, assign: ast.Assign) -> ast.FunctionDef:
    """``name = lambda a: e`` as ``def name(a): return e``, placed at the lambda."""
    lam = assign.value
    ret = _placed(ast.Return(lam.body), lam.body)
    fdef = ast.FunctionDef(name=name, args=lam.args, body=[ret], decorator_list=[], returns=None)
    fdef.type_params = []
    return _placed(fdef, lam)


def _own_nodes(body: list):
    """The nodes of ``body``, not descending into nested ``def``s (whose names are their own)."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _params(args: ast.arguments) -> list:
    every = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
    return [a.arg for a in every]


def _bound(fdef) -> set:
    """The names a function binds itself: parameters, assigned names, its nested functions (not the
    targets of its comprehensions, which have their own scope)."""
    names = set(_params(fdef.args))
    inner = {id(n) for c in _own_nodes(fdef.body) if isinstance(c, COMPREHENSIONS) for n in ast.walk(c)}
    for node in _own_nodes(fdef.body):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in inner:
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
    return names


def _read(fdef) -> set:
    """The names a function's body reads, nested functions and lambdas included."""
    return {
        n.id for stmt in fdef.body for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def inline_transforms(fdef: ast.FunctionDef, globals_: dict) -> None:
    """A local name bound once to a derivative made by a transform (``g = adcompiler.grad(cube)``, ``d =
    adcompiler.differentiate(energy)``) and only called (``g(x)``, ``d.grad(x)``): its calls made calls of the
    transform written out (``adcompiler.grad(cube)(x)``), which ``lower.nested`` works out statically (in
    place).  The transform is known by its ``__adc_static__`` ("call"); making one computes nothing."""
    bound: dict = {}  # name -> its bindings
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.setdefault(node.id, []).append(node)
    params = set(_params(fdef.args))
    for block, i, stmt in _own_statements(fdef):
        made = _made_by_transform(stmt, globals_)
        if made is None or made in params or len(bound.get(made, ())) != 1:
            continue
        uses = [n for n in ast.walk(fdef) if isinstance(n, ast.Name) and n.id == made and n is not stmt.targets[0]]
        called = {id(c.func): c for c in ast.walk(fdef) if isinstance(c, ast.Call)}
        methods = {
            id(a.value): a
            for a in ast.walk(fdef)
            if isinstance(a, ast.Attribute) and a.attr in ("grad", "value_and_grad", "jvp", "vjp") and id(a) in called
        }
        if not uses or not all(id(u) in called or id(u) in methods for u in uses):
            continue
        for use in uses:
            holder_of = called.get(id(use)) or methods[id(use)]
            field_of = "func" if isinstance(holder_of, ast.Call) else "value"
            setattr(holder_of, field_of, _placed(copy.deepcopy(stmt.value), use))
        block[i] = _placed(ast.Pass(), stmt)
    fdef.__dict__.pop("_adc_nodes", None)  # (the tree changed: scopes.nodes walks it again)


def _own_statements(fdef: ast.FunctionDef):
    """``(block, i, statement)`` for each statement of ``fdef``'s own blocks (not of nested ``def``s), each
    block a list that may be written in place at ``i``."""
    for holder in [fdef, *_own_nodes(fdef.body)]:
        for field in ("body", "orelse"):
            block = getattr(holder, field, None)
            if holder is not fdef and isinstance(holder, ast.FunctionDef) or not isinstance(block, list):
                continue
            for i, stmt in enumerate(block):
                yield block, i, stmt


def _made_by_transform(stmt, globals_: dict) -> str | None:
    """The name ``stmt`` binds to what a transform makes (``g = adcompiler.grad(f)``), else None."""
    if not (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Call)
    ):
        return None
    chain, node = [], stmt.value.func
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in globals_:
        return None
    value = globals_[node.id]
    for attr in reversed(chain):
        value = getattr(value, attr, None)
    return stmt.targets[0].id if getattr(value, "__adc_static__", None) == "call" else None


def lift(fdef: ast.FunctionDef, error) -> dict:
    """Take ``fdef``'s local functions out of its body (in place); return them by name as ``Local``s.
    ``error(node, construct, remedy)`` makes the located refusal."""
    if not any(isinstance(n, (ast.FunctionDef, ast.Lambda)) for n in nodes(fdef)[1:]):
        return {}  # nothing to lift (most functions): the walk below is the fence's whole time again
    fdef.__dict__.pop("_adc_nodes", None)  # the tree changes below: scopes.nodes walks it again
    found: dict = {}  # name -> (statement, FunctionDef)
    for block, i, stmt in _own_statements(fdef):
        local = None
        if isinstance(stmt, ast.FunctionDef):
            local = stmt
        elif (
            isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Lambda)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            local = _as_def(stmt.targets[0].id, stmt)
        if local is None:
            continue
        if local.name in found:
            raise error(stmt, f"a second definition of the local function {local.name!r}", "give it another name")
        found[local.name] = (stmt, local)
        block[i] = _placed(ast.Pass(), stmt)
    for node in [n for n in _own_nodes(fdef.body) if isinstance(n, ast.Call)]:  # adcompiler.grad(lambda t: ..., ...)
        lam = (
            node.args[0] if node.args and getattr(node.func, "id", getattr(node.func, "attr", None)) in NESTED else None
        )
        if isinstance(lam, ast.Lambda):
            name = f"lambda_{lam.lineno}_{lam.col_offset}"
            found[name] = (lam, _as_def(name, ast.Assign([ast.Name(name, ast.Store())], lam)))
            node.args[0] = _placed(ast.Name(name, ast.Load()), lam)
    if not found:
        return {}
    outer = _bound(fdef) - set(found)
    for name, (stmt, local) in found.items():
        _check(local, error)
        if name in outer:
            raise error(stmt, f"the name {name!r} of a local function, also a variable", "give them different names")
    frees = {name: (_read(local) - _bound(local)) & (outer | set(found)) for name, (_, local) in found.items()}
    calls = {name: frozenset(frees[name] & set(found)) for name in found}
    for name in found:  # calls of other local functions read what those read: to a fixed point
        seen, todo = set(), [name]
        while todo:
            for callee in frees[todo.pop()] & set(found):
                if callee == name:
                    stmt, local = found[name]
                    raise error(local, f"the recursive local function {name!r}", "define it at module level")
                if callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        frees[name] = set().union(frees[name], *(frees[c] for c in seen)) - set(found)
    _check_uses(fdef, found, error)
    out = {}
    for name, (_, local) in found.items():
        order = tuple(sorted(frees[name]))
        lifted = copy.deepcopy(local)
        lifted.args.args = [_placed(ast.arg(v), local) for v in order] + lifted.args.args
        lifted.decorator_list, lifted.returns = [], None  # annotations may name what only the enclosing one has
        for arg in lifted.args.posonlyargs + lifted.args.args + lifted.args.kwonlyargs:
            arg.annotation = None
        out[name] = Local(name, lifted, order, calls[name])
    return out


def fixed_arity_tree(fdef: ast.FunctionDef, n: int, names=None, keywords: tuple = ()) -> ast.FunctionDef:
    """``def f(a, *xs, **kw)`` as ``def f(a, xs0, ..., xs{n-1})`` whose body starts ``xs = (xs0, ...)``: a
    function called with n extra positional arguments (their names kept clear of every name it reads, or
    ``names``) and the ``keywords`` that go to ``**kw``.  Where ``xs`` is never assigned, ``g(*xs)`` is
    ``g(xs0, ..., xs{n-1})``; where ``kw`` is only passed on (``g(**kw)``), it is ``g(k=k)`` for each of
    ``keywords``, parameters after the others (none: it is dropped; generated code passes them by position).  So a ``functools.wraps`` wrapper,
    ``def wrapper(*args, **kwargs): return 2 * fn(*args, **kwargs)``, is a function of n numbers."""
    new = copy.deepcopy(fdef)
    star, double = new.args.vararg, new.args.kwarg
    taken = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)} | set(_params(fdef.args))
    if double is not None and _only_passed_on(new, double.arg) and not taken & set(keywords):
        for call in (c for c in ast.walk(new) if isinstance(c, ast.Call)):
            spread = [[k] if k.arg is not None or not _named(k.value, double.arg) else None for k in call.keywords]
            passed = [_placed(ast.keyword(k, _placed(ast.Name(k, ast.Load()), call)), call) for k in keywords]
            call.keywords = [k for part in spread for k in (part if part is not None else passed)]
        new.args.args += [_placed(ast.arg(k), double) for k in keywords]
        if new.args.defaults:  # (each call gives them)
            new.args.defaults += [_placed(ast.Constant(None), double) for _ in keywords]
        new.args.kwarg = None
    if star is None:
        return new
    if names is None:
        suffix = ""
        while any(f"{star.arg}{suffix}{i}" in taken for i in range(n)):
            suffix += "_"
        names = [f"{star.arg}{suffix}{i}" for i in range(n)]
    given = len(new.args.args) - len(fdef.args.args)  # the keywords' parameters, after those for xs
    own = new.args.args[: len(new.args.args) - given]
    new.args.args = own + [_placed(ast.arg(name), star) for name in names] + new.args.args[len(own) :]
    if n:  # a default before *xs is then always given (Python fills it first)
        new.args.defaults = []
    new.args.vararg = None
    if all(isinstance(u.ctx, ast.Load) for u in ast.walk(new) if _named(u, star.arg)):  # g(*xs): g(xs0, ...)
        for call in (c for c in ast.walk(new) if isinstance(c, ast.Call)):
            spread = [
                [_placed(ast.Name(v, ast.Load()), a) for v in names] if _starred(a, star.arg) else [a]
                for a in call.args
            ]
            call.args = [a for part in spread for a in part]
    pack = ast.Assign(
        [ast.Name(star.arg, ast.Store())], ast.Tuple([ast.Name(v, ast.Load()) for v in names], ast.Load())
    )
    for node in ast.walk(pack):
        _placed(node, star)
    new.body = [pack] + new.body
    return new


def _named(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _starred(node, name: str) -> bool:
    return isinstance(node, ast.Starred) and _named(node.value, name)


def _only_passed_on(fdef: ast.FunctionDef, name: str) -> bool:
    """Whether ``name`` is read in ``fdef`` only as ``**name`` in calls (never assigned, never read otherwise)."""
    spread = {id(k.value) for c in ast.walk(fdef) if isinstance(c, ast.Call) for k in c.keywords if k.arg is None}
    return all(id(n) in spread for n in ast.walk(fdef) if _named(n, name))


def _check(local: ast.FunctionDef, error) -> None:
    written = next((n for n in ast.walk(local) if isinstance(n, ast.Nonlocal)), None)
    if written is not None:  # before it is compiled on its own, where Python itself refuses it
        raise error(written, "a nonlocal statement", "return the new value from the local function and assign it")
    if local.decorator_list:
        raise error(local.decorator_list[0], "a decorator on a local function", "define it at module level")
    for default in local.args.defaults + [d for d in local.args.kw_defaults if d is not None]:
        value = default.operand if isinstance(default, ast.UnaryOp) else default
        if not isinstance(value, ast.Constant):
            raise error(default, "a default of a local function other than a constant", "pass the value at each call")


def _check_uses(fdef: ast.FunctionDef, found: dict, error) -> None:
    """Each local function only called (or passed as key= to max, min, sorted), after its definition."""
    allowed = set()
    for node in (n for tree in [fdef] + [local for _, local in found.values()] for n in ast.walk(tree)):
        if isinstance(node, ast.Call):  # called, or passed to a function (lowering: one of the user's)
            allowed |= {id(node.func)} | {id(a) for a in node.args}
            if isinstance(node.func, ast.Name) and node.func.id in KEY_CALLS:
                allowed |= {id(k.value) for k in node.keywords if k.arg == "key"}
    for name, (stmt, local) in found.items():
        bodies = [fdef] + [other for n, (_, other) in found.items() if n != name]
        for body in bodies:
            for node in ast.walk(body):
                if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
                    continue
                if id(node) not in allowed:
                    raise error(
                        node,
                        f"the local function {name!r} used as a value (returned, stored or passed)",
                        "call it where it is defined, or define it at module level and pass its inputs",
                    )
                if body is fdef and (node.lineno, node.col_offset) < (stmt.lineno, stmt.col_offset):
                    raise error(node, f"the local function {name!r} called before its definition", "define it first")


__all__ = ["KEY_CALLS", "Local", "fixed_arity_tree", "lift"]
