"""Which adjoint loops of generated code may run forward: the Numba target's ``reversed(range(...))``.

An adjoint loop runs its iterations last first.  Where the iterations commute, the order is not
observable but for the order of a sum, and a forward ``range`` is quicker in compiled code (LLVM
vectorises it, and the memory is read in the order it lies in and in the order the primal read it:
the reversed outer loop of ``sum_mat_vec``'s adjoint on 300x300 rows took 1.3x the forward one).
This module says when that is so, on the generated ``ast``, with a sufficient test that asks nothing
of the rest of the compiler:

* the body is assignments, ``if``, ``for`` loops and expressions (no ``while``, jump or return), and
  it calls only ``math`` and NumPy functions without an ``out`` argument and ``len``, ``range``,
  ``reversed``;
* each name it assigns is assigned in an iteration before that iteration reads it (no value carried
  from one iteration to the next) and is read after the loop nowhere (its last value is not read);
* it writes into arrays of zeros the function made (``numpy.zeros``, ``zeros_rows``), never into an
  argument or a view of anything else, in one of three ways, each array in one way only:

  - **elements at the loop index**, ``d_xs[j] = ...``, the array read only at ``[j]`` too: each
    iteration touches its own element;
  - **its own row**, ``d_row = d_M[i]`` bound in the iteration, then read and written at any index:
    rows of different iterations are different memory;
  - **a sum**, ``d_v[k] += ...``, the array read nowhere in the loop: the iterations add their terms
    in another order;

* nothing else it reads is one of those arrays or derived from one (a name assigned, outside the
  loop, from an expression that mentions one);
* the loop variable is read nowhere but in loops over it.

Each element then gets the same operations in the same order whichever way the loop runs, except the
sums, whose terms are added in the other order: the same numbers up to rounding, as between any two
orders of a sum (the python target keeps the reversed order).
"""

from __future__ import annotations

import ast

_BUILTINS = {"len", "range", "reversed"}  # pure calls generated code makes


def runs_forward(loop: ast.For, function: ast.FunctionDef, modules: set, marker: str, zeros: set) -> bool:
    """Whether ``loop`` (over ``reversed(range(...))``) may run its iterations first to last;
    ``modules``: the names of the modules whose functions are pure (math, numpy); ``marker``: the
    name of the call that stands for a comment; ``zeros``: the names of the functions that make
    fresh arrays of zeros (``numpy.zeros``, ``zeros_rows``)."""
    if loop.orelse or not isinstance(loop.target, ast.Name) or _written(loop.target.id, loop):
        return False
    index = loop.target.id
    local = set().union(*(_names(t) for node in _walk(loop.body) for t in _binds(node)))
    if not _statements(loop.body, set(), local):
        return False
    for node in _walk(loop.body):
        if isinstance(node, ast.Call) and not _pure(node, modules, marker):
            return False
    if not _memory(loop, function, index, zeros):
        return False
    return not (_read_after(local, loop, function) or _read_outside_loops_over(index, function))


def _statements(body: list, assigned: set, local: set) -> bool:
    """Whether each statement of ``body`` is of the kinds the loop may hold, reading a name the loop
    assigns (``local``) only after this iteration has (``assigned``, extended in place)."""
    for stmt in body:
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr)):
            reads = [n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)]
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
            for t in filter(None, targets):
                if not isinstance(t, (ast.Name, ast.Subscript)):
                    return False
                reads += [n.id for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                reads.append(stmt.target.id)
            if any(name in local and name not in assigned for name in reads):
                return False  # read before this iteration assigns it: carried from the last one
            assigned.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.If):
            if not _statements([ast.Expr(stmt.test)], assigned, local):
                return False
            branches = [set(assigned), set(assigned)]
            if not all(_statements(b, s, local) for b, s in zip((stmt.body, stmt.orelse), branches)):
                return False
            assigned |= branches[0] & branches[1]
        elif isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name) and not stmt.orelse:
            if not _statements([ast.Expr(stmt.iter)], assigned, local):
                return False
            if not _statements(stmt.body, assigned | {stmt.target.id}, local):
                return False  # what the inner loop assigns may be unassigned after it (no trip)
        else:
            return False
    return True


