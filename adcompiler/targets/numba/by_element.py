"""Elementwise cotangents added into an accumulator element by element, where the shapes allow: the Numba
target's loops that make no array.

An adjoint line adds an expression of arrays into a part of an accumulator::

    d_gates = scatter_into(d_gates, gates, t10, t2 * (outgate / t3 * unbroadcast(t18 * ct_hidden, outgate)))

Numba fuses the arithmetic of one statement into one loop, but the call of ``unbroadcast`` (which sums a
cotangent down to its operand's shape where that operand was broadcast) ends a fusion: ``t18 * ct_hidden``
is made an array, then the rest another, which ``scatter_into`` adds in.  On small arrays each array made
costs more than its arithmetic (an allocation and atomic counts of its references: GradBench lstm's seven
floats a gate, 46 arrays a step of a layer).  Where every array the expression reads is a vector as long as
the part added into (``unbroadcast`` of such an expression to such a vector is the expression itself), the
same numbers are added element by element in a loop, into the part as a view, and no array is made::

    count, line = line_of(d_gates, t10)
    if count >= 0 and fits_line(count, t2) and ... and spans_line(count, outgate):
        for k in range(count):
            line[k] += element(t2, k) * (element(outgate, k) / element(t3, k) * (element(t18, k) * ...))
    else:
        d_gates = scatter_into(d_gates, gates, t10, ...)

The test runs each time (a few comparisons of lengths); the line as it was is the ``else``.  Each element
gets the operations it got in the fused loop, in the same order, and is added once: the same numbers, bit
for bit.  Written for ``d = scatter_into(d, x, index, e)`` (an accumulator the function owns: ``in_place``),
``d = scatter_add(0.0, x, index, e)`` (zeros of x's shape, then the part added into) and ``d += e`` of an
owned accumulator of a vector, where ``e`` is ``+ - * /``, negation and NumPy's one-argument elementwise
functions of names and numbers (and ``unbroadcast`` of such), reading neither accumulator, and, for the two
scatters, an ``unbroadcast`` or an elementwise function among them (arithmetic of numbers alone, the
adjoints of scalar code, is left as it is: nothing to gain), or a part that is a row of a matrix (the index
has fewer parts than the accumulator's array has axes), where ``e`` may be a name alone: the call of the
helper costs more than the loop that adds the row's few elements (lstm's ``d_main_params[i] += d_t3``).
Also ``d = scatter_add(d, x, index, e)`` of a cotangent that may not yet be an array of x's shape (a
stacked state's, which starts anew as a number each time: lstm's ``d_state``): its line is ``line_in(d, x,
index)``, none until d has x's shape, and the loop runs where no array ``e`` reads shares memory with the
line (``apart``: scatter_add reads such a one whole before it adds).
"""

from __future__ import annotations

import ast

from ...rules.arrays import UNARY

_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div)

