"""Expressions of arrays in the Numba target written to make fewer arrays, with the same numbers.

Numba makes an array for each operation of an expression it cannot fuse into one loop (a call, a
display, an operand it must make first), and each array costs its allocation and the atomic counting of
its references, which on small arrays is most of the time (GradBench particle's forward over forward
derivative: 43% of its samples in reference counts, 17% in malloc and free).  ``translate`` hands these
rewrites the generated expressions; each gives the same numbers with fewer arrays made:

* ``numpy.array([10.0, 0.0])`` as an operand of arithmetic is a constant of the module, made once when
  the module is loaded (Numba freezes it into the code; read-only, which an operand's result is not);
* ``-numpy.array([a, b])`` is ``numpy.array([-a, -b])``;
* ``numpy.sum(a * b)`` (``sum_all(a * b)``, ``(a * b).sum()``) is ``sum_product(a, b)`` and
  ``numpy.sum(a * b, axis=k)`` is ``sum_product_along(a, b, k, keepdims)``: the products summed as they
  are made (``runtime``, ``reductions``);
* ``z * unreduce(g, z, k, False)``, the adjoint of a sum along an axis times the array summed, is
  ``z * spread_along(g, z, k)``: g with the axis put back of length 1, which the arithmetic broadcasts;
* ``vjp(c * g, a, b)``, a cotangent helper linear in its first argument and ``c`` a power of two or its
  negation, is ``c * vjp(g, a, b)``: exactly the same numbers (a power of two scales every product and
  sum without rounding), the factor on the helper's result, often much smaller than the cotangent.
"""

from __future__ import annotations

import ast
import math

# the cotangent helpers linear in their first argument (the cotangent)
LINEAR_IN_COTANGENT = ("matmul_vjp_a", "matmul_vjp_b", "dot_vjp_a", "dot_vjp_b", "inner_vjp_a", "inner_vjp_b")


class FewerArrays:
    """The rewrites above for one module: ``numpy`` is its name of NumPy, ``call(helper, args)`` a call of a
    Numba helper (which the module then defines), ``use(helper)`` says the module defines one the code does
    not call, ``fresh(name)`` gives a module-level name no other takes."""

    def __init__(self, numpy: str, call, use, fresh=None):
        self.numpy = numpy
        self.call = call
        self.use = use
        self.fresh = fresh
        self.numpy_names: set = {numpy}  # the names of the NumPy module in the code
        self.unreduce: set = set()  # the names the code calls runtime helper unreduce by
        self.sum_all: set = set()  # ... sum_all by
        self.linear: set = set()  # ... the helpers of LINEAR_IN_COTANGENT by
        self.constants: dict = {}  # the arrays of constants operands are: text -> (name, value)

    def statements(self) -> list:
        """The assignments of the module's constants (after its imports)."""
        return [ast.Assign([ast.Name(name, ast.Store())], value) for name, value in self.constants.values()]

    def binop(self, node: ast.BinOp) -> ast.BinOp:
        """``node`` with an operand made of constants a constant of the module, and an unreduce with the other
        operand's shape spread along its axis."""
        if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            node.left, node.right = self._spread(node.left, node.right), self._spread(node.right, node.left)
        node.left, node.right = self._constant(node.left), self._constant(node.right)
        return node

    def unary(self, node: ast.UnaryOp):
        """``numpy.array([-a, -b])`` for ``node`` ``-numpy.array([a, b])`` (a dtype kept), else ``node``."""
        call = node.operand
        if not (isinstance(node.op, ast.USub) and self._array_call(call)) or not all(map(_floats, call.keywords)):
            return node  # (a dtype of floats only: NumPy refuses to negate booleans, which -True would make 1)
        items = call.args[0]
        if not isinstance(items, (ast.List, ast.Tuple)) or not items.elts:
            return node
        if any(isinstance(e, (ast.List, ast.Tuple, ast.Starred)) for e in items.elts):
            return node
        negated = type(items)([ast.UnaryOp(ast.USub(), e) for e in items.elts], ast.Load())
        return ast.Call(call.func, [negated], call.keywords)

    def call_of(self, node: ast.Call):
        """The rewrite of the call ``node`` (a linear vjp of a scaled cotangent, a sum of a product), or None."""
        if isinstance(node.func, ast.Name) and node.func.id in self.linear and node.args and not node.keywords:
            factor, g = _power_of_two_times(node.args[0])
            if factor is not None:
                return ast.BinOp(ast.Constant(factor), ast.Mult(), ast.Call(node.func, [g, *node.args[1:]], []))
        product = _summed_product(node, self.sum_all)
        if product is not None:  # sum_all(a * b), (a * b).sum(): summed without the array of products
            return self.call("sum_product", [product.left, product.right])
        return None

    def summed_along(self, product, axis, keepdims):
        """``sum_product_along(a, b, axis, keepdims)`` for ``numpy.sum(product, axis, keepdims)`` where
        ``product`` is ``a * b`` (not of a literal number) and the axis and keepdims constants, else None."""
        operands = (getattr(product, "left", None), getattr(product, "right", None))
        multiplied = isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult)
        if not multiplied or any(isinstance(x, ast.Constant) for x in operands) or not constant_int(axis):
            return None
        if not isinstance(keepdims, ast.Constant):
            return None
        self.use("reduce_along")  # (what sum_product_along's overload calls where the shapes differ)
        return self.call("sum_product_along", [product.left, product.right, axis, keepdims])

    def _array_call(self, node) -> bool:
        """Whether ``node`` is ``numpy.array(x)`` (of one argument)."""
        func = getattr(node, "func", None)
        named = isinstance(func, ast.Attribute) and func.attr == "array" and isinstance(func.value, ast.Name)
        return named and func.value.id in self.numpy_names and len(node.args) == 1

    def _constant(self, operand):
        """A module constant, ``constant``, for the operand ``numpy.array([10.0, 0.0])`` (literal numbers,
        the default dtype), made once when the module is loaded (GradBench particle's potential: each call
        made and freed one, about 4% of its forward over forward derivative); else ``operand``."""
        if not self._array_call(operand) or operand.keywords or not _numbers(operand.args[0]) or self.fresh is None:
            return operand
        value = ast.Call(ast.Attribute(ast.Name(self.numpy, ast.Load()), "array", ast.Load()), operand.args, [])
        key = ast.dump(value)
        if key not in self.constants:
            self.constants[key] = (self.fresh("constant"), value)
        return ast.Name(self.constants[key][0], ast.Load())

    def _spread(self, operand, other):
        """``spread_along(g, x, axis)`` for ``operand`` ``unreduce(g, x, axis, False)`` where ``other`` is the
        name ``x``, else ``operand``."""
        call = operand if isinstance(operand, ast.Call) and isinstance(operand.func, ast.Name) else None
        if call is None or call.func.id not in self.unreduce or call.keywords or len(call.args) != 4:
            return operand
        g, x, axis, keepdims = call.args
        same = isinstance(x, ast.Name) and isinstance(other, ast.Name) and x.id == other.id
        if same and constant_int(axis) and isinstance(keepdims, ast.Constant) and keepdims.value is False:
            return self.call("spread_along", [g, x, axis])
        return operand


