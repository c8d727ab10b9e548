"""Lowering of NumPy (one of ``anf``'s concept lowerers; NumPy's other spellings: ``spellings``).

A NumPy function is a primitive named by its canonical path (``numpy.sum``),
whatever alias the user imported it under; its arguments are put in one
positional order (``rules_numpy.SIGNATURES``), so ``x.sum(axis=0)``,
``np.sum(x, 0)`` and ``numpy.sum(x, axis=0)`` lower alike.  Methods and
attributes of arrays (``x.T``, ``x.reshape(2, 3)``, ``x.shape``) become the
same primitives.  Slices and index tuples are values of their own (``slice``,
``tuple``), so ``A[:, 0]`` is one ``getitem``.  NumPy is imported here only
when the user's code refers to it.
"""

from __future__ import annotations

import ast
import inspect
import functools
import sys

from ..rules import arrays as N
from ..rules import scipy_linalg as SL
from ..rules.families import REGISTRY
from ..rules.movement import REFUSED
from ..rules.primitive import Refusal
from ..ir.nodes import Const, Eq
from .emitter import leaf_hint
from .records import field
from .spellings import CROSS_AXES, einsum_subscripts, explicit_einsum


def _tuples(value):
    """A literal with its lists made tuples (a constant argument such as tensordot's axes [[1], [0]])."""
    return tuple(_tuples(v) for v in value) if isinstance(value, (list, tuple)) else value


