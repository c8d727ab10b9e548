"""The Numba target: generated Python source -> source that ``numba.njit`` compiles in nopython mode.

The python target's code is already close to what Numba types; this pass rewrites the few
constructs it does not (on the emitted ``ast``, so the modes stay target-free):

* ``reversed(range(a, b, s))`` becomes the counting-down ``range`` with the same elements;
* the argument checks (``reject_ints``, ``expect``) are dropped: they dispatch on Python types,
  and the entry made here converts and checks the arguments before compiled code runs;
* the runtime helpers that dispatch with ``isinstance`` are replaced by ones Numba specialises
  on the types of their arguments when it compiles them (``runtime_numba``);
* a shadow list of zeros, ``[0.0] * n``, becomes ``numpy.zeros(n)`` (lists of floats reach
  compiled code as arrays: see ``convert``);
* every generated function gets ``@numba.njit``, so derivatives of callees call each other
  compiled;
* expressions of arrays are written to make fewer arrays with the same numbers (``fewer_arrays``);
* ``while True:`` is ``while going:`` of a variable ``going = True`` (``spellings.tested_loops``).

Values cross into compiled code through ``convert`` (a list of floats -> a 1-D array, a list of
equal-length lists of floats -> a 2-D array, other lists -> ``numba.typed.List``) and come back
through ``restore`` (each cotangent in its primal's structure: lists where the argument was a list).
"""

from __future__ import annotations

import ast
import collections
import re
from types import ModuleType

from ...modes.handed import is_reverse_sweep
from .empty import empty_shadows
from .fewer_arrays import LINEAR_IN_COTANGENT, FewerArrays, constant_int
from .by_element import HELPERS as BY_ELEMENT, added_by_element, tuple_names
from .element_runs import fused_runs
from .in_place import added_in_place, chained_in_place
from .lists import HELPER_OF as _LIST_HELPERS
from .loops import runs_forward
from .runtime import NUMBA_HELPERS
from .spellings import ADDED, checked_power, spelled, tested_loops

_LIVE = __name__.rsplit(".", 1)[0] + ".live"  # the module of the helpers compiled once a process
PURE = ("math", "numpy")  # modules whose functions change nothing but their result
GUARDS = ("reject_ints", "expect")  # argument checks: the entry's conversion does their work