def _memory(loop: ast.For, function: ast.FunctionDef, index: str, zeros: set) -> bool:
    """Whether the loop writes only into fresh zeros, each array in one way (its elements at the
    loop index, a row of its own per iteration, or a sum), and reads none of them otherwise."""
    derived = _derived(function, zeros, {id(n) for n in ast.walk(loop)})
    owned = {}  # a row bound in the iteration -> the array of zeros it is a row of
    for node in _walk(loop.body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if _at(value, index) and _made(value.value, function, zeros):
                owned[node.targets[0].id] = value.value.id
    ways: dict = {}  # root array -> the one way the loop touches it, and the names it does so through
    sums = {id(n.target) for n in _walk(loop.body) if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add)}
    subscripted = set()
    for node in _walk(loop.body):
        if not isinstance(node, ast.Subscript):
            continue
        base = node.value
        subscripted.add(id(base))
        if not isinstance(base, ast.Name):
            if isinstance(node.ctx, ast.Store) or any(n.id in derived for n in _loads(base)):
                return False  # a[k][j] = ..., or a read through a row of fresh zeros
            continue
        name = base.id
        if name in owned and _bound_once(name, loop):
            way, root = "row", owned[name]
        elif name in owned.values() and _at(node, index) and isinstance(node.ctx, ast.Load):
            way, root = "row", name  # d_row = d_M[i]: the binding of a row of its own
        elif isinstance(node.ctx, ast.Load) and name not in derived:
            continue
        elif _fresh(base, function, index, zeros) and id(node) in sums:
            way, root = "sum", _root(name, function)
        elif _fresh(base, function, index, zeros) and _at(node, index):
            way, root = "element " + name, _root(name, function)  # one name: a[i] and a row b = a[0] overlap
        else:
            return False
        if ways.setdefault(root, way) != way:
            return False
    for node in _walk(loop.body):  # a fresh array read whole (not through a subscript above)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in subscripted:
            if node.id in derived and node.id not in owned:
                return False
    return True


def _at(node, index: str) -> bool:
    """Whether ``node`` is ``a[index]``."""
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == index


def _bound_once(name: str, loop: ast.For) -> bool:
    return sum(name in _names(t) for node in _walk(loop.body) for t in _binds(node)) == 1


def _derived(function: ast.FunctionDef, zeros: set, inside: set) -> set:
    """The names of fresh zeros the function makes and of every name assigned outside the loop
    (``inside``: its nodes) from an expression that mentions one of them: all that may share their memory."""
    found: set = set()
    bindings = [(node, t) for node in ast.walk(function) if id(node) not in inside for t in _binds(node)]
    for node, _ in bindings:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and ast.unparse(node.value.func) in zeros:
            found |= set().union(*map(_names, node.targets))
    changed = True
    while changed:
        changed = False
        for node, target in bindings:
            value = node.iter if isinstance(node, (ast.For, ast.comprehension)) else getattr(node, "value", None)
            if value is not None and any(n.id in found for n in _loads(value)) and not _names(target) <= found:
                found |= _names(target)
                changed = True
    return found


def _made(base, function: ast.FunctionDef, zeros: set) -> bool:
    """Whether ``base`` names an array of zeros the function makes: assigned once, by a call of ``zeros``."""
    if not isinstance(base, ast.Name) or base.id in {a.arg for a in function.args.args + function.args.kwonlyargs}:
        return False
    found = [s for s in ast.walk(function) if any(base.id in _names(t) for t in _binds(s))]
    return (
        len(found) == 1
        and isinstance(found[0], ast.Assign)
        and isinstance(found[0].value, ast.Call)
        and ast.unparse(found[0].value.func) in zeros
    )


def _root(name: str, function: ast.FunctionDef) -> str:
    """The array of zeros a fresh ``name`` is (itself) or is a row of (``name = a[k]``)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == [name]:
            if isinstance(node.value, ast.Subscript) and isinstance(node.value.value, ast.Name):
                return _root(node.value.value.id, function)
    return name


def _loads(node) -> list:
    return [n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def _walk(body: list):
    """Every node of the statements ``body``."""
    return ast.walk(ast.Module(body, []))


def _read_after(local: set, loop: ast.For, function: ast.FunctionDef) -> bool:
    """Whether a name the loop assigns is read outside it where the read may see the loop's last value:
    after it, or anywhere when a loop encloses it."""
    inside = {id(n) for n in ast.walk(loop)}
    enclosed = any(
        isinstance(node, (ast.For, ast.While)) and node is not loop and id(loop) in {id(n) for n in ast.walk(node)}
        for node in ast.walk(function)
    )
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Name)
            and node.id in local
            and isinstance(node.ctx, ast.Load)
            and id(node) not in inside
        ):
            if enclosed or node.lineno >= loop.lineno:
                return True
    return False


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
    """The comment marker, ``len``, ``range``, ``reversed``, or a function of a module in ``modules`` (math, NumPy) called with
    positional arguments only and too few of them for an ``out`` argument: ``math.cos(t)``,
    ``np.exp(t)``, ``np.where(c, a, b)``, never ``np.add(a, b, acc)``, which writes into acc."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == marker or func.id in _BUILTINS and not call.keywords
    module = func.value if isinstance(func, ast.Attribute) else None
    if not isinstance(module, ast.Name) or module.id not in modules or call.keywords or func.attr in _WRITERS:
        return False
    return len(call.args) <= (3 if func.attr == "where" else 1 if func.attr in _TWO_WITH_OUT else 2)


# NumPy functions that write into their first argument.
_WRITERS = {"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis"}

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
