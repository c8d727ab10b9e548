"""Scalar statements: StmtGen writes assignments, branches, loops and jumps, carrying bounds through them."""

from __future__ import annotations

import dataclasses

from .config import LOOP_CAP, NMAX
from .scalar_expr import lit
from .scalar_lists import ListGen
from .scope import Env, Idx


class StmtGen(ListGen):
    """The layer of statements: one (maybe compound) at a time, and the scopes of branches and loops."""

    outputs_known = True  # stmt writes early returns only if this is true

    # ---------------------------------------------------------------- statements

    def assign_float(self, env: Env, name: str, src: str, b: float) -> None:
        if name in env.caps:
            src, b = self.fit(src, b, env.caps[name])
        self.emit(f"{name} = {src}")
        env.floats[name] = b

    def writable(self, env: Env) -> list[str]:
        return sorted(n for n in env.floats if n not in env.readonly)

    def stmt(self, env: Env, depth: int, budget: list) -> None:
        """One statement (maybe compound) at the current indentation."""
        rng = self.rng
        budget[0] -= 1
        r = rng.random()
        compound_ok = depth < 3 and budget[0] > 0
        if r < 0.1 and any(h.list_param and h.outputs == 1 for h in self.helpers) and self.call_then_write(env):
            return
        if r < 0.22 or not env.floats:
            name = self.fresh("t")
            src, b = self.expr(env, rng.randint(1, 3))
            self.emit(f"{name} = {src}")
            env.floats[name] = b
            return
        if r < 0.32 and self.writable(env):
            name = rng.choice(self.writable(env))
            src, b = self.expr(env, rng.randint(1, 3))
            self.assign_float(env, name, src, b)
            return
        if r < 0.42 and self.writable(env):
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
            self.list_stmt(env, depth, budget)
            return
        if r < 0.85 and env.in_loop:
            self.jump(env)
            return
        if r < 0.88 and self.outputs_known:
            self.emit(f"if {self.cond(env)}:")
            self.indent += 1
            self.ret(env)
            self.indent -= 1
            return
        if r < 0.93 and any(h.outputs == 2 for h in self.helpers):
            h = rng.choice([h for h in self.helpers if h.outputs == 2])
            args = self.helper_args(env, h)
            if args is not None:
                a, b = self.fresh("t"), self.fresh("t")
                if not env.in_loop and self.writable(env) and self.chance(0.3):
                    a = rng.choice(self.writable(env))
                self.emit(f"{a}, {b} = {h.name}({args})")
                if a in env.caps:  # keep the loop cap: squash after the call
                    self.emit(f"{a} = {lit(env.caps[a])} * math.tanh({a})")
                    env.floats[a] = env.caps[a]
                else:
                    env.floats[a] = h.bound
                env.floats[b] = h.bound
                return
        if r < 0.96 and len(self.writable(env)) >= 2 and not env.in_loop:
            a, b = rng.sample(self.writable(env), 2)
            self.emit(f"{a}, {b} = {b}, {a}")
            env.floats[a], env.floats[b] = env.floats[b], env.floats[a]
            return
        name = self.fresh("t")
        src, b = self.expr(env, 2)
        self.emit(f"{name} = {src}")
        env.floats[name] = b

    def call_then_write(self, env: Env) -> bool:
        """``t = h(.., ws, ..)`` then a write into the list passed, whose old value the caller never
        reads again: a helper's reverse sweep must not read the changed element (a wrong gradient once)."""
        hs = [h for h in self.helpers if h.outputs == 1 and h.list_param]
        if not hs:
            return False
        h = self.rng.choice(hs)
        lists = [n for n in self.readable_lists(env) if env.lists[n].minlen >= 1]
        if not lists:
            return False
        lst = self.rng.choice(lists)
        if lst.startswith("xs") or self.chance(0.3):  # a copy the caller may write into
            copy = self.fresh("zs")
            self.emit(f"{copy} = list({lst})")
            env.lists[copy] = dataclasses.replace(env.lists[lst])
            lst = copy
        self.passed_list = lst
        args = self.helper_args(env, h)
        self.passed_list, lst = None, self.passed_list
        if args is None:
            return False
        name = self.fresh("t")
        self.emit(f"{name} = {h.name}({args})")
        env.floats[name] = h.bound
        if lst is None or lst.startswith("xs") or lst in env.appending:
            return True  # a parameter's list is never written
        ix = self.index_for(env, lst)
        if ix is not None:
            src, b = self.fit(*self.expr(env, 2), max(env.lists[lst].bound, LOOP_CAP))
            self.emit(f"{lst}[{ix}] = {src}")
            env.lists[lst].bound = max(env.lists[lst].bound, b)
        return True

    def aug(self, env: Env) -> None:
        rng = self.rng
        name = rng.choice(self.writable(env))
        src, b = self.expr(env, rng.randint(1, 2))
        vb = env.floats[name]
        op = rng.choice(["+=", "-=", "*=", "/=", "**=", "+="])
        if op in ("+=", "-="):
            self.emit(f"{name} {op} {src}")
            nb = vb + b
        elif op == "*=":
            s2, _ = self.fit(src, b, 1.0)
            self.emit(f"{name} *= 0.5 + 0.4 * {s2}" if self.chance(0.7) else f"{name} *= {src}")
            nb = vb * 0.9 if "0.4 *" in self.lines[-1] else vb * b
        elif op == "/=":
            self.emit(f"{name} /= 1.5 + math.cos({src})")
            nb = vb * 2.0
        else:
            if vb > 3.0:
                self.emit(f"{name} = math.tanh({name})")
                vb = 1.0
            self.emit(f"{name} **= 2")
            nb = vb * vb
        env.floats[name] = nb
        if name in env.caps and nb > env.caps[name]:
            self.assign_float(env, name, *self.fit(name, nb, env.caps[name]))
        elif nb > 50:
            self.assign_float(env, name, *self.squash(name, nb))

    def block(self, env: Env, depth: int, budget: list, n: int | None = None) -> None:
        self.indent += 1
        n = n if n is not None else self.rng.randint(1, 3)
        start = len(self.lines)
        for _ in range(n):
            self.stmt(env, depth, budget)
        if len(self.lines) == start:
            self.emit("pass")
        self.indent -= 1

    def merge(self, env: Env, branches: list[Env], exhaustive: bool) -> None:
        """After a branch: variables in scope before keep the largest bound."""
        for name in list(env.floats):
            bs = [br.floats.get(name, env.floats[name]) for br in branches]
            if not exhaustive:
                bs.append(env.floats[name])
            env.floats[name] = max(bs)

    def if_stmt(self, env: Env, depth: int, budget: list) -> None:
        rng = self.rng
        branches = []
        self.emit(f"if {self.cond(env)}:")
        e = env.copy()
        self.block(e, depth + 1, budget)
        branches.append(e)
        for _ in range(rng.choice([0, 0, 1, 2])):
            self.emit(f"elif {self.cond(env)}:")
            e = env.copy()
            self.block(e, depth + 1, budget)
            branches.append(e)
        exhaustive = self.chance(0.6)
        if exhaustive:
            self.emit("else:")
            e = env.copy()
            self.block(e, depth + 1, budget)
            branches.append(e)
        self.merge(env, branches, exhaustive)

    def loop_env(self, env: Env) -> Env:
        e = env.copy()
        e.in_loop = True
        e.loop_depth += 1
        for name, b in env.floats.items():
            if name not in e.readonly:
                cap = e.caps.get(name, max(b, LOOP_CAP))
                e.caps[name] = cap
                e.floats[name] = cap
        for name in e.ints:
            e.ints[name] = 20
        return e

    def after_loop(self, env: Env, body: Env) -> None:
        for name in env.floats:
            env.floats[name] = max(env.floats[name], body.floats.get(name, 0.0))
        for name in env.ints:
            env.ints[name] = max(env.ints[name], body.ints.get(name, 0))

    def make_counter(self, env: Env) -> str | None:
        if self.chance(0.4):
            k = self.fresh("k")
            self.emit(f"{k} = 0")
            env.ints[k] = 0
            return k
        return None

    def for_stmt(self, env: Env, depth: int, budget: list) -> None:
        rng = self.rng
        k = self.make_counter(env)
        body = self.loop_env(env)
        i = self.fresh("i")
        r = rng.random()
        int_params = [n for n in env.ints if n.startswith("n")]
        lists = self.readable_lists(env)
        if r < 0.35:
            K = rng.randint(1, 4)
            self.emit(f"for {i} in range({K}):")
            body.idx[i] = Idx(K, None)
        elif r < 0.5 and int_params:
            n = rng.choice(int_params)
            if self.chance(0.5):
                self.emit(f"for {i} in range({n}):")
                body.idx[i] = Idx(NMAX, None)
            else:
                self.emit(f"for {i} in range(1, {n} + 1):")
                body.idx[i] = Idx(NMAX + 1, None)
        elif r < 0.7 and lists:
            lst = rng.choice(lists)
            self.emit(f"for {i} in range(len({lst})):")
            body.idx[i] = Idx(10**6, lst)
        elif r < 0.8 and lists:
            lst = rng.choice(lists)
            v = self.fresh("v")
            form = rng.choice(["plain", "enum", "rev"])
            if form == "enum":
                self.emit(f"for {i}, {v} in enumerate({lst}):")
                body.idx[i] = Idx(10**6, lst)
            elif form == "rev":
                self.emit(f"for {v} in reversed({lst}):")
            else:
                self.emit(f"for {v} in {lst}:")
            body.floats[v] = env.lists[lst].bound
            body.readonly.add(v)
        elif r < 0.85 and len(lists) >= 2:
            a, b = rng.sample(lists, 2)
            v, w = self.fresh("v"), self.fresh("v")
            self.emit(f"for {v}, {w} in zip({a}, {b}):")
            body.floats[v] = env.lists[a].bound
            body.floats[w] = env.lists[b].bound
            body.readonly |= {v, w}
        else:
            K = rng.randint(2, 5)
            self.emit(f"for {i} in range({K}, 0, -1):" if self.chance(0.5) else f"for {i} in range(0, {K}, 2):")
            body.idx[i] = Idx(K + 1, None)
        self.indent += 1
        if k:
            self.emit(f"{k} += 1")
        self.indent -= 1
        self.block(body, depth + 1, budget, rng.randint(1, 4))
        self.after_loop(env, body)
        if k:
            env.ints[k] = 20

    def while_stmt(self, env: Env, depth: int, budget: list) -> None:
        rng = self.rng
        j = self.fresh("j")
        K = rng.randint(1, 5)
        self.emit(f"{j} = 0")
        body = self.loop_env(env)
        body.ints[j] = K
        if self.chance(0.5):
            self.emit(f"while {j} < {K} and ({self.cond(body)}):")
        else:
            self.emit(f"while {j} < {K}:")
        self.indent += 1
        self.emit(f"{j} += 1")
        self.indent -= 1
        self.block(body, depth + 1, budget, rng.randint(1, 3))
        self.after_loop(env, body)
        env.ints[j] = K

    def jump(self, env: Env) -> None:
        self.emit(f"if {self.cond(env)}:")
        self.indent += 1
        if self.chance(0.3) and self.writable(env):
            self.aug(env)
        self.emit(self.rng.choice(["break", "continue"]))
        self.indent -= 1