def numpy_name(obj) -> str | None:
    """The canonical name of a NumPy function, or None for anything else."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None
    try:
        found = _canonical(numpy).get(id(obj))
    except TypeError:
        return None
    linalg = sys.modules.get("scipy.linalg")
    return found if found is not None or linalg is None else _scipy_linalg(linalg).get(id(obj))


SCIPY_LINALG = ("solve", "inv", "det")  # scipy.linalg's functions that compute what numpy.linalg's do


@functools.cache
def _scipy_linalg(linalg) -> dict:
    """id of a function of ``scipy.linalg`` that computes what NumPy's of its name does -> NumPy's
    canonical name (its keywords, ``assume_a=`` and the like, are refused as NumPy's unknown ones); of
    one written with NumPy's primitives (``rules.scipy_linalg``) -> its own name."""
    found = {id(getattr(linalg, name)): f"numpy.linalg.{name}" for name in SCIPY_LINALG if hasattr(linalg, name)}
    for prim in SL.SIGNATURES:
        target = getattr(linalg, prim.rpartition(".")[2], None)
        if target is not None:
            found[id(target)] = prim
    return found


@functools.cache
def _canonical(numpy) -> dict:
    """id of a NumPy function -> its canonical name: made whole once, then only read (no thread sees it
    half made)."""
    found: dict = {}
    names = (
        set(N.SIGNATURES)
        | set(N.INACTIVE)
        | set(N.SEQUENCE)
        | {"numpy.einsum"}
        | set(N.EXPANDED)
        | set(REFUSED)
        | {f"numpy.{c}" for c in N.CONSTRUCTORS}
    )
    # sorted: of two names of one function (np.mod, np.remainder) the same one in every process,
    # whatever the hash seed, so that the generated text is reproducible
    for canonical in sorted(names):
        target = numpy
        for part in canonical.split(".")[1:]:
            target = getattr(target, part, None)
        if target is not None:
            found.setdefault(id(target), canonical)
    return found


def _named_dtype(node) -> bool:
    """Whether ``node`` names a dtype as a module's attribute (``np.float32``, ``x.dtype``): not a string or a
    builtin's name (``float``), which lowering keeps as written."""
    return isinstance(node, ast.Attribute)


def _integer_display(node) -> bool:
    """Whether ``node`` is a list or tuple display of whole-number constants (nested, negatives included)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_integer_display(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, bool)


class ArrayLowering:
    """The lowering of NumPy calls, methods and attributes; see the module docstring."""

    def __init__(self, lower):
        self.lower, self.emit, self.parsed = lower, lower.emit, lower.emit.parsed  # (see anf.Lowering)

    def numpy_call(self, node: ast.Call, prim: str, hint, receiver=None):
        """A NumPy function call (or method call, with ``receiver`` the array)."""
        names, hint = hint, leaf_hint(hint)  # a tuple of names: for a decomposition's parts
        if prim in REFUSED:
            raise self.parsed.error(node, f"{ast.unparse(node.func)} {REFUSED[prim][0]}", REFUSED[prim][1])
        if prim in SL.SIGNATURES:
            return self.scipy_linalg(node, prim, names)
        if prim in N.SEQUENCE:
            return self.join(node, prim, hint)
        if prim == "numpy.where" and receiver is None and len(node.args) == 1 and not node.keywords:
            # np.where(cond): the indices where cond holds (np.nonzero): integers, computed as the primal does
            remedy = "use np.where(cond, x, y), or compute the indices outside the differentiated function"
            return self.lower.expressions.library_call(node, sys.modules["numpy"].where, hint, remedy)
        if prim == "numpy.einsum" and any(
            k.arg == "optimize" and isinstance(k.value, ast.Constant) for k in node.keywords
        ):
            kept = [k for k in node.keywords if k.arg != "optimize"]  # the order of contraction: the same values
            node = ast.copy_location(ast.Call(node.func, node.args, kept), node)
        if prim in ("numpy.sum", "numpy.reshape") and any(k.arg in ("where", "order") for k in node.keywords):
            return self.keyword_spelled(node, prim, hint, receiver)
        if prim == "numpy.einsum":
            spec, operands = einsum_subscripts(node)
            if spec is None:
                raise self.parsed.error(
                    node,
                    "numpy.einsum with computed subscripts or keywords",
                    "write the subscripts as a string, np.einsum('ij,jk->ik', a, b), or as literal sublists",
                )
            operands = [self.emit.atom(self.emit.element(self.lower.expressions.expr(a))) for a in operands]
            return self.emit.apply(prim, [Const(explicit_einsum(spec))] + operands, hint)
        if prim == "numpy.cross" and ({k.arg for k in node.keywords} & set(CROSS_AXES) or len(node.args) > 2):
            return self.lower.spellings.cross(node, hint)
        if prim in ("numpy.array", "numpy.asarray") and receiver is None and (len(node.args) > 1 or node.keywords):
            return self.converted(node, prim, hint)
        record = REGISTRY.get(prim)
        sequences = record.sequences if record is not None else ()
        arg = self.static_arg if prim in N.STATIC else self.array_arg
        if sequences:  # (np.select's lists: the arrays each holds, written out)
            arg = functools.partial(self.sequence_arg, arg)
        signature = N.SIGNATURES.get(prim)
        at = [n for n, _ in signature or ()][receiver is not None :]  # each positional argument's parameter
        args = ([receiver] if receiver is not None else []) + [
            arg(a, k < len(at) and at[k] in sequences) if sequences else arg(a) for k, a in enumerate(node.args)
        ]
        keywords = {  # (dtype=np.float32, dtype=int: the dtype's name, a constant, as dtype="float32" is)
            k.arg: (
                Const(self.dtype_of(k.value).name)
                if k.arg == "dtype"
                and (_named_dtype(k.value) and not self.dtype_read(k.value) or self.integer_builtin(k.value))
                else arg(k.value, k.arg in sequences) if sequences else arg(k.value)
            )
            for k in node.keywords
        }
        if signature is None:  # a constructor or an inactive query: keep the call as written
            if keywords:
                return self.emit.apply(prim, args + list(keywords.values()), hint, param=tuple(keywords))
            return self.emit.apply(prim, args, hint)
        if prim in ("numpy.reshape", "numpy.transpose") and receiver is not None and len(args) > 2:
            args = [args[0], self.emit.apply("tuple", args[1:], None)]  # x.reshape(2, 3), x.transpose(1, 0, 2)
        if len(args) > N.POSITIONAL.get(prim, len(args)):
            raise self.parsed.error(
                node,
                f"{ast.unparse(node.func)} with more than {N.POSITIONAL[prim]} positional arguments",
                "pass the others by keyword: " + ", ".join(f"{n}=..." for n, _ in signature[N.POSITIONAL[prim] :]),
            )
        values = self.bound(node, args, keywords, signature, N.STATIC.get(prim, {}))
        if (
            prim == "numpy.pad"
            and values[2].value != "constant"
            and "constant_values" in {k.arg for k in node.keywords}
        ):
            raise self.parsed.error(
                node, f"np.pad with mode {values[2].value!r} and constant_values", "leave constant_values out"
            )
        if record is not None and record.expand is not None:  # written as other primitives (rules.primitive)
            out = record.expand(_Build(self, hint), *values)
            if isinstance(out, Refusal):
                raise self.parsed.error(node, f"{ast.unparse(node.func)} {out.construct}", out.remedy)
            if out is not None:
                return out
        if prim in N.PARTS:
            return self.decomposition(prim, values, names)
        if prim in N.SPLITS:
            return self.split(prim, values, hint)
        return self.emit.apply(prim, values, hint)

    def keyword_spelled(self, node: ast.Call, prim: str, hint, receiver):
        """``np.sum(x, axis, where=mask)``: the sum of ``np.where(mask, x, 0)``; ``x.reshape(shape,
        order="F")``: the C-order reshape of ``x.T`` to the shape reversed, transposed (``order="C"``: as
        without it)."""
        keyword = next(k for k in node.keywords if k.arg in ("where", "order"))
        rest = ast.copy_location(ast.Call(node.func, node.args, [k for k in node.keywords if k is not keyword]), node)
        if receiver is None and not node.args:
            raise self.parsed.error(node, f"{ast.unparse(node.func)} without its array", "pass the array first")
        x = receiver if receiver is not None else self.array_arg(node.args[0])
        if receiver is None:
            rest.args = node.args[1:]
        if keyword.arg == "where":
            masked = self.emit.apply(
                "numpy.where", [self.emit.atom(self.array_arg(keyword.value)), self.emit.atom(x), Const(0)], None
            )
            return self.numpy_call(rest, prim, hint, receiver=masked)
        order = keyword.value.value if isinstance(keyword.value, ast.Constant) else None
        if order == "C":
            return self.numpy_call(rest, prim, hint, receiver=x)
        shape = list(rest.args) or [k.value for k in rest.keywords if k.arg in ("newshape", "shape")]
        if len(shape) == 1 and isinstance(shape[0], (ast.Tuple, ast.List)):
            shape = shape[0].elts
        literal = len(shape) == 1 and isinstance(shape[0], ast.Constant)
        if order != "F" or not shape or len(shape) == 1 and not literal or len(rest.keywords) > (not rest.args):
            raise self.parsed.error(
                node,
                f"{ast.unparse(node.func)} with order={ast.unparse(keyword.value)}"
                + (" and a shape not written out" if order == "F" else ""),
                "write order='C' or order='F' and the new shape as a tuple display: x.reshape((n, m), order='F')",
            )
        dims = [self.emit.atom(self.lower.expressions.expr(e)) for e in reversed(shape)]
        if all(isinstance(d, Const) for d in dims):
            reversed_shape = Const(tuple(d.value for d in dims))
        else:
            reversed_shape = self.emit.apply("tuple", dims, None)
        flipped = self.emit.apply("numpy.transpose", [self.emit.atom(x), Const(None)], None)
        shaped = self.emit.apply("numpy.reshape", [flipped, reversed_shape], None)
        return self.emit.apply("numpy.transpose", [shaped, Const(None)], hint)

    def bound(self, node: ast.Call, args: list, keywords: dict, signature, static: dict) -> list:
        """The arguments of a call in ``signature``'s order, defaults filled in; those ``static`` names
        checked to be constants (of the values it allows, None: any)."""
        values = []
        for i, (name, default) in enumerate(signature):
            if i < len(args):
                values.append(args[i])
            elif name in keywords:
                values.append(keywords.pop(name))
            elif default is not None:
                values.append(Const(default.value))
            else:
                raise self.parsed.error(node, f"{ast.unparse(node.func)} without its argument {name!r}", f"pass {name}")
        if keywords or len(args) > len(signature):
            extra = ", ".join(keywords) or f"{len(args)} arguments"
            raise self.parsed.error(
                node,
                f"{ast.unparse(node.func)} with {extra}",
                "use the arguments adcompiler knows: " + ", ".join(n for n, _ in signature),
            )
        for name, allowed in static.items():
            value = values[[n for n, _ in signature].index(name)]
            if not isinstance(value, Const) or allowed is not None and value.value not in allowed:
                raise self.parsed.error(
                    node,
                    f"{ast.unparse(node.func)} with {name} not one of the constants "
                    + (", ".join(map(repr, allowed)) if allowed else "(a number or a tuple of numbers)"),
                    f"write {name} as a constant where the function is called",
                )
        return values

    def scipy_linalg(self, node: ast.Call, prim: str, hint):
        """``scipy.linalg.cho_factor(K, lower=True)`` and friends: written with NumPy's primitives as
        ``rules.scipy_linalg`` says; ``cho_solve`` takes the pair ``(c, lower)`` cho_factor gave."""
        if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.parsed.error(
                node, f"*args or **kwargs passed to {ast.unparse(node.func)}", "pass them one by one"
            )
        pair = prim == "scipy.linalg.cho_solve"
        args = [
            self.lower.expressions.expr(a) if pair and i == 0 else self.static_arg(a) for i, a in enumerate(node.args)
        ]
        keywords = {
            k.arg: self.lower.expressions.expr(k.value) if k.arg == "c_and_lower" else self.static_arg(k.value)
            for k in node.keywords
        }
        values = self.bound(node, args, keywords, SL.SIGNATURES[prim], SL.STATIC[prim])
        apply = lambda p, xs, h=None: self.emit.apply(p, [self.emit.atom(x) for x in xs], h)  # noqa: E731
        if not pair:
            named = leaf_hint(hint, 0) if isinstance(hint, tuple) else leaf_hint(hint)  # c, low = cho_factor(K)
            return SL.WRITTEN[prim](apply, Const, [self.emit.element(v) for v in values], named)
        factor = values[0]
        if not (isinstance(factor, tuple) and len(factor) == 2 and isinstance(factor[1], Const)):
            raise self.parsed.error(
                node,
                f"{ast.unparse(node.func)} of a factor whose lower flag is not a constant here",
                "pass what cho_factor returned, c_and_lower = cho_factor(K, lower=True), or the pair (c, lower) it gave",
            )
        c, lower = factor
        return SL.cho_solve(
            apply, Const, self.emit.element(c), lower.value, self.emit.element(values[1]), leaf_hint(hint)
        )

    def decomposition(self, prim: str, values: list, hint):
        """``w, v = numpy.linalg.eigh(a)``: the decomposition once (no derivative), then one primitive
        per array it returns, ``numpy.linalg.eigh[i](a, ..., raw)`` (printed ``raw[i]``)."""
        a, parts, raw_args, static = values[0], range(N.PARTS[prim]), values, values[1:]
        if prim == "numpy.linalg.svd":  # the singular vectors are computed for the derivative anyway
            full, vectors = values[1].value, values[2].value
            raw_args, static = [a, Const(full and vectors), Const(True)], []
            parts = parts if vectors else (1,)
        elif prim == "numpy.linalg.qr":
            raw_args, static = [a, Const("reduced")], []
            parts = parts if values[1].value == "reduced" else (1,)
        raw = self.emit.apply(prim, raw_args, None)
        outs = tuple(
            self.emit.apply(
                f"{prim}[{i}]", [a] + static + [raw], leaf_hint(hint, k) if len(parts) > 1 else leaf_hint(hint)
            )
            for k, i in enumerate(parts)
        )
        return outs if len(outs) > 1 else outs[0]

    def split(self, prim: str, values: list, hint):
        """``numpy.split(x, sections, axis)`` and friends: the split once (no derivative), then a list of
        one primitive per piece, ``numpy.split/part(x, kind, sections, axis, i, raw)`` (printed ``raw[i]``)."""
        x, sections = values[0], values[1].value
        axis = values[2] if len(values) > 2 else Const(None)
        raw = self.emit.apply(prim, values, None)
        count = sections if isinstance(sections, int) else len(sections) + 1
        kind = Const(prim.rpartition(".")[2])
        parts = [self.emit.apply(N.SPLIT_PART, [x, kind, values[1], axis, Const(i), raw], None) for i in range(count)]
        return self.emit.apply("list", parts, hint)

    def sequence_arg(self, arg, node, sequence: bool):
        """An argument, lowered by ``arg``; of a parameter that is a sequence of arrays (``sequence``), the
        tuple of its arrays where it is written out as a list or tuple, else None (a record's ``expand``
        refuses it)."""
        if not sequence:
            return arg(node)
        if not isinstance(node, (ast.List, ast.Tuple)):
            return None
        return tuple(self.emit.atom(self.array_arg(e)) for e in node.elts)

    def integer_builtin(self, node) -> bool:
        """Whether ``node`` is Python's ``int`` or ``bool`` by its name (not a local of that name): as a dtype, an
        array of integers (or booleans), which the abstract value must say (an array written into by a helper
        is an index array only if it is known to be one)."""
        if not isinstance(node, ast.Name) or node.id not in ("int", "bool"):
            return False
        if any(node.id in names for names in (self.emit.pinned, self.emit.slots, self.emit.env)):
            return False
        try:
            return self.lower.names.resolve(node) in (int, bool)
        except Exception:
            return False

    def dtype_read(self, node) -> bool:
        """Whether ``node`` reads the dtype of a local value (``x.dtype``, ``self.W.dtype``, a local name holding
        one): an operand computed as the code runs (``numpy.dtype_of``), a constant of the function where the
        argument's dtype is known."""
        root = node.value if isinstance(node, ast.Attribute) and node.attr == "dtype" else node
        while isinstance(root, (ast.Attribute, ast.Subscript)):  # (self.W.dtype; self[0].dtype in derivative code)
            root = root.value
        return isinstance(root, ast.Name) and any(
            root.id in names for names in (self.emit.pinned, self.emit.slots, self.emit.env)
        )

    def dtype_of(self, node):
        """The dtype a constant dtype argument names (float, "float32", np.float64), or a located error."""
        numpy = sys.modules["numpy"]
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        local = isinstance(root, ast.Name) and any(
            root.id in names for names in (self.emit.pinned, self.emit.slots, self.emit.env)
        )
        try:
            if local or not isinstance(root, (ast.Name, ast.Constant)):
                raise TypeError("not a constant")
            return numpy.dtype(node.value if isinstance(node, ast.Constant) else self.lower.names.resolve(node))
        except (TypeError, AttributeError):
            raise self.parsed.error(
                node, f"the dtype {ast.unparse(node)}", "write the dtype as a constant: float, 'float32', np.float64"
            ) from None

    def cast(self, node: ast.Call, prim: str, x, dtype_node, hint):
        """``x`` cast to a float dtype (``prim``: copied or not); casts to other dtypes are refused, but for a
        display of whole numbers made an integer array (``np.array([2, 0, 1], dtype=np.int32)``: no derivative).
        A dtype read of a value (``x.astype(y.dtype)``) is an operand, checked where its dtype is known
        (``analysis.specialise``)."""
        if self.dtype_read(dtype_node):
            read = self.emit.atom(self.array_arg(dtype_node))
            return self.emit.apply(prim, [self.emit.atom(x), read], hint)
        dtype = self.dtype_of(dtype_node)
        if dtype.kind != "f" and not (dtype.kind in "iub" and node.args and _integer_display(node.args[0])):
            raise self.parsed.error(
                node,
                f"{ast.unparse(node)}, a cast to {dtype.name} (the derivative of a float would be lost silently)",
                "keep values float (np.floor(x) and np.round(x) have derivative 0); cast outside the function",
            )
        return self.emit.apply(prim, [self.emit.atom(x), Const(dtype.name)], hint)

    def astype(self, node: ast.Call, hint):
        """``x.astype(dtype)``: a copy of x cast to dtype."""
        dtype = node.args[0] if len(node.args) == 1 and not node.keywords else None
        if dtype is None and not node.args and [k.arg for k in node.keywords] == ["dtype"]:
            dtype = node.keywords[0].value
        if dtype is None:
            raise self.parsed.error(node, f"{ast.unparse(node)} with keywords", "write x.astype(dtype) alone")
        return self.cast(
            node, "numpy.array/dtype", self.emit.element(self.lower.expressions.expr(node.func.value)), dtype, hint
        )

    def converted(self, node: ast.Call, prim: str, hint):
        """``numpy.array(x, dtype=float)``, ``numpy.asarray(x, float)``: the array, then cast."""
        keywords = {k.arg: k.value for k in node.keywords}
        dtype = node.args[1] if len(node.args) == 2 and not keywords else keywords.get("dtype")
        if len(node.args) != 1 + (not keywords) or set(keywords) - {"dtype"} or dtype is None:
            raise self.parsed.error(
                node, f"{ast.unparse(node.func)} with arguments other than dtype", "pass the array and dtype only"
            )
        x = self.emit.apply(prim, [self.array_arg(node.args[0])], None)
        return self.cast(node, prim + "/dtype", x, dtype, hint)

    def join(self, node: ast.Call, prim: str, hint):
        """``numpy.concatenate([a, b], axis=0)`` and friends: the arrays are the arguments."""
        seq = node.args[0] if node.args else None
        keywords = {k.arg for k in node.keywords}
        if seq is None or len(node.args) > 1 + (N.SEQUENCE_AXIS[prim] is not None) or keywords - {"axis"}:
            raise self.parsed.error(
                node, f"{ast.unparse(node.func)} with these arguments", "pass the arrays, and axis where it takes one"
            )
        axis_node = (
            node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "axis"), None)
        )
        flat = prim == "numpy.concatenate" and isinstance(axis_node, ast.Constant) and axis_node.value is None
        # axis=None joins the arrays flattened: np.concatenate([np.ravel(a), np.ravel(b)])
        if flat and isinstance(seq, (ast.List, ast.Tuple)):
            raveled = [
                self.emit.apply(
                    "numpy.ravel", [self.emit.atom(self.emit.element(self.lower.expressions.expr(e)))], None
                )
                for e in seq.elts
            ]
            return self.emit.apply(
                prim, [self.emit.atom(a) for a in raveled] + [Const(0)], hint, param=("seq", len(raveled))
            )
        if isinstance(seq, (ast.List, ast.Tuple)):
            arrays = [self.emit.atom(self.emit.element(self.lower.expressions.expr(e))) for e in seq.elts]
        else:  # a sequence made at run time: one primitive of it (a symbolic tuple is its elements)
            value = self.lower.expressions.expr(seq)
            arrays = [self.emit.atom(self.emit.element(v)) for v in value] if isinstance(value, tuple) else None
            # a copy (list(xs); an array's own copy): the join's adjoint reads the list as it was here
            xs = self.emit.apply("numpy.copy", [self.emit.atom(value)], None) if arrays is None else None
        if N.SEQUENCE_AXIS[prim] is None:
            return (
                self.emit.apply(prim + "/list", [xs], hint)
                if arrays is None
                else self.emit.apply(prim, arrays, hint, param=("seq", len(arrays)))
            )
        axis = (
            self.emit.atom(self.lower.expressions.expr(axis_node))
            if axis_node is not None
            else Const(N.SEQUENCE_AXIS[prim])
        )
        if arrays is None:
            return self.emit.apply(prim + "/list", [xs, axis], hint)
        return self.emit.apply(prim, arrays + [axis], hint, param=("seq", len(arrays)))

    def static_arg(self, node):
        """An argument that may have to be a constant: a tuple of numbers (axes) is one constant."""
        if isinstance(node, (ast.Tuple, ast.List)):
            try:
                return Const(_tuples(ast.literal_eval(node)))
            except ValueError:
                pass
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):  # -np.inf
            inner = self.static_arg(node.operand)
            if isinstance(inner, Const) and isinstance(inner.value, (int, float)):
                return Const(-inner.value)
        return self.array_arg(node)

    def array_arg(self, node):
        """An argument of a NumPy call: tuples (shapes, axes) become tuple values."""
        return self.emit.element(self.lower.expressions.expr(node))

    def method_call(self, node: ast.Call, hint):
        """``x.sum(...)``, ``x.reshape(...)``, ``x.dot(y)``, ... on a local array."""
        name = node.func.attr
        if name not in N.METHODS and name != "astype" or own_method(self._class_of(node.func.value), name):
            # layer.forward(h), v.sum() of a class of the user's with its own sum: the class's (analysis.methods)
            return self.lower.expressions.object_call(node, name, node.func.value, hint)
        if name == "astype":
            return self.astype(node, hint)
        return self.numpy_call(
            node, N.METHODS[name], hint, receiver=self.emit.element(self.lower.expressions.expr(node.func.value))
        )

    def _class_of(self, node) -> type | None:
        """The class of a record this function builds, where ``node`` names one (``v`` after ``v = V(a, b)``) or
        builds it (``V(a, b)``); else None (the analysis knows an argument's: see ``facts.check_constructs``)."""
        if isinstance(node, ast.Name) and node.id not in self.emit.slots:
            return getattr(self.emit.env.get(node.id), "cls", None)
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            try:
                made = self.lower.names.resolve(node.func)
            except Exception:  # (no global of that name: the call's own lowering says so)
                return None
            return made if isinstance(made, type) else None
        return None

    def add_at(self, node: ast.Call):
        """``np.add.at(y, index, v)``: ``y[...] = add_at(y, y, index, v)``, v added at y[index] with repeated
        indices adding up, written back into y (a write into y, followed or refused as any other)."""
        if len(node.args) != 3 or node.keywords:
            raise self.parsed.error(node, "np.add.at with these arguments", "call np.add.at(y, index, values)")
        y = self.emit.element(self.lower.expressions.expr(node.args[0]))
        index = self.index(node.args[1])
        v = self.emit.element(self.lower.expressions.expr(node.args[2]))
        added = self.emit.apply("add_at", [y, y, index, v], None)
        self.emit.body.append(Eq((), "setitem", (y, Const(Ellipsis), added), self.emit.line))
        return Const(None)

    def attribute(self, node: ast.Attribute, hint):
        """``x.T``, ``x.shape``, ``x.ndim``, ``x.size`` of a local array."""
        value = self.lower.expressions.expr(node.value)
        if node.attr not in N.ATTRIBUTES or own_attribute(getattr(value, "cls", None), node.attr, value):
            # a NamedTuple's or dataclass's field (analysis.records checks it is), its own n.size included
            if getattr(value, "cls", dict) is not dict and node.attr in value.keys:  # of a record built here
                return value.value(node.attr)
            if isinstance(inspect.getattr_static(getattr(value, "cls", dict), node.attr, None), property):
                # a property of a record built here: its getter's call (analysis.methods), on the record made
                return self.emit.apply("getitem", [self.emit.atom(self.emit.element(value)), field(node.attr)], hint)
            cls = getattr(value, "cls", dict)
            if (
                isinstance(value, tuple)
                and cls is not dict
                and hasattr(cls, node.attr)
                and not callable(getattr(cls, node.attr))
            ):
                # OSC.omega, a class attribute of an object the module holds: its class's (analysis.methods)
                return self.emit.apply("getitem", [self.emit.atom(self.emit.element(value)), field(node.attr)], hint)
            if isinstance(value, tuple):
                raise self.parsed.error(node, f"the attribute .{node.attr} of a dict or tuple", 'read d["key"]')
            return self.emit.apply("getitem", [value, field(node.attr)], hint)
        value = self.emit.element(value)
        prim = N.ATTRIBUTES[node.attr]
        args = [value, Const(None)] if prim == "numpy.transpose" else [value]
        return self.emit.apply(prim, args, hint)

    def index(self, node):
        """An index: a number, a slice, None (a new axis), an array, or a tuple of these."""
        if isinstance(node, ast.Slice):
            parts = [
                self.emit.atom(self.lower.expressions.expr(p)) if p is not None else Const(None)
                for p in (node.lower, node.upper, node.step)
            ]
            return self.emit.apply("slice", parts, None)
        if isinstance(node, ast.Tuple):
            return self.emit.apply("tuple", [self.index(e) for e in node.elts], None)
        return self.emit.element(self.lower.expressions.expr(node))


