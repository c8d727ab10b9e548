"""The Numba target's adjoint accumulators added into in place: where a function made an accumulator zeros
of its array's shape and nothing else can hold it, its sums ``d = d + e`` become ``d += e`` and its
``d = scatter_add(d, x, index, g)`` become ``scatter_into`` (``scatters``), so that neither makes an array
(on the emitted ``ast``, as the rest of ``translate``).
"""

from __future__ import annotations

import ast

from ...modes.handed import is_reverse_sweep


def added_in_place(
    function: ast.FunctionDef, owned: set, scatter_add: set = frozenset(), like: set = frozenset(), into=None
) -> None:
    """``d = d + e`` made ``d += e``, in place, and ``d = scatter_add(d, x, index, g)`` made ``d =
    scatter_into(d, x, index, g)`` (``into(args)``: that call), which always adds into d itself, for each
    accumulator ``d`` of ``owned`` (one the function made zeros of its array's shape: ``visit_FunctionDef``)
    that nothing else can hold: every other line that binds it is such a sum or ``d = scatter_add(d, ...)``,
    and every other read of it comes after the last of them, at the function's top level (``return
    array_like(d, x)``).  Each sum then adds into the accumulator instead of making an array of its shape
    (GradBench lstm's ``d_main_params`` once a character; the adjoint of a value read in one branch, added
    into zeros; det's ``d_A`` at each level of its recursion), and each scatter_add adds without the test
    for another shape, whose possible new array costs Numba's counting of references a call (the shared
    parameters of a prange loop's chunk: particles' ``d_centres`` and ``d_strengths``).  The sum has the
    accumulator's shape: an adjoint is never larger than its array."""
    if not owned:
        return
    sums, last, reads = {}, {}, {}
    parallel = {  # (a sum in a prange loop is Numba's reduction, which it spells its own way)
        id(n) for loop in ast.walk(function) if _prange(loop) for n in ast.walk(loop) if isinstance(n, ast.Assign)
    }
    for k, stmt in enumerate(function.body):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign) and (_self_sum(node) or _self_scatter(node, scatter_add)) in owned:
                sums.setdefault(node.targets[0].id, []).append(node)
                last[node.targets[0].id] = k
    for name in [n for n, nodes in sums.items() if any(id(a) in parallel for a in nodes)]:
        del sums[name]
    for k, stmt in enumerate(function.body):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id in owned:
                reads.setdefault(node.id, []).append((k, node))
    in_sums = {id(n.targets[0]) for ns in sums.values() for n in ns} | {
        id(n.value.left if isinstance(n.value, ast.BinOp) else n.value.args[0]) for ns in sums.values() for n in ns
    }
    for node in ast.walk(function):  # d = scatter_add(d, x, index, g): d itself, or a new array
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            call = node.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in scatter_add:
                first = call.args[0] if call.args else None
                if isinstance(first, ast.Name) and first.id == node.targets[0].id in sums:
                    in_sums |= {id(node.targets[0]), id(first)}
        in_sums |= _handed(node, sums, like)
    params = {a.arg for a in function.args.args}
    for name, nodes in sums.items():
        others = [(k, n) for k, n in reads.get(name, ()) if id(n) not in in_sums]
        stores = [n for k, n in others if isinstance(n.ctx, ast.Store)]
        if len(stores) != (name not in params) or any(
            k <= last[name] for k, n in others if isinstance(n.ctx, ast.Load)
        ):
            continue  # (bound otherwise than by its zeros (or as the accumulator handed in) and the sums, or read
            # before the last sum)
        for assign in nodes:
            if _self_scatter(assign, scatter_add):
                if into is not None:
                    assign.value = ast.copy_location(into(assign.value.args), assign.value)
                continue
            augmented = ast.AugAssign(assign.targets[0], ast.Add(), assign.value.right)
            ast.copy_location(augmented, assign)
            _replace(function, assign, augmented)
        _unwrapped(function, name, like)


def _unwrapped(function: ast.FunctionDef, name: str, like: set) -> None:
    """Each ``array_like(name, x)`` in ``function`` made ``name``: the accumulator, added into in place, is an
    array of x's shape all along (its zeros, or the caller's: ``modes.handed``), which array_like gives back
    as it is, after a call that tests its shape (det's ``d_A`` handed down and returned at every level of its
    recursion)."""
    for node in ast.walk(function):
        for field, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for k, item in enumerate(items):
                if not (isinstance(item, ast.Call) and isinstance(item.func, ast.Name) and item.func.id in like):
                    continue
                if len(item.args) == 2 and not item.keywords and _named(item.args[0], name):
                    if isinstance(value, list):
                        value[k] = item.args[0]
                    else:
                        setattr(node, field, item.args[0])