def translate(
    source: str,
    helpers: dict,
    fresh,
    cache: bool = False,
    accumulators=None,
    scope=None,
    shared: bool = False,
    array_accumulators=None,
    narrow_floats: bool = False,
) -> str:
    """The Numba form of generated ``source``; ``helpers`` maps each runtime helper's name to its
    name in the source; ``fresh(name)`` gives a module-level name no other name in it clashes with
    (for the modules and the helpers this target adds); ``accumulators``: adjoint accumulators
    (``d_x = 0.0``) -> their variables, so that an array's starts as zeros of its shape; ``scope``: the
    globals the code runs in (its names of the math and NumPy modules); ``shared``: the Numba helpers
    imported from ``targets.numba.live`` (compiled once a process), not defined in the module (a module
    that stands alone); ``array_accumulators``: the accumulators of arrays' adjoints -> the arrays' ndims
    (``d_x = 0.0`` of one in a loop or branch is ``zero_array(ndim)``: a variable of compiled code has one type);
    ``narrow_floats``: the arguments hold floats narrower than float64 (float32), so that a float64 cotangent
    meets float32 operands: ``numpy.dot`` is ``dot_product`` then (Numba's takes one dtype; the helper costs
    about 20 ns a call, so only then)."""
    tree = ast.parse(_COMMENT.sub(_as_call, source))  # comments kept as calls, ast.unparse drops comments
    numba, numpy = (_imported(tree, module) or fresh(module) for module in ("numba", "numpy"))
    aliases = {alias: name for name, alias in helpers.items()}
    guards = {alias for alias, name in aliases.items() if name in GUARDS}
    added = {
        name: fresh(name)
        for name in (
            "add_at",
            "scatter_into",
            "zeros_rows",
            "empty_rows",
            "check_index",
            "zeros_like",
            "zero_array",
            "zero_of",
            "read_at",
            "write_at",
            *_LIST_HELPERS.values(),
            *ADDED,
            *BY_ELEMENT,
        )
    }
    rewrite = _Rewrite(guards, numpy, added, fresh)
    rewrite.distinct = {helpers.get("distinct")} | {  # (the reverse code hessian differentiates calls it by its own)
        k for k, v in (scope or {}).items() if getattr(v, "__adc_primitive__", None) == "distinct"
    }
    rewrite.distinct.discard(None)  # distinct(d, a, b) is written distinct(distinct(d, a), b): see numba_arrays
    rewrite.scatter_add = {helpers.get("scatter_add")} - {None}
    rewrite.array_like = {helpers.get("array_like")} - {None}
    rewrite.unbroadcast = {helpers.get("unbroadcast")} - {None}
    rewrite.unjoin, rewrite.shapes = ({helpers.get(n)} - {None} for n in ("unjoin", "shape_like"))
    rewrite.fewer.sum_all = {helpers.get("sum_all")} - {None}
    rewrite.fewer.unreduce = {helpers.get("unreduce")} - {None}
    rewrite.fewer.linear = {helpers[n] for n in LINEAR_IN_COTANGENT if n in helpers} | {  # (and by the derivative
        k for k, v in (scope or {}).items() if getattr(v, "__adc_primitive__", None) in LINEAR_IN_COTANGENT
    }  # code's own names: a derivative of it, as distinct above)
    rewrite.narrow_floats = narrow_floats
    rewrite.accumulators = accumulators or {}
    rewrite.array_accumulators = array_accumulators or {}
    rewrite.tuples = tuple_names(tree)  # (det's index t15 = (rows[0], cols[j]), popped by another function)
    rewrite.modules = {numpy} | {_imported(tree, m) for m in ("math", "numpy")} - {None}
    rewrite.modules |= {k for k, v in (scope or {}).items() if isinstance(v, ModuleType) and v.__name__ in PURE}
    rewrite.math_names = {_imported(tree, "math")} - {None}
    rewrite.math_names |= {k for k, v in (scope or {}).items() if isinstance(v, ModuleType) and v.__name__ == "math"}
    rewrite.numpy_names = {numpy, _imported(tree, "numpy")} - {None}
    rewrite.numpy_names |= {k for k, v in (scope or {}).items() if isinstance(v, ModuleType) and v.__name__ == "numpy"}
    rewrite.fewer.numpy_names = rewrite.numpy_names
    body = []
    for stmt in tree.body:
        name = aliases.get(getattr(stmt, "name", None))
        if name in GUARDS:
            continue
        if name is not None and name in NUMBA_HELPERS:
            body += _helper(name, stmt.name, numba, numpy, shared)
            continue
        if isinstance(stmt, ast.FunctionDef):
            stmt = rewrite.visit(stmt)
            options = [ast.keyword("cache", ast.Constant(True))] if cache else []
            options.append(ast.keyword("error_model", ast.Constant("numpy")))  # (x / 0.0: inf or nan, as NumPy's
            # numbers give it, not ZeroDivisionError; the compiled code tests no divisor)
            if _parallel(stmt, numba):  # a prange loop: its iterations on Numba's threads
                options.append(ast.keyword("parallel", ast.Constant(True)))
            stmt.decorator_list = [ast.Call(ast.parse(f"{numba}.njit", mode="eval").body, [], options)]
        body.append(stmt)
    used, todo = set(), list(rewrite.used)
    while todo:  # (and the helpers of this target they call: cast_to's array_of)
        name = todo.pop()
        used.add(name)
        todo += [n for n in added if n not in used and re.search(rf"\b{n}\(", NUMBA_HELPERS[name])]
    for name in sorted(used, reverse=True):  # (in order of name: the same text whatever the hash seed)
        body[:0] = _helper(name, added[name], numba, numpy, shared, {**added, **helpers})
    imports = [
        f"import {m}" if m == alias else f"import {m} as {alias}" for m, alias in (("numba", numba), ("numpy", numpy))
    ]
    head = [s for s in body if _docstring(s) or isinstance(s, (ast.Import, ast.ImportFrom))]
    imports = [s for s in ast.parse("\n".join(imports)).body if ast.dump(s) not in map(ast.dump, head)]
    tree.body = head[:1] + imports + head[1:] + rewrite.fewer.statements() + [s for s in body if s not in head]
    generated = {s.name for s in tree.body if isinstance(s, ast.FunctionDef) and s.decorator_list}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.decorator_list:  # (the generated functions, not helpers)
            _unclashed(stmt)
            _unliteral_calls(stmt, generated, numba)
            tested_loops(stmt, fresh)
    text = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    return _CALL.sub(lambda m: f"{m.group(1)}# {ast.literal_eval(m.group(2))}", text)