def _floats(keyword: ast.keyword) -> bool:
    """Whether ``keyword`` is ``dtype=`` a float type (``float``, ``numpy.float64``, ``"float32"``)."""
    value = keyword.value
    named = value.id if isinstance(value, ast.Name) else getattr(value, "attr", getattr(value, "value", None))
    return keyword.arg == "dtype" and named in ("float", "float64", "float32", "double")


def _summed_product(call: ast.Call, sum_all: set) -> ast.BinOp | None:
    """``a * b`` where ``call`` is ``sum_all(a * b)`` (the runtime helper, by one of the names ``sum_all``)
    or ``(a * b).sum()``, else None."""
    if call.keywords:
        return None
    func = call.func
    if isinstance(func, ast.Name) and func.id in sum_all and len(call.args) == 1:
        summed = call.args[0]
    elif isinstance(func, ast.Attribute) and func.attr == "sum" and not call.args:
        summed = func.value
    else:
        return None
    return summed if isinstance(summed, ast.BinOp) and isinstance(summed.op, ast.Mult) else None


def _numbers(node) -> bool:
    """Whether ``node`` is a non-empty list or tuple display of int or float literals (negated or not), or of
    such displays of one length (the rows of a matrix)."""
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return False
    if all(isinstance(e, (ast.List, ast.Tuple)) for e in node.elts):
        return len({len(e.elts) for e in node.elts}) == 1 and all(_numbers(e) for e in node.elts)
    number = lambda e: isinstance(e, ast.Constant) and type(e.value) in (int, float)  # noqa: E731
    return all(number(e.operand if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) else e) for e in node.elts)


def _power_of_two_times(node) -> tuple:
    """``(c, g)`` where ``node`` is ``c * g``, ``g * c``, ``-g`` or a product of those, ``c`` a float or integer power
    of two or its negation; else ``(None, node)``."""
    factor, g = 1.0, node
    while True:
        if isinstance(g, ast.UnaryOp) and isinstance(g.op, ast.USub):
            factor, g = -factor, g.operand
            continue
        if isinstance(g, ast.BinOp) and isinstance(g.op, ast.Mult):
            scale = next(((c, x) for c, x in ((g.left, g.right), (g.right, g.left)) if _power_of_two(c)), None)
            if scale is not None:
                factor, g = factor * scale[0].value, scale[1]
                continue
        break
    return (factor, g) if g is not node else (None, node)


def _power_of_two(node) -> bool:
    value = node.value if isinstance(node, ast.Constant) else None
    if type(value) not in (int, float) or value == 0 or not math.isfinite(value):
        return False
    return math.frexp(abs(value))[0] == 0.5


def constant_int(node) -> bool:
    """Whether ``node`` is an int literal, negated or not."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int