def own_method(cls, name: str) -> bool:
    """Whether a user's class (a NamedTuple's, a dataclass's) defines a method ``name`` itself or in a base of
    its own, not one of Python's (``tuple.count``)."""
    if not isinstance(cls, type) or cls is dict:
        return False
    return any(name in vars(k) for k in cls.__mro__ if k.__module__ not in ("builtins", "typing"))


def own_attribute(cls, name: str, record=None) -> bool:
    """Whether a user's class has a field (one of ``record``'s keys, where it is given), a property or a class
    attribute ``name`` of its own: ``n.size`` of a NamedTuple with a field ``size`` is that field, not NumPy's."""
    if not isinstance(cls, type) or cls is dict:
        return False
    return name in getattr(record, "keys", ()) or own_method(cls, name)


__all__ = ["ArrayLowering", "numpy_name", "own_attribute", "own_method"]


class _Build:
    """What a record's ``expand`` writes a call with (``rules.primitive.Build``): primitives applied in
    the lowering's code, the call's own value named for the variable it is assigned to (``hint``)."""

    def __init__(self, arrays: ArrayLowering, hint):
        self.arrays, self.hint = arrays, hint

    def apply(self, prim: str, args: list, named: bool = False, param=None):
        return self.arrays.emit.apply(
            prim, [self.arrays.emit.atom(a) for a in args], self.hint if named else None, param
        )

    def part(self, prim: str, args: list, i: int):
        names = tuple(self.hint if k == i else None for k in range(N.PARTS[prim]))
        return self.arrays.decomposition(prim, args, names)[i]

    def constant(self, value):
        return Const(value)

    def value_of(self, atom, otherwise=None):
        return atom.value if isinstance(atom, Const) else otherwise
