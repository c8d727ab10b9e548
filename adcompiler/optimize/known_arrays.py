"""NumPy gradient code made as cheap as a hand-written adjoint with what the signature says of its
arrays (their ndim and dtype): four exact rewrites of code with a literal seed.

- A product whose value nobody reads, kept only because it may raise (a derivative never succeeds
  where its primal fails): ``np.dot`` of float arrays raises only when the contracted lengths
  differ, so ``t = np.dot(xs, ys)`` becomes ``if xs.size != ys.size: np.dot(xs, ys)`` (vectors),
  which raises the primal's own error and otherwise costs one comparison.
- ``distinct(d, e)`` (a copy of ``d`` where it is the same object as an earlier cotangent) of a
  ``d`` that a NumPy function has just made: a new object, so ``d`` itself.
- The adjoint of a full sum with the seed ``1.0`` is an array of ones, ``d = unreduce(1.0, x)``;
  where nothing but NumPy functions read it, ``np.outer(d, b)`` (or ``d[:, None] * b``) is ``b``
  repeated in ``d.size`` rows: a copy, no products (what a hand-written adjoint writes, knowing the
  cotangent).
- ``np.sum(x)``, ``np.max(x)``, ``np.min(x)`` of an array: ``x.sum()``, ``x.max()``, ``x.min()``, the
  same reduction without NumPy's Python layer.
"""

from __future__ import annotations

from collections import Counter

from ..analysis import values as V
from ..analysis.defuse import binds, flat_targets
from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, Do, ForS, IfS, Ret, WhileS, every_statement, free_names, shell

_REAL = ("float64", "float32", "float16")  # dtypes whose products never raise and promote to float64 at most
_PRODUCTS = ("numpy.dot", "numpy.matmul")


def simplify_known_arrays(body: tuple, avals: dict) -> tuple:
    """``body`` (a gradient's, after ``tidy``) with the four rewrites above where they are exact;
    ``avals``: the abstract values of the primal's variables."""
    if not any(isinstance(a, V.Arr) for a in avals.values()):  # no array: nothing to rewrite
        return body
    reads = _reads(body)
    body = tuple(c for s in body for c in _checked_product(s, reads, avals))
    body = _no_distinct(body, reads)
    body = _repeats(body, avals)
    return reductions_as_methods(body, avals)


def _reads(body) -> Counter:
    """How many statements read each name (a compound statement by its own parts only)."""
    out: Counter = Counter()
    for s in every_statement(body):
        out.update(free_names([shell(s) if isinstance(s, (ForS, IfS, WhileS)) else s]))
    return out


def _array(a, avals, ndim_at_least=0):
    """The abstract value of ``a`` when it is a name of a real float array of known ndim, else None."""
    aval = avals.get(a.id) if isinstance(a, E.Name) else None
    ok = isinstance(aval, V.Arr) and aval.dtype in _REAL and aval.ndim is not None and aval.ndim >= ndim_at_least
    return aval if ok else None


def _shape(a, axis: int):
    return E.Subscript(E.Attr(a, "shape"), E.Num(axis))


def _checked_product(s, reads: Counter, avals: dict) -> tuple:
    """``(s,)``, or the comparison of shapes that raises where ``s`` would if it is an unread product
    (nothing for ``np.dot`` with a number, which never raises)."""
    if not (isinstance(s, Assign) and s.effect is True and len(s.targets) == 1 and isinstance(s.targets[0], str)):
        return (s,)
    e = s.value
    factors = _factors(e)
    if reads[s.targets[0]] or factors is None:
        return (s,)
    a, b = (_array(x, avals) for x in factors)
    if a is None or b is None:
        return (s,)
    if _matmul(e) and not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        return (s,)  # (stacks of matrices broadcast; a number is refused)
    if a.ndim == 0 or b.ndim == 0:
        return ()
    # the contracted lengths; a vector's is its size, read without making its shape's tuple
    left = E.Attr(factors[0], "size") if a.ndim == 1 else _shape(factors[0], -1)
    right = E.Attr(factors[1], "size") if b.ndim == 1 else _shape(factors[1], -2)
    test = E.Compare("!=", left, right)
    return (IfS(test, (Do(e, s.line),), (), s.line),)


def _factors(e) -> tuple | None:
    """The two factors of ``np.dot(a, b)``, ``np.matmul(a, b)`` or ``a @ b``, else None."""
    if isinstance(e, E.BinOp) and e.op == "@":
        return (e.left, e.right)
    if isinstance(e, E.Call) and e.func in _PRODUCTS and not e.keywords and len(e.args) == 2:
        return e.args
    return None