def _named(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _handed(node, sums: dict, like: set) -> set:
    """The ids of the names in ``d, ... = g_reverse_sweep(residuals, ct, array_like(d, x), ...)`` that are an
    accumulator of ``sums`` handed to a called function's reverse sweep (``modes.handed``), which adds into
    it (an array of its shape: ``array_like`` gives it back) and returns it: bound and read as by a sum."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)):
        return set()
    call, target = node.value, node.targets[0]
    if not (isinstance(call.func, ast.Name) and is_reverse_sweep(call.func.id)):
        return set()
    names = [target] if isinstance(target, ast.Name) else list(getattr(target, "elts", ()))
    out = set()
    for arg in call.args[2:]:
        inner = arg.args[0] if isinstance(arg, ast.Call) and getattr(arg.func, "id", None) in like and arg.args else arg
        bound = [n for n in names if isinstance(n, ast.Name) and isinstance(inner, ast.Name) and n.id == inner.id]
        if bound and inner.id in sums:
            out |= {id(bound[0]), id(inner)}
    return out


def _prange(node) -> bool:
    """Whether ``node`` is a ``for`` loop over ``prange(...)`` (``numba.prange``)."""
    it = getattr(node, "iter", None) if isinstance(node, ast.For) else None
    func = getattr(it, "func", None)
    return getattr(func, "attr", getattr(func, "id", None)) == "prange"


def _self_sum(node: ast.Assign) -> str | None:
    """``d`` where ``node`` is ``d = d + e`` (``e`` not reading ``d``), else None."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return None
    value, name = node.value, node.targets[0].id
    if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and isinstance(value.left, ast.Name)):
        return None
    if value.left.id != name or any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value.right)):
        return None
    return name


def _self_scatter(node: ast.Assign, scatter_add: set) -> str | None:
    """``d`` where ``node`` is ``d = scatter_add(d, x, index, g)`` (``scatter_add``: the names it is called
    by), ``x``, ``index`` and ``g`` not reading ``d``, else None."""
    scattered = _scatter_of(node, scatter_add)
    if scattered is None:
        return None
    name, call = scattered
    if not (isinstance(call.args[0], ast.Name) and call.args[0].id == name):
        return None
    if any(isinstance(n, ast.Name) and n.id == name for a in call.args[1:] for n in ast.walk(a)):
        return None
    return name


def _replace(tree, old, new) -> None:
    """``old``, a statement somewhere in ``tree``, replaced by ``new`` in its block."""
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(s is old for s in block):
                block[[id(s) for s in block].index(id(old))] = new
                return


def chained_in_place(function: ast.FunctionDef, scatter_add: set, into, named: str) -> None:
    """``b = scatter_add(a, x, index, g)`` made ``b = scatter_into(a, x, index, g)`` (``into(args)``: that
    call, of the helper ``named``) where ``a`` is the result of a scatter_add (or scatter_into) of the same ``x`` earlier in the
    same block, with no line between them binding ``x`` or ``a``, and nothing else reads ``a``: a
    scatter's result always has x's shape, so the next one need not test for another (the chains of
    adjoints of one array's elements, ``d[0] * d[0] + d[1] * d[1]``: 14 ns a link against 1)."""
    scatters = set(scatter_add) | {named}
    loads: dict = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id] = loads.get(node.id, 0) + 1
    for node in ast.walk(function):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                _chained(block, scatters, scatter_add, loads, into)


def _chained(block: list, scatters: set, scatter_add: set, loads: dict, into) -> None:
    made: dict = {}  # a name bound here to a scatter's result -> the name of its x
    for stmt in block:
        scattered = _scatter_of(stmt, scatters)
        if scattered is not None and not isinstance(scattered[1].args[1], ast.Name):
            scattered = None  # (x an expression: no name to tell the same array by)
        if scattered is not None:
            target, call = scattered
            first, x = call.args[0], call.args[1].id
            later = {n.id for a in call.args[1:] for n in ast.walk(a) if isinstance(n, ast.Name)}
            if (
                call.func.id in scatter_add
                and isinstance(first, ast.Name)
                and made.get(first.id) == x
                and loads.get(first.id) == 1
                and first.id not in later
            ):
                stmt.value = ast.copy_location(into(call.args), call)
        bound = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        made = {a: of for a, of in made.items() if a not in bound and of not in bound}
        if scattered is not None:
            made[target] = x


def _scatter_of(stmt, scatters: set):
    """(``b``, the call) where ``stmt`` is ``b = s(a, x, index, g)``, ``s`` a name of ``scatters``, else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    call = stmt.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in scatters):
        return None
    if len(call.args) != 4 or call.keywords:
        return None
    return stmt.targets[0].id, call