HELPERS = {
    "line_of": '''def line_of(d, index=None):
    """(its length, d[index]) where d[index] (d without index) is a vector, else (-1, an empty vector)
    (compiled code only: see the overload below)."""
    raise TypeError("line_of is called from code numba.njit compiles")


@numba.extending.overload(line_of)
def _numba_line_of(d, index=None):
    """d[index] as a view, for an index of integers and slices that leaves one axis of d (None: d, a vector);
    for anything else (-1, an empty vector), which types a loop over it all the same."""
    types = numba.core.types
    whole = index is None or isinstance(index, (types.NoneType, types.Omitted))
    parts = () if whole else index.types if isinstance(index, types.BaseTuple) else (index,)
    basic = all(isinstance(p, (types.Integer, types.SliceType)) for p in parts)
    axes = d.ndim - sum(isinstance(p, types.Integer) for p in parts) if isinstance(d, types.Array) else None
    if not (basic and axes == 1 and len(parts) <= d.ndim):
        if isinstance(d, types.Array):  # (an empty view of d's memory: no array made, as a number's place is read)
            return lambda d, index=None: (-1, d.ravel()[:0])
        return lambda d, index=None: (-1, numpy.empty(0, numpy.float64))
    if whole:
        return lambda d, index=None: (d.shape[0], d)

    def part(d, index=None):
        line = d[index]
        return (line.shape[0], line)

    return part
''',
    "fits_line": '''def fits_line(count, a):
    """Whether a is a number or a vector of count elements (compiled code only: see the overload below)."""
    raise TypeError("fits_line is called from code numba.njit compiles")


@numba.extending.overload(fits_line)
def _numba_fits_line(count, a):
    types = numba.core.types
    if isinstance(a, (types.Number, types.Boolean)):
        return lambda count, a: True
    if isinstance(a, types.Array) and a.ndim == 1:
        return lambda count, a: a.shape[0] == count
    return lambda count, a: False
''',
    "fits_float": '''def fits_float(count, a):
    """Whether a is a real number or a float64 vector of count elements (compiled code only: see the overload
    below)."""
    raise TypeError("fits_float is called from code numba.njit compiles")


@numba.extending.overload(fits_float)
def _numba_fits_float(count, a):
    """(element_runs: what a loop storing into an array of float64 may read, the line's array then of float64.)"""
    types = numba.core.types
    if isinstance(a, (types.Integer, types.Float, types.Boolean)):
        return lambda count, a: True
    if isinstance(a, types.Array) and a.ndim == 1 and a.dtype == types.float64:
        return lambda count, a: a.shape[0] == count
    return lambda count, a: False
''',
    "float_line": '''def float_line(count, a):
    """Whether a is a float64 vector of count elements (compiled code only: see the overload below)."""
    raise TypeError("float_line is called from code numba.njit compiles")


@numba.extending.overload(float_line)
def _numba_float_line(count, a):
    if isinstance(a, numba.core.types.Array) and a.ndim == 1 and a.dtype == numba.core.types.float64:
        return lambda count, a: a.shape[0] == count
    return lambda count, a: False
''',
    "line_in": '''def line_in(d, x, index):
    """line_of(d, index) where d is an array of x's shape, else (-1, an empty vector) (compiled code only: see
    the overload below)."""
    raise TypeError("line_in is called from code numba.njit compiles")


@numba.extending.overload(line_in)
def _numba_line_in(d, x, index):
    """The line of scatter_add's d (a number, a zero_array, or an array of x's shape) that the loop adds into
    where d has x's shape: d[index] as a view, for an index of integers and slices that leaves one axis."""
    types = numba.core.types
    parts = index.types if isinstance(index, types.BaseTuple) else (index,)
    basic = all(isinstance(p, (types.Integer, types.SliceType)) for p in parts)
    shaped = isinstance(d, types.Array) and isinstance(x, types.Array) and d.ndim == x.ndim and len(parts) <= d.ndim
    if not (shaped and basic and d.ndim - sum(isinstance(p, types.Integer) for p in parts) == 1):
        if isinstance(d, types.Array):
            return lambda d, x, index: (-1, d.ravel()[:0])
        return lambda d, x, index: (-1, numpy.empty(0, numpy.float64))

    def part(d, x, index):
        if d.shape != x.shape:
            return (-1, d.ravel()[:0])  # (an empty view: no array made)
        line = d[index]
        return (line.shape[0], line[:])

    return part
''',
    "apart": '''def apart(line, a):
    """Whether a shares no memory with line (compiled code only: see the overload below)."""
    raise TypeError("apart is called from code numba.njit compiles")


@numba.extending.overload(apart)
def _numba_apart(line, a):
    """True for a number; for an array, whether the memory it spans misses line's (scatter_add reads such
    a cotangent whole before it adds: the loop, element by element, would read what it wrote)."""
    if not isinstance(a, numba.core.types.Array):
        return lambda line, a: True
    return lambda line, a: not overlapping(line, a)  # (scatter_add's test: the else branch calls it)
''',
    "spans_line": '''def spans_line(count, a):
    """Whether a is a vector of count elements (compiled code only: see the overload below)."""
    raise TypeError("spans_line is called from code numba.njit compiles")


@numba.extending.overload(spans_line)
def _numba_spans_line(count, a):
    if isinstance(a, numba.core.types.Array) and a.ndim == 1:
        return lambda count, a: a.shape[0] == count
    return lambda count, a: False
''',
    "zero_outside": '''def zero_outside(d, line):
    """d's elements outside line, a view of it, set to zero (compiled code only: see the overload below)."""
    raise TypeError("zero_outside is called from code numba.njit compiles")


@numba.extending.overload(zero_outside)
def _numba_zero_outside(d, line):
    """Zeros where an array made empty is not stored into by a loop over line (a part of it): for a vector and
    a part of consecutive elements, the elements before and after it; for anything else, every element (the
    loop then stores over them)."""
    types = numba.core.types
    if not (isinstance(d, types.Array) and isinstance(line, types.Array) and line.ndim == 1):
        return None
    if d.ndim == 1:

        def outside(d, line):
            size, step = d.itemsize, d.strides[0]
            start = (line.ctypes.data - d.ctypes.data) // size
            n = line.shape[0]
            if step == size and line.strides[0] == size and 0 <= start and start + n <= d.shape[0] and n > 0:
                d[:start] = 0.0
                d[start + n :] = 0.0
            else:
                d[:] = 0.0

        return outside
    return lambda d, line: d.fill(0.0)
''',
    "as_line": '''def as_line(a, count):
    """a vector as it is, a number as a vector of count elements that holds it once (compiled code only: see
    the overload below)."""
    raise TypeError("as_line is called from code numba.njit compiles")


@numba.extending.overload(as_line)
def _numba_as_line(a, count):
    """A vector a itself; a number broadcast to count elements (a view of one element: no array of count made);
    anything else (where fits_line said no: never read) an empty vector, which types a loop all the same.  A
    loop reading elements of these indexes them, where ``element`` (a call an element) costs each array read
    its counts of references."""
    types = numba.core.types
    if isinstance(a, types.Array) and a.ndim == 1:
        return lambda a, count: a
    if isinstance(a, (types.Number, types.Boolean)):
        return lambda a, count: numpy.broadcast_to(a, (count,))
    return lambda a, count: numpy.empty(0, numpy.float64)
''',
    "element": '''def element(a, k):
    """a[k] of a vector, a itself of a number (compiled code only: see the overload below)."""
    raise TypeError("element is called from code numba.njit compiles")


@numba.extending.overload(element)
def _numba_element(a, k):
    """a[k] of a vector; a of a number; of any other array (where fits_line said no: never called) its k-th
    element in C order, which types the loop all the same.  Not inline="always": Numba's inlining of it ran
    dead-code elimination over the whole calling function, which removed a write into a list popped from a
    tape (its alias analysis takes no call's result for an alias), a silent wrong gradient; LLVM inlines
    the call all the same (GradBench lstm's gradient as quick, to the machine's noise)."""
    types = numba.core.types
    if isinstance(a, types.Array):
        if a.ndim == 1:
            return lambda a, k: a[k]
        return lambda a, k: a.ravel()[k]
    return lambda a, k: a
''',
}