def _matmul(e) -> bool:
    return isinstance(e, E.BinOp) or e.func == "numpy.matmul"


def _no_distinct(body: tuple, reads: Counter) -> tuple:
    """``body`` with ``out = distinct(d, e, ...)`` dropped where ``d`` is new: ``d``'s own statement
    (top level, its only assignment, after those of ``e, ...``) then assigns ``out``."""
    assigned = Counter(t for s in every_statement(body) for t in _targets(s))
    where = {s.targets[0]: k for k, s in enumerate(body) if isinstance(s, Assign) and len(s.targets) == 1}
    out = list(body)
    for k, s in enumerate(body):
        if not (isinstance(s, Assign) and isinstance(s.value, E.Call) and s.value.func == "@distinct"):
            continue
        d, *earlier = s.value.args
        if not (isinstance(d, E.Name) and assigned[d.id] == 1 and reads[d.id] == 1 and where.get(d.id, k) < k):
            continue
        at = where[d.id]
        if not E.new_array(body[at].value) or not all(
            isinstance(e, E.Name) and assigned[e.id] == 1 and where.get(e.id, at) < at for e in earlier
        ):
            continue
        out[at] = Assign(s.targets, body[at].value, body[at].line, body[at].effect)
        out[k] = None
    return tuple(s for s in out if s is not None)


def _targets(s) -> list:
    """The names statement ``s`` binds, and those of a list or array it stores into (with the index)."""
    stores = [t for t in flat_targets(s.targets) if isinstance(t, E.Expr)] if isinstance(s, Assign) else []
    return binds(s) + [n for t in stores for n in free_names([Do(t)])]


def _repeats(body: tuple, avals: dict) -> tuple:
    """``body`` with ``np.outer(d, b)`` of an adjoint of ones ``d`` and a float64 vector ``b`` made ``b``
    repeated: ``np.copy(np.broadcast_to(b, (d.size, b.shape[0])))`` (float64 either way)."""
    ones = _ones(body, avals)
    if not ones:
        return body

    def visit(e):
        outer = isinstance(e, E.Call) and e.func == "numpy.outer" and len(e.args) == 2 and not e.keywords
        if outer or isinstance(e, E.BinOp) and e.op == "*" and _column(e.left) is not None:
            d, b = e.args if outer else (_column(e.left), e.right)  # (g[:, None] * b: rules.products)
            vector = _array(b, avals)
            if isinstance(d, E.Name) and d.id in ones and vector is not None and vector.ndim == 1:
                if vector.dtype == "float64":
                    rows = E.Tuple((E.Attr(d, "size"), _shape(b, 0)))
                    return E.Call("numpy.copy", (E.Call("numpy.broadcast_to", (b, rows)),))
        if isinstance(e, (tuple, list)):
            return tuple(visit(x) for x in e)
        if isinstance(e, E.Expr) and not isinstance(e, (E.Name, E.Num)):
            return type(e)(**{k: visit(v) for k, v in vars(e).items()})
        return e

    return tuple(Assign(s.targets, visit(s.value), s.line, s.effect) if isinstance(s, Assign) else s for s in body)


def _ones(body: tuple, avals: dict) -> set:
    """Names assigned once, at the top level, ``unreduce(1.0, x)`` of a real float array ``x`` (every
    element 1.0), which nothing writes and only NumPy functions read (so no other name holds it)."""
    counts = Counter(t for s in every_statement(body) for t in _targets(s))
    found = {
        s.targets[0]
        for s in body
        if isinstance(s, Assign) and len(s.targets) == 1 and counts[s.targets[0]] == 1 and _spread_one(s.value, avals)
    }
    for s in every_statement(body):
        for name in free_names([shell(s) if isinstance(s, (ForS, IfS, WhileS)) else s]):
            if name in found and not _only_numpy_reads(s, name):
                found.discard(name)
    return found


def _spread_one(e, avals: dict) -> bool:
    """``unreduce(1.0, x, None, False)`` with ``x`` a real float array, or a product of two."""
    if not (isinstance(e, E.Call) and e.func == "@unreduce" and len(e.args) == 4):
        return False
    g, x, axis, keepdims = e.args
    if not (g == E.Num(1.0) and axis == E.Num(None) and keepdims == E.Num(False)):
        return False
    factors = _factors(x)
    return all(_array(a, avals) is not None for a in (factors or (x,)))


