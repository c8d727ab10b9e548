"""Lowering of lists and tuples-as-values (one of ``anf``'s concept lowerers).

Lists are mutable objects, so their primitives say what happens to the object:
``list`` (a literal), ``list_copy``, ``list_repeat`` (``[a] * n``), ``tuple``
(a tuple stored somewhere), ``getitem``, ``setitem`` and ``append`` (which
have no outputs: they change the list), ``len``, ``sum`` and ``argmax`` /
``argmin`` (the index ``max(xs)`` returns).  Loops over lists become loops
over an index; list comprehensions become a loop of ``append``.  The methods
``extend``, ``insert`` and ``pop(i)`` change the list in place: a loop of
``append``, and items moved one place with ``setitem`` (then ``pop``).
"""

from __future__ import annotations

import ast
import builtins

from ..ir.nodes import Const, Eq, For
from .records import Record


class ListLowering:
    """The lowering of lists; see the module docstring."""

    def __init__(self, lower):
        self.lower, self.emit, self.parsed = lower, lower.emit, lower.emit.parsed  # (see anf.Lowering)

    def list_literal(self, node: ast.List, hint):
        elts = [self.emit.element(self.lower.expressions.expr(e)) for e in node.elts]
        return self.emit.apply("list", elts, hint)

    def subscript(self, node: ast.Subscript, hint):
        kind = self.lower.spellings.concatenator(node)  # np.r_[a, b], np.c_[a, b]: NumPy's joins spelt as an index
        if kind is not None:
            return self.lower.spellings.concatenated(node, kind, hint)
        container = self.lower.expressions.expr(node.value)
        if isinstance(container, Record):
            return self.lower.records.record_read(container, node)
        index = self.lower.arrays.index(node.slice)
        if isinstance(container, tuple):
            if (
                isinstance(index, Const)
                and isinstance(index.value, int)
                and -len(container) <= index.value < len(container)
            ):
                return container[index.value]
            container = self.emit.element(container)
        return self.emit.apply("getitem", [container, index], hint)

    def repeat(self, node: ast.BinOp, hint):
        """``[a] * n`` (or ``n * [a]``) with one scalar element."""
        lst, count = (node.left, node.right) if isinstance(node.left, ast.List) else (node.right, node.left)
        if len(lst.elts) != 1 or isinstance(lst.elts[0], (ast.List, ast.ListComp)):
            raise self.parsed.error(
                node,
                "repeating a list of lists or of several elements",
                "build it with a comprehension: [[0.0] * m for _ in range(n)]",
            )
        return self.emit.apply(
            "list_repeat",
            [
                self.emit.atom(self.lower.expressions.expr(lst.elts[0])),
                self.emit.atom(self.lower.expressions.expr(count)),
            ],
            hint,
        )

    def list_builtin(self, node: ast.Call, target, hint):
        """``len``, ``sum``, ``list`` and one-argument ``max``/``min`` of a list."""
        if len(node.args) != 1 or node.keywords:
            raise self.parsed.error(
                node, f"{target.__name__} with these arguments", f"call {target.__name__}(xs) with one list"
            )
        arg = self.emit.element(self.lower.expressions.expr(node.args[0]))
        if target is builtins.len:
            return self.emit.apply("len", [arg], hint)
        if target is builtins.sum:
            return self.emit.apply("sum", [arg], hint)
        if target is builtins.list:
            return self.emit.apply("list_copy", [arg], hint)
        index = self.emit.apply("argmax" if target is builtins.max else "argmin", [arg], None)
        return self.emit.apply("getitem", [arg, index], hint)

    def comprehension(self, node: ast.ListComp, hint):
        """``[e for x in xs if c]`` is a fresh list filled by a loop of appends."""
        node = self.lower.idioms.own_targets(node)
        out = self.emit.apply("list", [], hint)
        name = out.name
        self.emit.env[name] = out
        body: list = [
            ast.Expr(ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "append", ast.Load()), [node.elt], []))
        ]
        for gen in reversed(node.generators):
            if gen.is_async:
                raise self.parsed.error(node, "an async comprehension", "use a plain loop")
            for cond in reversed(gen.ifs):
                body = [ast.If(cond, body, [])]
            body = [ast.For(gen.target, gen.iter, body, [], None)]
        loop = body[0]
        for n in ast.walk(loop):
            if hasattr(n, "lineno") or isinstance(n, (ast.stmt, ast.expr)):
                n.lineno, n.col_offset = node.lineno, node.col_offset
        self.lower.statements.for_(loop, 1)
        del self.emit.env[name]
        return out

    def setitem(self, target: ast.Subscript, value) -> None:
        """``xs[i] = v`` (and ``xs[i][j] = v``): change the list in place (a dict built here: see ``records``)."""
        base = target.value
        record = self.emit.env.get(base.id) if isinstance(base, ast.Name) and base.id not in self.emit.slots else None
        if isinstance(record, Record):
            return self.lower.records.record_write(base.id, record, target, value)
        container = self.emit.element(self.lower.expressions.expr(target.value))
        index = self.lower.arrays.index(target.slice)
        self.emit.body.append(Eq((), "setitem", (container, index, self.emit.element(value)), self.emit.line))

    def append(self, call: ast.Call) -> None:
        if len(call.args) != 1 or call.keywords:
            raise self.parsed.error(call, "append with these arguments", "append one value: xs.append(v)")
        container = self.emit.element(self.lower.expressions.expr(call.func.value))
        self.emit.body.append(
            Eq((), "append", (container, self.emit.element(self.lower.expressions.expr(call.args[0]))), self.emit.line)
        )

    def iterate(self, stmt: ast.For, loops: int) -> None:
        """``for x in xs``, over ``enumerate``, ``zip`` and ``reversed`` of lists (nested as Python
        allows: ``for i, (a, b) in enumerate(zip(xs, ys))``): a loop over an index."""
        it, target = stmt.iter, stmt.target
        counted = self._called(it, builtins.enumerate, start=True)
        start = (it.args[1:] + [k.value for k in it.keywords])[:1] if counted else []
        inner = it.args[0] if counted else it
        backwards = self._called(inner, builtins.reversed)
        inner = inner.args[0] if backwards else inner
        zipped = self._called(inner, builtins.zip, several=True)
        sources = inner.args if zipped else [inner]
        for source in sources:
            grown = _length_changed(stmt.body, source)
            if grown is not None:  # Python's loop would see the items added (or miss those taken)
                raise self.parsed.error(
                    grown,
                    f"changing the length of {ast.unparse(source)} inside a for loop over it",
                    f"loop over a copy (for v in list({ast.unparse(source)})), or with while and an index",
                )
        lists = [self.emit.element(self.lower.expressions.expr(s)) for s in sources]
        lengths = [self.emit.apply("len", [xs], None) for xs in lists]
        n = lengths[0]
        for other in lengths[1:]:
            n = self.emit.apply("min", [n, other], None)
        k = self.emit.new_var("k")
        names = [t for t in ast.walk(target) if isinstance(t, ast.Name)]
        if any(isinstance(t, ast.expr) and not isinstance(t, (ast.Name, ast.Tuple)) for t in ast.walk(target)):
            raise self.parsed.error(target, "this loop target", "loop over plain names")
        saved = {t.id: self.emit.env.get(t.id) for t in names}
        prefix_body, self.emit.body = self.emit.body, []
        index = k
        if backwards:
            last = self.emit.apply("sub", [n, Const(1)], None)
            index = self.emit.apply("sub", [last, k], None)
        element_target = (
            target.elts[1] if counted and isinstance(target, ast.Tuple) and len(target.elts) == 2 else target
        )
        hints = [_name(t) for t in element_target.elts] if zipped and isinstance(element_target, ast.Tuple) else []
        elements = [
            self.emit.apply(
                "getitem", [xs, index], hints[j] if j < len(hints) else _name(element_target) if not zipped else None
            )
            for j, xs in enumerate(lists)
        ]
        value = tuple(elements) if zipped else elements[0]
        count = k  # enumerate(xs, 1): k + 1
        if start:
            count = self.emit.apply("add", [k, self.emit.atom(self.lower.expressions.expr(start[0]))], None)
        self.lower.statements.bind(target, (count, value) if counted else value)
        head, self.emit.body = self.emit.body, prefix_body
        body = head + list(self.lower.statements.block(stmt.body, loops + 1))
        for t in names:
            if saved[t.id] is None:
                self.emit.env.pop(t.id, None)
            else:
                self.emit.env[t.id] = saved[t.id]
        self.emit.body.append(For(k, Const(0), n, Const(1), tuple(body), stmt.lineno))

    def list_method(self, node: ast.Call, hint):
        """``xs.extend(ys)``, ``xs.insert(i, v)`` and ``xs.pop(i)``: the list changed in place by appends,
        moves and pops (None: another call)."""
        name, base, args = node.func.attr, node.func.value, node.args
        if node.keywords or not (
            name == "extend"
            and len(args) == 1
            or name == "insert"
            and len(args) == 2
            or name == "pop"
            and len(args) == 1
        ):
            return None
        xs = self.emit.element(self.lower.expressions.expr(base))
        if name == "extend":  # a copy first: xs.extend(xs) adds each item once
            items = self.emit.apply("list_copy", [self.lower.idioms.iterable(args[0])], None)
            k = self.emit.new_var("k")
            read = lambda: self.emit.body.append(
                Eq((), "append", (xs, self.emit.apply("getitem", [items, k], None)), self.emit.line)
            )
            self.emit.body.append(
                For(
                    k,
                    Const(0),
                    self.emit.apply("len", [items], None),
                    Const(1),
                    self.emit.collected(read),
                    self.emit.line,
                )
            )
            return Const(None)
        n = self.emit.apply("len", [xs], None)
        if name == "pop":  # xs[i] (raising where pop raises), the items after it moved down, the last dropped
            value = self.emit.apply("getitem", [xs, self.emit.atom(self.lower.expressions.expr(args[0]))], hint)
            at = self.position(self.emit.atom(self.lower.expressions.expr(args[0])), n)
            self.shift(xs, at, self.emit.apply("sub", [n, Const(1)], None), Const(1))
            self.emit.apply("pop", [xs], None)
            return value
        # insert: Python's index, clamped to 0 .. n
        at = self.position(self.emit.atom(self.lower.expressions.expr(args[0])), n)
        at = self.emit.apply("min", [self.emit.apply("max", [at, Const(0)], None), n], None)
        value = self.emit.element(self.lower.expressions.expr(args[1]))
        self.emit.body.append(Eq((), "append", (xs, value), self.emit.line))
        self.shift(xs, n, at, Const(-1))
        self.emit.body.append(Eq((), "setitem", (xs, at, value), self.emit.line))
        return Const(None)

    def position(self, index, n):
        """A list index as a position: ``index + n`` where it is negative."""
        return self.emit.apply(
            "add", [index, self.emit.apply("mul", [n, self.emit.apply("lt", [index, Const(0)], None)], None)], None
        )

    def shift(self, xs, start, stop, step) -> None:
        """``xs[j] = xs[j + step]`` for ``j`` in ``range(start, stop, step)``: items moved one place."""
        j = self.emit.new_var("j")

        def move():
            source = self.emit.apply("add", [j, step], None)
            self.emit.body.append(
                Eq((), "setitem", (xs, j, self.emit.apply("getitem", [xs, source], None)), self.emit.line)
            )

        self.emit.body.append(For(j, start, stop, step, self.emit.collected(move), self.emit.line))

    def _called(self, node, builtin, several: bool = False, start: bool = False) -> bool:
        """Whether ``node`` is a call of the builtin ``builtin`` (with one argument, or several; or with
        ``enumerate``'s ``start``)."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == builtin.__name__):
            return False
        if self.lower.names.resolve(node.func) is not builtin:
            return False
        started = start and len(node.args) + len(node.keywords) == 2 and all(k.arg == "start" for k in node.keywords)
        if started and node.args:
            return True
        if node.keywords or not node.args or (len(node.args) != 1 and not several):
            name = builtin.__name__
            raise self.parsed.error(
                node, f"{name} with these arguments", f"use {name}(xs)" + (" or zip(xs, ys)" if several else "")
            )
        return True


_RESIZING = ("append", "extend", "insert", "pop", "remove", "clear")  # list methods that change a list's length


def _length_changed(body: list, source: ast.expr):
    """The first statement or call of ``body`` that changes the length of the list ``source`` names (a name
    or an attribute, ``xs`` or ``self.items``): ``xs.append(v)``, ``xs += [v]``, ``del xs[0]``; else None."""
    if not isinstance(source, (ast.Name, ast.Attribute)):
        return None
    same = _key(source)
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RESIZING:
                if _key(node.func.value) == same:
                    return node
            if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and _key(node.target) == same:
                if not isinstance(node.value, ast.Constant):  # (xs += [v]; a number added to an array is not it)
                    return node
            if isinstance(node, ast.Delete) and any(
                isinstance(t, ast.Subscript) and _key(t.value) == same for t in node.targets
            ):
                return node
    return None


def _key(node: ast.expr) -> str:
    """What names one object alike wherever it is read, written or deleted (``xs``, ``self.items``)."""
    return ast.dump(node, annotate_fields=False).replace("Store()", "Load()").replace("Del()", "Load()")


def _name(target):
    """The user's name for a loop element, if the target is a plain name."""
    return target.id if isinstance(target, ast.Name) else None


def is_append(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append"


__all__ = ["ListLowering", "is_append"]