def fresh_name(taken: set, base: str) -> str:
    """``base``, or ``base2``, ``base3``, ...: the first not in ``taken`` (which it joins).  The names of the
    element loops this target writes (here and in ``joined_loops``): count2, not count_2, which
    ``translate._unclashed`` would rename."""
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}{k}"
    taken.add(name)
    return name


class Added:
    """The rewrite of one generated function (see the module docstring): ``into``, ``scatter_add``,
    ``unbroadcast``: the names the code calls those runtime helpers by (sets); ``numpy``: the module's name
    of NumPy, ``numpy_names``: every name the code reads it by; ``vectors``: accumulators of arrays'
    adjoints -> the arrays' ndims; ``call(helper, args)``: a call of one of the helpers above, which the
    module then defines; ``tuples``: the names the module binds to tuples (an index that is one of them
    names a number, not a row)."""

    def __init__(
        self, function: ast.FunctionDef, into, scatter_add, unbroadcast, numpy, numpy_names, vectors, call, tuples
    ):
        self.into, self.scatter_add, self.unbroadcast = into, scatter_add, unbroadcast
        self.numpy, self.numpy_names, self.vectors, self.call = numpy, numpy_names, vectors, call
        self.tuples = tuples
        self.taken = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)} | {a.arg for a in function.args.args}

    def fresh(self, base: str) -> str:
        return fresh_name(self.taken, base)

    def block(self, stmts: list) -> list:
        return [self.statement(s) or s for s in stmts]

    def statement(self, s):
        """The rewrite of ``s``, or None where it is left as it is."""
        if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add) and isinstance(s.target, ast.Name):
            d = s.target.id
            if self.vectors.get(d) != 1:
                return None
            found = self.elementwise(s.value, {d})
            return found and self.looped(s, d, None, None, found, s.value)
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
            return None
        call = s.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and len(call.args) == 4):
            return None
        if call.keywords:
            return None
        d, x, index, g = call.args
        target = s.targets[0].id
        if call.func.id in self.into and isinstance(d, ast.Name):
            fresh, shaped = False, True
        elif call.func.id in self.scatter_add and isinstance(d, ast.Constant) and d.value == 0.0:
            fresh, shaped = True, True
        elif call.func.id in self.scatter_add and isinstance(d, ast.Name) and d.id == target:
            fresh, shaped = False, False  # added into where it is once it has x's shape, as scatter_add adds
        else:
            return None
        if not (isinstance(x, ast.Name) and cheap_index(index)):
            return None
        own = {target} | ({d.id} if isinstance(d, ast.Name) else set())
        found = self.elementwise(g, own, bare=True)
        if not found or not (found[2] or self.a_row(d, index)):
            return None
        return self.looped(s, None if fresh else d.id, x.id, index, found, g, shaped)

    def a_row(self, d, index) -> bool:
        """Whether ``d[index]`` is a row: ``d`` an accumulator of an array of more axes than the index has parts,
        the index no name the module binds to a tuple (a call of scatter_into or scatter_add costs more than
        the loop that adds a row's few elements in place; for one number, the test is all there is)."""
        ndim = self.vectors.get(d.id) if isinstance(d, ast.Name) else None
        if isinstance(index, ast.Name) and index.id in self.tuples:
            return False  # (a name the module binds to a tuple: det's place of one number, (rows[0], cols[j]))
        parts = len(index.elts) if isinstance(index, ast.Tuple) else 1
        return ndim is not None and ndim > parts

    def elementwise(self, e, own: set, bare: bool = False):
        """(the names of arrays and numbers ``e`` reads, the names ``unbroadcast`` sums down to, whether it
        calls ``unbroadcast`` or an elementwise function), or None where ``e`` is not such an expression
        (see the module docstring) or reads a name of ``own``; ``bare``: a name alone is one too."""
        reads, spans, called, ops = [], [], [False], [0]

        def walk(e) -> bool:
            if isinstance(e, ast.Name):
                if e.id in own:
                    return False
                reads.append(e.id)
                return True
            if isinstance(e, ast.Constant):
                return type(e.value) in (int, float)
            if isinstance(e, ast.BinOp):
                ops[0] += 1
                return isinstance(e.op, _OPS) and walk(e.left) and walk(e.right)
            if isinstance(e, ast.UnaryOp):
                ops[0] += 1
                return isinstance(e.op, (ast.USub, ast.UAdd)) and walk(e.operand)
            if not isinstance(e, ast.Call) or e.keywords or len(e.args) not in (1, 2):
                return False
            if isinstance(e.func, ast.Name) and e.func.id in self.unbroadcast and len(e.args) == 2:
                if not isinstance(e.args[1], ast.Name) or e.args[1].id in own:
                    return False
                spans.append(e.args[1].id)
                called[0] = True
                return walk(e.args[0])
            f = e.func
            numpy = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in self.numpy_names
            if numpy and f.attr in UNARY and len(e.args) == 1:
                ops[0] += 1
                called[0] = True
                return walk(e.args[0])
            return False

        if not walk(e) or not (ops[0] or bare and isinstance(e, ast.Name)):
            return None
        return list(dict.fromkeys(reads)), list(dict.fromkeys(spans)), called[0]

    def looped(self, s, d, x, index, found, g, shaped: bool = True) -> list:
        """``s`` as the loop over the part's elements where the shapes allow, ``s`` itself elsewhere;
        ``shaped``: whether ``d`` is known to have x's shape (else the loop runs where it has, and where no
        array read shares its memory: scatter_add copies such a one first)."""
        reads, spans, _ = found
        count, line, k = self.fresh("count"), self.fresh("line"), self.fresh("k")
        load = lambda n: ast.Name(n, ast.Load())  # noqa: E731
        store = lambda n: ast.Name(n, ast.Store())  # noqa: E731
        target = s.targets[0].id if isinstance(s, ast.Assign) else d
        at = [index] if index is not None else []
        body = []
        if d is None:  # scatter_add(0.0, x, ...): the length from x; zeros of its shape made where the loop runs
            numpy = load(self.numpy)
            shape = ast.Call(ast.Attribute(numpy, "shape", ast.Load()), [load(x)], [])
            count_of = ast.Subscript(self.call("line_of", [load(x)] + at), ast.Constant(0), ast.Load())
            head = [ast.Assign([store(count)], count_of)]
            body.append(ast.Assign([store(target)], ast.Call(ast.Attribute(numpy, "zeros", ast.Load()), [shape], [])))
            line_of = ast.Subscript(self.call("line_of", [load(target)] + at), ast.Constant(1), ast.Load())
            body.append(ast.Assign([store(line)], line_of))
            d = target
        else:
            part = self.call("line_of", [load(d)] + at) if shaped else self.call("line_in", [load(d), load(x)] + at)
            head = [ast.Assign([ast.Tuple([store(count), store(line)], ast.Store())], part)]
        tests = [ast.Compare(load(count), [ast.GtE()], [ast.Constant(0)])]
        tests += [self.call("fits_line", [load(count), load(n)]) for n in reads]
        tests += [self.call("spans_line", [load(count), load(n)]) for n in spans]
        if not shaped:
            tests += [self.call("apart", [load(line), load(n)]) for n in reads]
        value = _elements(g, k, self.unbroadcast, self.call)
        add = ast.AugAssign(ast.Subscript(load(line), load(k), ast.Store()), ast.Add(), value)
        body.append(ast.For(store(k), ast.Call(load("range"), [load(count)], []), [add], []))
        if target != d:
            body.append(ast.Assign([store(target)], load(d)))
        return head + [ast.If(ast.BoolOp(ast.And(), tests), body, [s])]