def _column(e):
    """``d`` of ``d[:, None]`` (a vector as a column, which only NumPy reads), else None."""
    column = E.Tuple((E.Slice(None, None), E.Num(None)))
    return e.value if isinstance(e, E.Subscript) and isinstance(e.value, E.Name) and e.index == column else None


def _only_numpy_reads(s, name: str) -> bool:
    """Whether every read of ``name`` in ``s`` is an argument of a NumPy function."""
    if not isinstance(s, (Assign, Do)) or isinstance(s, Assign) and name in _targets(s):
        return False
    found = []

    def visit(e, inside_numpy):
        if isinstance(e, E.Name):
            if e.id == name:
                found.append(inside_numpy)
            return
        if _column(e) == E.Name(name):
            found.append(True)
            return
        if isinstance(e, E.Call):
            numpy_call = e.func.startswith("numpy.") and not e.keywords
            for a in e.args:
                visit(a, numpy_call and isinstance(a, E.Name))
            for _, v in e.keywords:
                visit(v, False)
            return
        for v in e if isinstance(e, (tuple, list)) else vars(e).values() if isinstance(e, E.Expr) else ():
            visit(v, False)

    visit(s.value, False)
    return all(found)


_METHODS = {"numpy.sum": "sum", "numpy.max": "max", "numpy.amax": "max", "numpy.min": "min", "numpy.amin": "min"}


def _surely_array(e, avals: dict) -> bool:
    """Whether ``e`` is an array: a name of array value, ``np.asarray`` of anything (a rule's view of an
    operand that may be a list: a norm's ``np.asarray(x) * dx``), or arithmetic with one (NumPy's result)."""
    if isinstance(e, E.Name):
        return isinstance(avals.get(e.id), V.Arr)
    if isinstance(e, E.Call) and e.func == "numpy.asarray" and len(e.args) == 1 and not e.keywords:
        return True
    if isinstance(e, E.BinOp) and e.op in ("+", "-", "*", "/", "**"):
        return _surely_array(e.left, avals) or _surely_array(e.right, avals)
    return isinstance(e, E.Unary) and e.op == "-" and _surely_array(e.operand, avals)


def reductions_as_methods(body: tuple, avals: dict) -> tuple:
    """``body`` with ``np.sum(x)``, ``np.max(x)``, ``np.min(x)`` of arrays written as their methods (any
    generated code: the rewrite needs no seed)."""
    if not any(isinstance(a, V.Arr) for a in avals.values()):
        return body
    return tuple(_as_methods(s, avals) for s in body)


def _as_methods(s, avals: dict):
    """Statement ``s`` with ``np.sum(x)``, ``np.max(x)`` and ``np.min(x)`` of an array ``x`` written as
    ``x.sum()``, ``x.max()``, ``x.min()``: NumPy's functions call the same reduction with the same
    arguments, after a microsecond of Python (a third of a short vector's sum)."""
    if isinstance(s, (ForS, IfS, WhileS)):
        fields = {k: v for k, v in vars(s).items()}
        for k, v in fields.items():
            if isinstance(v, tuple) and v and not isinstance(v[0], E.Expr):
                fields[k] = tuple(_as_methods(x, avals) for x in v)
        return type(s)(**fields)
    if not isinstance(s, (Assign, AugAssign, Do, Ret)):
        return s

    def visit(e):
        whole = (E.Num(None), E.Num(False))  # (axis and keepdims as the IR spells them: the defaults)
        if isinstance(e, E.Call) and e.func in _METHODS and e.args[1:] in (whole, ()) and not e.keywords:
            x = visit(e.args[0])
            if _surely_array(x, avals):
                return E.Method(x, _METHODS[e.func], ())
        if isinstance(e, tuple):
            parts = tuple(visit(x) for x in e)
            return e if all(a is b for a, b in zip(parts, e)) else parts
        if isinstance(e, E.Expr) and not isinstance(e, (E.Name, E.Num)):
            fields = {k: visit(v) for k, v in vars(e).items()}
            return e if all(fields[k] is v for k, v in vars(e).items()) else type(e)(**fields)
        return e  # (unchanged parts are kept, not copied: most statements have no reduction)

    fields = {k: visit(v) if isinstance(v, E.Expr) else v for k, v in vars(s).items()}
    return s if all(fields[k] is v for k, v in vars(s).items()) else type(s)(**fields)
