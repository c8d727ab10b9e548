"""Scalar statements: Stmts writes assignments, branches, loops, jumps and returns, carrying bounds through
them, and function bodies; its parts write list statements (ListStmts), and before a plain statement
may take the statement's turn: lists rebound (ListRebinds), array statements and small parameters
broadcast up in NumPy programs (ArrayStmts, SmallRebinds)."""

from __future__ import annotations

import dataclasses

from .config import LOOP_CAP, NMAX
from .scalar_expr import Exprs, lit
from .scalar_lists import ListStmts
from .scope import Env, Idx


class Stmts:
    """Statements of the program being written, with the expressions of ``exprs``; ``parts``: the
    classes of the parts that may write a statement in a plain one's place, asked in this order (each
    made with this object, its ``stmt`` True where it wrote one)."""

    def __init__(self, exprs: Exprs, parts=()):
        self.exprs, self.draft = exprs, exprs.draft
        self.rng = self.draft.rng
        self.lists = ListStmts(self)
        self.parts = [part(self) for part in parts]

    # ---------------------------------------------------------------- statements

    def assign_float(self, env: Env, name: str, src: str, b: float) -> None:
        if name in env.caps:
            src, b = self.exprs.fit(src, b, env.caps[name])
        self.draft.emit(f"{name} = {src}")
        env.floats[name] = b

    def stmt(self, env: Env, depth: int, budget: list) -> None:
        """One statement (maybe compound) at the current indentation."""
        if any(part.stmt(env, depth, budget) for part in self.parts):
            return
        rng = self.rng
        budget[0] -= 1
        r = rng.random()
        compound_ok = depth < 3 and budget[0] > 0
        if r < 0.1 and any(h.list_param and h.outputs == 1 for h in self.draft.helpers) and self.call_then_write(env):
            return
        if r < 0.22 or not env.floats:
            name = self.draft.fresh("t")
            src, b = self.exprs.expr(env, rng.randint(1, 3))
            self.draft.emit(f"{name} = {src}")
            env.floats[name] = b
            return
        if r < 0.32 and env.assignable():
            name = rng.choice(env.assignable())
            src, b = self.exprs.expr(env, rng.randint(1, 3))
            self.assign_float(env, name, src, b)
            return
        if r < 0.42 and env.assignable():
            self.aug(env)
            return
        if r < 0.52 and compound_ok:
            self.if_stmt(env, depth, budget)
            return
        if r < 0.64 and compound_ok:
            self.for_stmt(env, depth, budget)
            return
        if r < 0.69 and compound_ok:
            self.while_stmt(env, depth, budget)
            return
        if r < 0.79:
            self.lists.list_stmt(env)
            return
        if r < 0.85 and env.in_loop:
            self.jump(env)
            return
        if r < 0.88:
            self.draft.emit(f"if {self.exprs.cond(env)}:")
            self.draft.indent += 1
            self.ret(env)
            self.draft.indent -= 1
            return
        if r < 0.93 and any(h.outputs == 2 for h in self.draft.helpers):
            h = rng.choice([h for h in self.draft.helpers if h.outputs == 2])
            args = self.exprs.helper_args(env, h)
            if args is not None:
                a, b = self.draft.fresh("t"), self.draft.fresh("t")
                if not env.in_loop and env.assignable() and self.draft.chance(0.3):
                    a = rng.choice(env.assignable())
                self.draft.emit(f"{a}, {b} = {h.name}({args})")
                if a in env.caps:  # keep the loop cap: squash after the call
                    self.draft.emit(f"{a} = {lit(env.caps[a])} * math.tanh({a})")
                    env.floats[a] = env.caps[a]
                else:
                    env.floats[a] = h.bound
                env.floats[b] = h.bound
                return
        if r < 0.96 and len(env.assignable()) >= 2 and not env.in_loop:
            a, b = rng.sample(env.assignable(), 2)
            self.draft.emit(f"{a}, {b} = {b}, {a}")
            env.floats[a], env.floats[b] = env.floats[b], env.floats[a]
            return
        name = self.draft.fresh("t")
        src, b = self.exprs.expr(env, 2)
        self.draft.emit(f"{name} = {src}")
        env.floats[name] = b

    def call_then_write(self, env: Env) -> bool:
        """``t = h(.., ws, ..)`` then a write into the list passed, whose old value the caller never
        reads again: a helper's reverse sweep must not read the changed element (a wrong gradient once)."""
        hs = [h for h in self.draft.helpers if h.outputs == 1 and h.list_param]
        if not hs:
            return False
        h = self.rng.choice(hs)
        lists = [n for n in env.readable_lists() if env.lists[n].minlen >= 1]
        if not lists:
            return False
        lst = self.rng.choice(lists)
        if lst.startswith("xs") or self.draft.chance(0.3):  # a copy the caller may write into
            copy = self.draft.fresh("zs")
            self.draft.emit(f"{copy} = list({lst})")
            env.lists[copy] = dataclasses.replace(env.lists[lst])
            lst = copy
        self.draft.passed_list = lst
        args = self.exprs.helper_args(env, h)
        self.draft.passed_list, lst = None, self.draft.passed_list
        if args is None:
            return False
        name = self.draft.fresh("t")
        self.draft.emit(f"{name} = {h.name}({args})")
        env.floats[name] = h.bound
        if lst is None or lst.startswith("xs") or lst in env.appending:
            return True  # a parameter's list is never written
        ix = self.exprs.index_for(env, lst)
        if ix is not None:
            src, b = self.exprs.fit(*self.exprs.expr(env, 2), max(env.lists[lst].bound, LOOP_CAP))
            self.draft.emit(f"{lst}[{ix}] = {src}")
            env.lists[lst].bound = max(env.lists[lst].bound, b)
        return True

    def aug(self, env: Env) -> None:
        rng = self.rng
        name = rng.choice(env.assignable())
        src, b = self.exprs.expr(env, rng.randint(1, 2))
        vb = env.floats[name]
        op = rng.choice(["+=", "-=", "*=", "/=", "**=", "+="])
        if op in ("+=", "-="):
            self.draft.emit(f"{name} {op} {src}")
            nb = vb + b
        elif op == "*=":
            s2, _ = self.exprs.fit(src, b, 1.0)
            self.draft.emit(f"{name} *= 0.5 + 0.4 * {s2}" if self.draft.chance(0.7) else f"{name} *= {src}")
            nb = vb * 0.9 if "0.4 *" in self.draft.lines[-1] else vb * b
        elif op == "/=":
            self.draft.emit(f"{name} /= 1.5 + math.cos({src})")
            nb = vb * 2.0
        else:
            if vb > 3.0:
                self.draft.emit(f"{name} = math.tanh({name})")
                vb = 1.0
            self.draft.emit(f"{name} **= 2")
            nb = vb * vb
        env.floats[name] = nb
        if name in env.caps and nb > env.caps[name]:
            self.assign_float(env, name, *self.exprs.fit(name, nb, env.caps[name]))
        elif nb > 50:
            self.assign_float(env, name, *self.exprs.squash(name, nb))

    def block(self, env: Env, depth: int, budget: list, n: int | None = None) -> None:
        self.draft.indent += 1
        n = n if n is not None else self.rng.randint(1, 3)
        start = len(self.draft.lines)
        for _ in range(n):
            self.stmt(env, depth, budget)
        if len(self.draft.lines) == start:
            self.draft.emit("pass")
        self.draft.indent -= 1

    def if_stmt(self, env: Env, depth: int, budget: list) -> None:
        rng = self.rng
        branches = []
        self.draft.emit(f"if {self.exprs.cond(env)}:")
        e = env.copy()
        self.block(e, depth + 1, budget)
        branches.append(e)
        for _ in range(rng.choice([0, 0, 1, 2])):
            self.draft.emit(f"elif {self.exprs.cond(env)}:")
            e = env.copy()
            self.block(e, depth + 1, budget)
            branches.append(e)
        exhaustive = self.draft.chance(0.6)
        if exhaustive:
            self.draft.emit("else:")
            e = env.copy()
            self.block(e, depth + 1, budget)
            branches.append(e)
        env.merge(branches, exhaustive)

    def make_counter(self, env: Env) -> str | None:
        if self.draft.chance(0.4):
            k = self.draft.fresh("k")
            self.draft.emit(f"{k} = 0")
            env.ints[k] = 0
            return k
        return None

    def for_stmt(self, env: Env, depth: int, budget: list) -> None:
        rng = self.rng
        k = self.make_counter(env)
        acc = None  # a helper called in the loop (under Numba, written in place: lower.inline_calls)
        if self.draft.helpers and self.draft.chance(0.5):
            acc = self.draft.fresh("c")
            self.draft.emit(f"{acc} = 0.0")
            env.floats[acc] = 1.0
        body = env.loop_scope()
        i = self.draft.fresh("i")
        r = rng.random()
        int_params = [n for n in env.ints if n.startswith("n")]
        lists = env.readable_lists()
        if r < 0.35:
            K = rng.randint(1, 4)
            self.draft.emit(f"for {i} in range({K}):")
            body.idx[i] = Idx(K, None)
        elif r < 0.5 and int_params:
            n = rng.choice(int_params)
            if self.draft.chance(0.5):
                self.draft.emit(f"for {i} in range({n}):")
                body.idx[i] = Idx(NMAX, None)
            else:
                self.draft.emit(f"for {i} in range(1, {n} + 1):")
                body.idx[i] = Idx(NMAX + 1, None)
        elif r < 0.7 and lists:
            lst = rng.choice(lists)
            self.draft.emit(f"for {i} in range(len({lst})):")
            body.idx[i] = Idx(10**6, lst)
        elif r < 0.8 and lists:
            lst = rng.choice(lists)
            v = self.draft.fresh("v")
            form = rng.choice(["plain", "enum", "rev"])
            if form == "enum":
                self.draft.emit(f"for {i}, {v} in enumerate({lst}):")
                body.idx[i] = Idx(10**6, lst)
            elif form == "rev":
                self.draft.emit(f"for {v} in reversed({lst}):")
            else:
                self.draft.emit(f"for {v} in {lst}:")
            body.floats[v] = env.lists[lst].bound
            body.readonly.add(v)
        elif r < 0.85 and len(lists) >= 2:
            a, b = rng.sample(lists, 2)
            v, w = self.draft.fresh("v"), self.draft.fresh("v")
            self.draft.emit(f"for {v}, {w} in zip({a}, {b}):")
            body.floats[v] = env.lists[a].bound
            body.floats[w] = env.lists[b].bound
            body.readonly |= {v, w}
        else:
            K = rng.randint(2, 5)
            self.draft.emit(
                f"for {i} in range({K}, 0, -1):" if self.draft.chance(0.5) else f"for {i} in range(0, {K}, 2):"
            )
            body.idx[i] = Idx(K + 1, None)
        self.draft.indent += 1
        if k:
            self.draft.emit(f"{k} += 1")
        if acc:
            call, _ = self.exprs.helper_call_expr(body)
            self.draft.emit(f"{acc} = 0.5 * math.tanh({acc}) + 0.5 * math.tanh({call})")
            body.floats[acc] = 1.0
        self.draft.indent -= 1
        self.block(body, depth + 1, budget, rng.randint(1, 4))
        env.after_loop(body)
        if k:
            env.ints[k] = 20

    def while_stmt(self, env: Env, depth: int, budget: list) -> None:
        rng = self.rng
        j = self.draft.fresh("j")
        K = rng.randint(1, 5)
        self.draft.emit(f"{j} = 0")
        body = env.loop_scope()
        body.ints[j] = K
        if self.draft.chance(0.5):
            self.draft.emit(f"while {j} < {K} and ({self.exprs.cond(body)}):")
        else:
            self.draft.emit(f"while {j} < {K}:")
        self.draft.indent += 1
        self.draft.emit(f"{j} += 1")
        self.draft.indent -= 1
        self.block(body, depth + 1, budget, rng.randint(1, 3))
        env.after_loop(body)
        env.ints[j] = K

    def jump(self, env: Env) -> None:
        self.draft.emit(f"if {self.exprs.cond(env)}:")
        self.draft.indent += 1
        if self.draft.chance(0.3) and env.assignable():
            self.aug(env)
        self.draft.emit(self.rng.choice(["break", "continue"]))
        self.draft.indent -= 1

    # ---------------------------------------------------------------- functions

    def function(self, env: Env, nstmts: int, outputs) -> float:
        """Emit a body into the draft's lines; returns the bound of its outputs. outputs: a number of
        float outputs, or a list of kinds (None: a float; a shape: an array)."""
        draft = self.draft
        draft.out_kinds = outputs if isinstance(outputs, list) else [None] * outputs
        draft.out_bound = 0.0
        draft.indent = 1
        budget = [nstmts]
        while budget[0] > 0:
            self.stmt(env, 0, budget)
        self.ret(env)
        return draft.out_bound

    def ret_value(self, env: Env) -> tuple[str, float]:
        parts = []
        for kind in self.draft.out_kinds:
            if kind is None:
                parts.append(self.exprs.live_mix(env, *self.exprs.expr(env, self.rng.randint(1, 3))))
            else:
                parts.append(self.exprs.arrays.output(env, kind))
        src = ", ".join(p for p, _ in parts)
        if len(parts) > 1 and self.draft.chance(0.5):
            src = f"({src})"
        return src, max(b for _, b in parts)

    def ret(self, env: Env) -> None:
        src, b = self.ret_value(env)
        self.draft.emit(f"return {src}")
        self.draft.out_bound = max(self.draft.out_bound, b)