def _parallel(function: ast.FunctionDef, numba: str) -> bool:
    """Whether ``function`` has a ``prange`` loop (``modes.parallel``), each such ``prange`` spelt
    ``numba.prange`` in place."""
    found = False
    for node in ast.walk(function):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name):
            if node.iter.func.id == "prange":
                node.iter.func = ast.Attribute(ast.Name(numba, ast.Load()), "prange", ast.Load())
                found = True
    return found


_MARK = "__adc_comment__"
_COMMENT = re.compile(r"^([ \t]*)# (.*)$", re.M)
_CALL = re.compile(rf"^([ \t]*){_MARK}\((.*)\)$", re.M)


def _as_call(match) -> str:
    return f"{match.group(1)}{_MARK}({match.group(2)!r})"


_NUMBERED = re.compile(r"^(.*)_(\d+)$")


def _unliteral_calls(function: ast.FunctionDef, generated: set, numba: str) -> None:
    """Each integer or boolean constant ``function`` hands a generated function (``f(A, used, 0)``) written
    ``numba.int64(0)`` or ``numba.boolean(True)`` (``numba``: the module's name for Numba), in place.  Numba types a constant argument as its literal type, and a
    recursive function called with ``Literal[int](0)`` at the top and ``int64`` below is compiled twice over;
    loaded back from the disk cache by a later process, such a recursion crashes it (a segmentation fault:
    numba/numba#6061, #6713).  ``numba.int64(0)`` is an ``int64`` as every other level's argument is."""
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in generated):
            continue
        for holder in [node.args] + [[k] for k in node.keywords]:
            for k, arg in enumerate(holder):
                value = arg.value if isinstance(arg, ast.keyword) else arg
                if isinstance(value, ast.Constant) and type(value.value) in (int, bool):
                    kind = "boolean" if type(value.value) is bool else "int64"
                    wrapped = ast.Call(ast.Attribute(ast.Name(numba, ast.Load()), kind, ast.Load()), [value], [])
                    if isinstance(arg, ast.keyword):
                        arg.value = wrapped
                    else:
                        holder[k] = wrapped


def _unclashed(function: ast.FunctionDef) -> None:
    """Each local variable of ``function`` named ``v_k`` (a number k) renamed ``v__k``, in place.  Numba
    names the versions of a variable assigned twice ``v.1``, ``v.2``, ... and, fusing an expression of
    arrays into one loop, spells each as ``v_1``, ``v_2``: where the code has ``d_x`` and ``d_x_2`` both,
    two of those collide and Numba fails ("'d_x_2_1' not unique", numba/np/ufunc/array_exprs.py).  No
    name ``v__k`` can be such a spelling of another (the renaming is one to one).  Parameters keep their
    names (njit code may pass them by name)."""
    params = {a.arg for a in function.args.args + function.args.kwonlyargs}  # (kept: callers may name them)
    stored = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    stored -= params | {g for n in ast.walk(function) if isinstance(n, ast.Global) for g in n.names}
    renamed = {v: _NUMBERED.sub(r"\1__\2", v) for v in stored if _NUMBERED.match(v)}
    if not renamed:
        return
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in renamed:
            node.id = renamed[node.id]


