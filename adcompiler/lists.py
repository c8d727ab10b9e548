"""Lowering of lists and tuples-as-values: the container half of ``anf``.

Lists are mutable objects, so their primitives say what happens to the object:
``list`` (a literal), ``list_copy``, ``list_repeat`` (``[a] * n``), ``tuple``
(a tuple stored somewhere), ``getitem``, ``setitem`` and ``append`` (which
have no outputs: they change the list), ``len``, ``sum`` and ``argmax`` /
``argmin`` (the index ``max(xs)`` returns).  Loops over lists become loops
over an index; list comprehensions become a loop of ``append``.
"""

from __future__ import annotations

import ast
import builtins

from .ir import Const, Eq, For, Var


class ListLowering:
    """Methods of ``anf._Lowering`` for lists; see the module docstring."""

    def list_literal(self, node: ast.List, hint):
        elts = [self.element(self.expr(e)) for e in node.elts]
        return self.apply("list", elts, hint)

    def element(self, value):
        """A value stored in a container: symbolic tuples become real ones."""
        if isinstance(value, tuple):
            return self.apply("tuple", [self.element(v) for v in value], None)
        return value

    def subscript(self, node: ast.Subscript, hint):
        container = self.expr(node.value)
        index = self.index(node.slice)
        if isinstance(container, tuple):
            if (
                isinstance(index, Const)
                and isinstance(index.value, int)
                and -len(container) <= index.value < len(container)
            ):
                return container[index.value]
            container = self.element(container)
        return self.apply("getitem", [container, index], hint)

    def repeat(self, node: ast.BinOp, hint):
        """``[a] * n`` (or ``n * [a]``) with one scalar element."""
        lst, count = (node.left, node.right) if isinstance(node.left, ast.List) else (node.right, node.left)
        if len(lst.elts) != 1 or isinstance(lst.elts[0], (ast.List, ast.ListComp)):
            raise self.parsed.error(
                node,
                "repeating a list of lists or of several elements",
                "build it with a comprehension: [[0.0] * m for _ in range(n)]",
            )
        return self.apply("list_repeat", [self.atom(self.expr(lst.elts[0])), self.atom(self.expr(count))], hint)

    def list_builtin(self, node: ast.Call, target, hint):
        """``len``, ``sum``, ``list`` and one-argument ``max``/``min`` of a list."""
        if len(node.args) != 1 or node.keywords:
            raise self.parsed.error(
                node, f"{target.__name__} with these arguments", f"call {target.__name__}(xs) with one list"
            )
        arg = self.element(self.expr(node.args[0]))
        if target is builtins.len:
            return self.apply("len", [arg], hint)
        if target is builtins.sum:
            return self.apply("sum", [arg], hint)
        if target is builtins.list:
            return self.apply("list_copy", [arg], hint)
        index = self.apply("argmax" if target is builtins.max else "argmin", [arg], None)
        return self.apply("getitem", [arg, index], hint)

    def comprehension(self, node: ast.ListComp, hint):
        """``[e for x in xs if c]`` is a fresh list filled by a loop of appends."""
        out = self.apply("list", [], hint)
        name = out.name
        self.env[name] = out
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
        self.for_(loop, 1)
        del self.env[name]
        return out

    def setitem(self, target: ast.Subscript, value) -> None:
        """``xs[i] = v`` (and ``xs[i][j] = v``): change the list in place."""
        container = self.element(self.expr(target.value))
        index = self.index(target.slice)
        self.body.append(Eq((), "setitem", (container, index, self.element(value)), self.line))

    def append(self, call: ast.Call) -> None:
        if len(call.args) != 1 or call.keywords:
            raise self.parsed.error(call, "append with these arguments", "append one value: xs.append(v)")
        container = self.element(self.expr(call.func.value))
        self.body.append(Eq((), "append", (container, self.element(self.expr(call.args[0]))), self.line))

    def iterate(self, stmt: ast.For, loops: int) -> None:
        """``for x in xs`` / ``enumerate`` / ``zip`` / ``reversed``: a loop over an index."""
        it, target = stmt.iter, stmt.target
        kind, sources = "plain", [it]
        if (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id in ("enumerate", "zip", "reversed")
        ):
            fn = self.resolve(it.func)
            kind = {builtins.enumerate: "enumerate", builtins.zip: "zip", builtins.reversed: "reversed"}.get(
                fn, "plain"
            )
            sources = it.args if kind != "plain" else [it]
            if kind != "plain" and (it.keywords or (kind != "zip" and len(it.args) != 1)):
                raise self.parsed.error(it, f"{kind} with these arguments", f"use {kind}(xs)")
        lists = [self.element(self.expr(s)) for s in sources]
        lengths = [self.apply("len", [xs], None) for xs in lists]
        n = lengths[0]
        for other in lengths[1:]:
            n = self.apply("min", [n, other], None)
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        if not all(isinstance(t, ast.Name) for t in names):
            raise self.parsed.error(target, "this loop target", "loop over plain names")
        wanted = {"plain": 1, "enumerate": 2, "zip": len(lists), "reversed": 1}[kind]
        unpack = kind in ("plain", "reversed") and isinstance(target, ast.Tuple)  # for W, b in layers
        if len(names) != wanted and not unpack:
            raise self.parsed.error(target, f"unpacking into {len(names)} names", f"unpack {wanted} name(s)")
        k = self.new_var("k")
        saved = {t.id: self.env.get(t.id) for t in names}
        prefix_body, self.body = self.body, []
        index = k
        if kind == "reversed":
            last = self.apply("sub", [n, Const(1)], None)
            index = self.apply("sub", [last, k], None)
        if kind == "enumerate":
            self.env[names[0].id] = k
            self.env[names[1].id] = self.apply("getitem", [lists[0], k], names[1].id)
        elif unpack:
            self.bind(target, self.apply("getitem", [lists[0], index], None))
        else:
            for t, xs in zip(names, lists):
                self.env[t.id] = self.apply("getitem", [xs, index], t.id)
        head, self.body = self.body, prefix_body
        body = head + list(self.block(stmt.body, loops + 1))
        for t in names:
            if saved[t.id] is None:
                self.env.pop(t.id, None)
            else:
                self.env[t.id] = saved[t.id]
        self.body.append(For(k, Const(0), n, Const(1), tuple(body), stmt.lineno))


def is_append(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append"


__all__ = ["ListLowering", "is_append", "Var"]
