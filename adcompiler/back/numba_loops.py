"""Which adjoint loops of generated code may run forward: the Numba target's ``reversed(range(...))``.

An adjoint loop runs its iterations last first.  Where no iteration reads what another writes, the
order is not observable, and a forward ``range`` is quicker in compiled code (LLVM vectorises it and
the memory is read in the order it lies in).  This module says when that is so, on the generated
``ast``, with a sufficient test that asks nothing of the rest of the compiler:

* the body is assignments only (no branch, loop, jump or call but of ``math`` and NumPy functions);
* every subscript in it, read or written, is at the loop variable itself (``d_xs[j]``, ``row[j]``): each
  iteration touches its own element of every array, so iterations share no element;
* what it writes into is an array of zeros the function made (or a row of one), not a view of
  anything else, so no two names it reads or writes share memory in other ways;
* each name it assigns is assigned before it is read in the body (no value carried from one
  iteration to the next) and is read nowhere else in the function (its last value is not read);
* the loop variable is read nowhere but in loops over it.

Each element then gets the same operations in the same order whichever way the loop runs, so the
results are the same to the bit.
"""

from __future__ import annotations

import ast


def runs_forward(loop: ast.For, function: ast.FunctionDef, modules: set, marker: str, zeros: set) -> bool:
    """Whether ``loop`` (over ``reversed(range(...))``) may run its iterations first to last;
    ``modules``: the names of the modules whose functions are pure (math, numpy); ``marker``: the
    name of the call that stands for a comment; ``zeros``: the names of the functions that make
    fresh arrays of zeros (``numpy.zeros``, ``zeros_rows``)."""
    if loop.orelse or not isinstance(loop.target, ast.Name) or _written(loop.target.id, loop):
        return False
    index = loop.target.id
    assigned: set = set()
    for stmt in loop.body:
        if _comment(stmt, marker):
            continue
        if not isinstance(stmt, (ast.Assign, ast.AugAssign)):
            return False
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if not all(isinstance(t, (ast.Name, ast.Subscript)) for t in targets):
            return False
        reads = [n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)]
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            reads.append(stmt.target.id)
        if any(_written(name, loop) and name not in assigned for name in reads):
            return False  # read before this iteration assigns it: carried from the last one
        assigned.update(t.id for t in targets if isinstance(t, ast.Name))
    for node in ast.walk(ast.Module(loop.body, [])):
        if isinstance(node, ast.Subscript) and not (isinstance(node.slice, ast.Name) and node.slice.id == index):
            return False
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store)
            and not _fresh(node.value, function, index, zeros)
        ):
            return False
        if isinstance(node, ast.Call) and not _pure(node, modules, marker):
            return False
    inside = {id(n) for n in ast.walk(loop)}
    for node in ast.walk(function):  # the last iteration's values are read nowhere after the loop
        if (
            isinstance(node, ast.Name)
            and node.id in assigned
            and isinstance(node.ctx, ast.Load)
            and id(node) not in inside
        ):
            return False
    return not _read_outside_loops_over(index, function)


def _comment(stmt, marker: str) -> bool:
    call = getattr(stmt, "value", None)
    return isinstance(stmt, ast.Expr) and isinstance(call, ast.Call) and getattr(call.func, "id", None) == marker


def _written(name: str, loop: ast.For) -> bool:
    """Whether the loop's body assigns ``name`` itself (not an element of it)."""
    for node in ast.walk(ast.Module(loop.body, [])):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
    return False


def _fresh(base, function: ast.FunctionDef, index: str, zeros: set) -> bool:
    """Whether ``base`` is a name the function assigns once, to zeros it makes or to a row ``a[i]`` of
    such zeros (``i`` not the loop's index)."""
    if not isinstance(base, ast.Name):
        return False
    found = [s for s in ast.walk(function) if any(base.id in _names(t) for t in _binds(s))]
    if base.id in {a.arg for a in function.args.args + function.args.kwonlyargs}:
        return False
    if len(found) != 1 or not isinstance(found[0], ast.Assign) or len(found[0].targets) != 1:
        return False
    value = found[0].value
    if isinstance(value, ast.Call):
        return ast.unparse(value.func) in zeros
    row = isinstance(value, ast.Subscript) and not (isinstance(value.slice, ast.Name) and value.slice.id == index)
    return row and not isinstance(value.slice, ast.Slice) and _fresh(value.value, function, index, zeros)


def _binds(node) -> list:
    """The targets ``node`` itself binds names in."""
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr, ast.comprehension)):
        return [node.target]
    if isinstance(node, ast.With):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return []


def _names(target) -> set:
    """The names a target binds (``a``, ``a, b``; not ``a[k]``, which binds none)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*map(_names, target.elts))
    if isinstance(target, ast.Starred):
        return _names(target.value)
    return set()


def _pure(call: ast.Call, modules: set, marker: str) -> bool:
    """The comment marker, or a function of a module in ``modules`` (math, NumPy) called with
    positional arguments only and too few of them for an ``out`` argument: ``math.cos(t)``,
    ``np.exp(t)``, ``np.where(c, a, b)``, never ``np.add(a, b, acc)``, which writes into acc."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == marker
    module = func.value if isinstance(func, ast.Attribute) else None
    if not isinstance(module, ast.Name) or module.id not in modules or call.keywords:
        return False
    return len(call.args) <= (3 if func.attr == "where" else 1 if func.attr in _TWO_WITH_OUT else 2)


# NumPy functions of one operand whose second positional argument is ``out`` (or an axis).
_TWO_WITH_OUT = {
    "sum",
    "prod",
    "max",
    "min",
    "amax",
    "amin",
    "mean",
    "cumsum",
    "negative",
    "positive",
    "sqrt",
    "exp",
    "log",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sinh",
    "cosh",
    "abs",
    "absolute",
    "sign",
    "square",
    "arcsin",
    "arccos",
    "arctan",
    "log1p",
    "expm1",
    "log2",
    "log10",
    "exp2",
    "reciprocal",
    "fabs",
}


def _read_outside_loops_over(index: str, function: ast.FunctionDef) -> bool:
    """Whether ``index`` is read anywhere but inside a ``for index in ...`` loop."""
    inside: set = set()
    for node in ast.walk(function):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.target.id == index:
            inside.update(id(n) for n in ast.walk(node))
    return any(
        isinstance(n, ast.Name) and n.id == index and isinstance(n.ctx, ast.Load) and id(n) not in inside
        for n in ast.walk(function)
    )