def _elements(e, k: str, unbroadcast: set, call):
    """The expression of the element ``k`` of ``e`` (an expression ``Added.elementwise`` took)."""
    if isinstance(e, ast.Name):
        return call("element", [ast.Name(e.id, ast.Load()), ast.Name(k, ast.Load())])
    if isinstance(e, ast.Constant):
        return e
    if isinstance(e, ast.BinOp):
        return ast.BinOp(_elements(e.left, k, unbroadcast, call), e.op, _elements(e.right, k, unbroadcast, call))
    if isinstance(e, ast.UnaryOp):
        return ast.UnaryOp(e.op, _elements(e.operand, k, unbroadcast, call))
    if isinstance(e.func, ast.Name) and e.func.id in unbroadcast:
        return _elements(e.args[0], k, unbroadcast, call)
    return ast.Call(e.func, [_elements(e.args[0], k, unbroadcast, call)], [])


def cheap_index(index) -> bool:
    """Whether the index is names and integers (read twice: for the length, and for the part; element_runs
    reads it for the count and for the line)."""
    if isinstance(index, ast.Name):
        return True
    if isinstance(index, ast.Constant):
        return type(index.value) is int
    return isinstance(index, ast.Tuple) and all(cheap_index(i) for i in index.elts)


def tuple_names(module: ast.Module) -> set:
    """The names ``module`` binds to tuples anywhere (an index pushed as one by a forward sweep and popped by
    the reverse sweep, another function: ``Added.a_row``)."""
    return {
        t.id
        for node in ast.walk(module)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple)
        for t in node.targets
        if isinstance(t, ast.Name)
    }


def added_by_element(function: ast.FunctionDef, **helpers) -> None:
    """``function`` (a generated function's ``ast``, its accumulators added into in place already) with each
    line the module docstring names rewritten, in place."""
    added = Added(function, **helpers)
    for node in list(ast.walk(function)):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                out = []
                for s in block:
                    new = added.statement(s)
                    out.extend(new if new is not None else [s])
                setattr(node, field, out)