def _imported(tree: ast.Module, module: str) -> str | None:
    """The name ``source`` binds ``module`` to at its top level (``import numpy as np``: np), if any."""
    for stmt in tree.body:
        for alias in stmt.names if isinstance(stmt, ast.Import) else ():
            if alias.name == module:
                return alias.asname or module
    return None


def _docstring(stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _helper(name: str, alias: str, numba: str, numpy: str, shared: bool = False, helpers=None) -> list:
    """The statements defining the Numba version of runtime helper ``name`` under ``alias``: its names
    ``numba`` and ``numpy`` (every use: ``numba.njit`` of an inner function too) read as the module's
    names of them, which a second entry point's module may have made ``numba_1`` (its first took ``numba``),
    and the other helpers it calls by their names in the module (``helpers``: scatter_into's scatter_add);
    ``shared``: the import of the process's one (``targets.numba.live``) under ``alias``."""
    if shared:
        return [ast.ImportFrom(_LIVE, [ast.alias(name, None if alias == name else alias)], 0)]
    text = NUMBA_HELPERS[name]
    for other, called in {**(helpers or {}), name: alias}.items():
        text = re.sub(rf"\b{other}\b", called, text) if other in NUMBA_HELPERS and called != other else text
    tree = ast.parse(text)
    modules = {"numba": numba, "numpy": numpy}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in modules:
            node.id = modules[node.id]
    return tree.body


class _Rewrite(ast.NodeTransformer):
    """The constructs of one generated function that Numba does not type, in forms it does."""

    def __init__(self, guards: set, numpy: str, added: dict, fresh=None):
        self.guards = guards
        self.numpy = numpy
        self.added = added  # the helpers this target adds -> their names in the module
        self.used: set = set()  # those the code calls
        self.distinct: set = set()  # the names the code calls runtime helper distinct by
        self.scatter_add: set = set()  # ... scatter_add by
        self.unbroadcast: set = set()  # ... unbroadcast by
        self.unjoin, self.shapes = set(), set()  # ... unjoin and shape_like by
        self.array_like: set = set()  # ... array_like by
        self.fewer = FewerArrays(numpy, self._call, self.used.add, fresh)  # (fewer_arrays)
        self.numpy_names: set = {numpy}  # the names of the NumPy module in the code
        self.tuples: set = set()  # the names the module binds to tuples
        self.math_names: set = set()  # ... and of the math module
        self.narrow_floats = False  # (translate's narrow_floats)

    def _call(self, helper: str, args: list) -> ast.Call:
        self.used.add(helper)
        return ast.Call(ast.Name(self.added[helper], ast.Load()), args, [])

    def visit_AugAssign(self, node):
        """``x[k] += v`` with a constant k (x may be a tuple, of arrays): ``add_at(x, k, v)``."""
        node = self.generic_visit(node)
        target = node.target
        if isinstance(node.op, ast.Add) and isinstance(target, ast.Subscript) and constant_int(target.slice):
            return ast.Expr(self._call("add_at", [target.value, target.slice, node.value]))
        return node

    def visit_ListComp(self, node):
        """``[zeros(len(row)) for row in rows]``, the shadow of a list of lists: ``zeros_rows(rows)``
        (one 2-D array where the rows are one)."""
        node = self.generic_visit(node)
        (loop,) = node.generators if len(node.generators) == 1 else (None,)
        zeros = f"{self.numpy}.zeros(len({getattr(loop and loop.target, 'id', None)}))"
        if loop and not loop.ifs and not loop.is_async and ast.unparse(node.elt) == zeros:
            return self._call("zeros_rows", [loop.iter])
        return node

    def visit_FunctionDef(self, node):
        """Also: an accumulator ``d_x = 0.0`` at the function's top level, where ``x`` is surely bound
        (a parameter, or assigned by an earlier line at that level), starts as ``zeros_like(x)``: the
        number 0.0 for a number, zeros for an array, whose adjoint Numba then types as one array."""
        self.function = node
        self.advanced = {  # names that may hold an advanced index: tuples of two or more (``t3 = (rows, cols)``)
            t.id
            for a in ast.walk(node)
            if isinstance(a, ast.Assign) and isinstance(a.value, ast.Tuple) and len(a.value.elts) > 1
            for t in a.targets
            if isinstance(t, ast.Name)
        }
        self.advanced |= {  # and to comparisons (a boolean mask: ``t3 = x > 0.5``, then ``x[t3]``)
            t.id
            for a in ast.walk(node)
            if isinstance(a, ast.Assign) and isinstance(a.value, ast.Compare)
            for t in a.targets
            if isinstance(t, ast.Name)
        }
        self.listed = _listed(node)  # names of lists made here (numpy.array of one is Numba's own: _array_named)
        bound = {a.arg for a in node.args.args}
        node_params = set(bound)
        self.locals = bound | {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self.first_bound = {a: 0 for a in bound}  # each name -> the line it is first bound at (0: a parameter)
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                self.first_bound[n.id] = min(self.first_bound.get(n.id, n.lineno), n.lineno)
        stores = collections.Counter(  # (a name bound more than once may hold arrays of different shapes)
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        )
        started = set()  # accumulators started here: one started again later belongs to an earlier binding of
        for stmt in node.body:  # its variable (the adjoint of the line that bound it undone), of its shape
            if not isinstance(stmt, ast.Assign):
                continue
            target = stmt.targets[0]
            variable = self.accumulators.get(target.id) if isinstance(target, ast.Name) else None
            again = target.id in started and stores[variable] + (variable in node_params) > 1 if variable else False
            if variable in bound and isinstance(stmt.value, ast.Constant) and stmt.value.value == 0.0 and not again:
                stmt.value = self._call("zeros_like", [ast.Name(variable, ast.Load())])
            if variable is not None:
                started.add(target.id)
            for target in stmt.targets:
                bound |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        owned = {  # accumulators made zeros of their arrays' shapes here: arrays no other name holds
            stmt.targets[0].id
            for stmt in node.body
            if isinstance(stmt, ast.Assign)
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id in self.array_accumulators
            and isinstance(stmt.value, ast.Call)
            and _named(stmt.value, self.added["zeros_like"])
        }
        if is_reverse_sweep(node.name):  # and those a called function's reverse sweep is handed (modes.handed):
            # arrays of their arrays' shapes its caller owns (array_like(d, x))
            owned |= {a.arg for a in node.args.args[2:] if a.arg in self.array_accumulators}
        node = self.generic_visit(node)
        rows = (self.added["zeros_rows"], self.added["empty_rows"])
        if empty_shadows(node, self.numpy, self.added["check_index"], rows):  # (zeros every element of which is stored)
            self.used.add("empty_rows")
        into = lambda args: self._call("scatter_into", args)  # noqa: E731
        added_in_place(node, owned, self.scatter_add, self.array_like, into)
        chained_in_place(node, self.scatter_add, into, self.added["scatter_into"])
        helpers = dict(  # (the names the element loops read the helpers and the accumulators by)
            into={self.added["scatter_into"]},
            scatter_add=self.scatter_add,
            unbroadcast=self.unbroadcast,
            numpy=self.numpy,
            numpy_names=self.numpy_names,
            vectors=self.array_accumulators,
            call=self._call,
        )
        reading = {self.added[n] for n in ("sum_product", "sum_product_along", "inner_product")} | self.shapes
        reading |= self.fewer.sum_all
        fused_runs(node, unjoin=self.unjoin, comment=_MARK, reading=reading, sums=self.accumulators, **helpers)
        added_by_element(node, tuples=self.tuples, **helpers)  # (the lines left, by element: by_element)
        return node

    def _array_named(self, x) -> bool:
        """Whether ``numpy.array(x)`` is written ``array_of(x)``: ``x`` a name that may hold an array (a copy
        Numba's numpy.array does not make), not one of a list the function makes (``t = [a, b]``), which
        Numba's numpy.array takes without the list (16 ns against 57 through array_of, particle's and
        saddle's unit vectors)."""
        return isinstance(x, ast.Name) and x.id not in self.listed

    def _advanced_index(self, node) -> bool:
        """Whether ``node`` is ``x[t]`` with ``t`` a name bound to a tuple (it may hold arrays of coordinates)
        or to a comparison, or a comparison itself (it may be a boolean mask of more than one axis, which Numba
        does not read)."""
        if not isinstance(node, ast.Subscript):
            return False
        return (
            isinstance(node.slice, ast.Compare) or isinstance(node.slice, ast.Name) and node.slice.id in self.advanced
        )

    def visit_Subscript(self, node):
        """``x[t]`` read, ``t`` a name bound to a tuple or a comparison: ``read_at(x, t)``, NumPy's read where
        ``t`` holds arrays of coordinates (Numba takes one array among the indices) or is a boolean mask of
        more than one axis, ``x[t]`` where it is neither (``targets.numba.coordinates``)."""
        node = self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and self._advanced_index(node):
            return self._call("read_at", [node.value, node.slice])
        return node

    def visit_Assign(self, node):
        """``d_x = 0.0`` of an array's accumulator not made ``zeros_like(x)`` above (in a loop or a branch,
        or before ``x`` is bound): ``zero_array(ndim)``, zeros of length 1 along each axis, which broadcast
        as the number does, so the variable keeps one type (``zero_of(x)``, the same from ``x``'s type,
        where the ndim is not known: a module written without argument types); ``unbroadcast``, ``array_like``, ``add_into``
        and ``scatter_add`` give it the shape it stands for.  ``x[t] = v``, ``t`` a name bound to a tuple:
        ``write_at(x, t, v)`` (see ``visit_Subscript``)."""
        node = self.generic_visit(node)
        target = node.targets[0] if len(node.targets) == 1 else None
        if self._is_guard(ast.Expr(node.value)):  # t1 = reject_ints(...) of generated code differentiated again
            node.value = ast.Constant(None)  # (the check's value, None: the entry checks the arguments)
            return node
        if self._advanced_index(target):
            return ast.Expr(self._call("write_at", [target.value, target.slice, node.value]))
        ndim = self.array_accumulators.get(target.id) if isinstance(target, ast.Name) else None
        if ndim and isinstance(node.value, ast.Constant) and node.value.value == 0.0:
            variable = self.accumulators.get(target.id)
            if ndim > 0:
                node.value = self._call("zero_array", [ast.Constant(ndim)])
            elif variable in self.locals:  # (the kind not known: typed from the variable's, unbound or not)
                node.value = self._call("zero_of", [ast.Name(self._bound_before(variable, node.lineno), ast.Load())])
        return node

    def _bound_before(self, variable: str, line: int) -> str:
        """``variable``, or where it is first bound after ``line`` (a residual popped later in the same
        adjoint loop: Numba refuses a name read before any binding of it), the version of the same user
        variable bound first (``state`` for ``state__2``: the parameter, or the earliest line), whose type
        zero_of reads (a type that differs is Numba's typing error, never other numbers)."""
        if self.first_bound.get(variable, 0) <= line:
            return variable
        root = re.sub(r"(_+\d+)+$", "", variable)  # (state_2, state_1_1: versions of state; the module's names later)
        versions = [v for v in self.first_bound if re.fullmatch(re.escape(root) + r"(_+\d+)*", v)]
        earlier = [v for v in versions if self.first_bound[v] <= line]
        return min(earlier, key=self.first_bound.get) if earlier else variable

    def visit_For(self, node):
        """An adjoint loop whose iterations are independent runs forward (see ``numba_loops``)."""
        it = node.iter
        if isinstance(it, ast.Call) and _named(it, "reversed") and len(it.args) == 1 and not it.keywords:
            inner = it.args[0]
            zeros = {f"{self.numpy}.zeros", self.added["zeros_rows"]}
            if isinstance(inner, ast.Call) and _named(inner, "range") and not inner.keywords:
                if runs_forward(node, self.function, self.modules, _MARK, zeros):
                    node.iter = inner
        return self.generic_visit(node)

    def visit_If(self, node):
        node = self.generic_visit(node)
        if not node.orelse and all(self._is_guard(s) for s in node.body):
            return None
        return node

    def visit_Expr(self, node):
        """Argument checks dropped; ``xs[k]`` alone on its line, the check that a read will not fail,
        made explicit (compiled code reads without one): ``check_index(xs, k)``."""
        if self._is_guard(node):
            return None
        node = self.generic_visit(node)
        read = node.value
        if isinstance(read, ast.Subscript) and not isinstance(read.slice, (ast.Slice, ast.Tuple)):
            return ast.Expr(self._call("check_index", [read.value, read.slice]))
        return node

    def _is_guard(self, stmt) -> bool:
        call = getattr(stmt, "value", None)
        return (
            isinstance(stmt, ast.Expr)
            and isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id in self.guards
        )

    def visit_Call(self, node):
        node = self.generic_visit(node)
        fewer = self.fewer.call_of(node)
        if fewer is not None:
            return fewer
        inner = node.args[0] if len(node.args) == 1 else None
        if _named(node, "reversed") and isinstance(inner, ast.Call) and _named(inner, "range") and not inner.keywords:
            return _counting_down(inner.args)
        if _named(node, "sum") and len(node.args) == 1 and not node.keywords:  # sum(xs) of a list of arrays too
            return self._call("sum_list", node.args)
        if inner is not None and not node.keywords and self._linalg_norm(node.func):  # (targets.numba.reductions)
            return self._call("vector_norm", node.args)
        named = {k.arg: k.value for k in node.keywords}
        if (
            len(node.args) == 1
            and "axis" in named
            and set(named) <= {"axis", "keepdims"}
            and self._linalg_norm(node.func)
        ):
            axis, kept = named["axis"], named.get("keepdims", ast.Constant(False))  # np.linalg.norm(X, axis=1): the
            if constant_int(axis) and isinstance(
                kept, ast.Constant
            ):  # root of the sums of squares (Numba's takes no axis)
                squares = ast.Call(ast.Attribute(ast.Name(self.numpy, ast.Load()), "square", ast.Load()), node.args, [])
                summed = self._call("reduce_along", [squares, ast.Constant("sum"), axis, kept])
                return ast.Call(ast.Attribute(ast.Name(self.numpy, ast.Load()), "sqrt", ast.Load()), [summed], [])
        kind = node.args[1] if len(node.args) == 2 and not named else named.get("ord") if len(node.args) == 1 else None
        if isinstance(kind, ast.Constant) and kind.value in ("nuc", "fro") and set(named) <= {"ord"}:
            if self._linalg_norm(node.func):  # a matrix's nuclear or Frobenius norm (Numba's refuses both)
                return self._call("matrix_norm", [node.args[0], kind])
        helper = _LIST_HELPERS.get(getattr(node.func, "id", None))
        if helper is not None:  # a list joined or repeated (back.numba_lists)
            return self._call(helper, node.args)
        if isinstance(node.func, ast.Name) and node.func.id in self.distinct and node.args and not node.keywords:
            out = node.args[0]
            for earlier in node.args[1:]:
                out = ast.Call(node.func, [out, earlier], [])
            return out
        module = getattr(node.func, "value", None)
        named = getattr(module, "id", None)
        if named in self.math_names and node.func.attr == "log" and len(node.args) == 2 and not node.keywords:
            log = lambda x: ast.Call(node.func, [x], [])  # noqa: E731  (math.log(x, base): Numba takes one argument)
            return ast.BinOp(log(node.args[0]), ast.Div(), log(node.args[1]))
        if named in self.numpy_names and node.func.attr == "matmul" and len(node.args) == 2 and not node.keywords:
            return ast.BinOp(node.args[0], ast.MatMult(), node.args[1])  # (Numba has a @ b, not numpy.matmul)
        if named in self.numpy_names and node.func.attr == "dot" and len(node.args) == 2 and not node.keywords:
            if self.narrow_floats:  # (a float64 cotangent with float32 operands: one dtype for Numba's dot)
                return self._call("dot_product", node.args)
        if isinstance(module, ast.Name) and module.id in self.numpy_names:
            node = spelled(
                node.func.attr, node, self._call, self._array_named, self.numpy_names, self.fewer.summed_along
            )
            if not isinstance(node.func, ast.Attribute):
                return node
        if isinstance(module, ast.Name) and module.id in self.modules:  # dtype=float or "float64": Numba takes
            for k in node.keywords:  # numpy.float64 (the derivative of derivative code spells a dtype by its name)
                named = k.value.id == "float" if isinstance(k.value, ast.Name) else None
                if isinstance(k.value, ast.Constant) and k.value.value in _DTYPE_NAMES:
                    named = k.value.value
                if k.arg == "dtype" and named:
                    dtype = "float64" if named is True else named
                    k.value = ast.Attribute(ast.Name(self.numpy, ast.Load()), dtype, ast.Load())
        return node

    def _linalg_norm(self, func) -> bool:
        """Whether ``func`` is ``numpy.linalg.norm``."""
        linalg = getattr(func, "value", None)
        module = getattr(linalg, "value", None)
        return (
            getattr(func, "attr", None) == "norm"
            and getattr(linalg, "attr", None) == "linalg"
            and getattr(module, "id", None) in self.numpy_names
        )

    def visit_UnaryOp(self, node):
        return self.fewer.unary(self.generic_visit(node))

    def visit_BinOp(self, node):
        """``[0.0] * n``: ``numpy.zeros(n)``; operands made with fewer arrays (``fewer_arrays``); powers checked."""
        node = self.fewer.binop(self.generic_visit(node))
        zero = ast.List([ast.Constant(0.0)], ast.Load())
        if isinstance(node.op, ast.Mult) and ast.dump(node.left) == ast.dump(zero):
            return ast.Call(ast.parse(f"{self.numpy}.zeros", mode="eval").body, [node.right], [])
        return checked_power(node, self._call)


def _listed(function: ast.FunctionDef) -> set:
    """The names ``function`` binds once, to a list or tuple display of items (``t = [a, b]``), and changes in
    no other way (no ``t.append``: Numba's numpy.array of a list appended to in a loop makes the list an array
    and then fails at the append)."""
    stores, changed, displayed = {}, set(), set()
    for a in ast.walk(function):
        if isinstance(a, ast.Name) and isinstance(a.ctx, ast.Store):
            stores[a.id] = stores.get(a.id, 0) + 1
        elif isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name):
            changed.add(a.value.id)
        elif isinstance(a, (ast.AugAssign, ast.Subscript)) and isinstance(getattr(a, "target", a.value), ast.Name):
            changed.add(getattr(a, "target", a.value).id)
        if isinstance(a, ast.Assign) and isinstance(a.value, (ast.List, ast.Tuple)) and a.value.elts:
            displayed |= {t.id for t in a.targets if isinstance(t, ast.Name)}
    return {n for n in displayed if stores.get(n) == 1 and n not in changed}


_DTYPE_NAMES = (
    "float64",
    "float32",
    "int64",
    "int32",
    "bool_",
    "complex128",
)  # dtype="..." Numba takes as numpy.<name>


def _named(call: ast.Call, name: str) -> bool:
    """Whether ``call`` calls the builtin ``name`` (``builtins.range`` where the module binds ``range``)."""
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id.lstrip("_").startswith("builtins")
    ):
        return func.attr == name
    return isinstance(func, ast.Name) and func.id == name


def _counting_down(args: list) -> ast.Call:
    """``range(...)`` giving the elements of ``range(*args)`` last first."""
    if len(args) == 1:
        text = "range({0} - 1, -1, -1)"
    elif len(args) == 2:
        text = "range({1} - 1, {0} - 1, -1)"
    else:  # a + k * s for k = n - 1 .. 0, n = len(range(a, b, s))
        text = "range({0} + (len(range({0}, {1}, {2})) - 1) * {2}, {0} - {2}, -{2})"
    return ast.parse(text.format(*(f"({ast.unparse(a)})" for a in args)), mode="eval").body
