"""List statements in scalar programs: ListStmts builds, writes into, aliases and reduces lists (Exprs
reads them)."""

from __future__ import annotations

import dataclasses

from .config import LOOP_CAP, NMAX, SQUASH_AT
from .scalar_expr import draw_const, lit
from .scope import Env, Idx, ListInfo


class ListStmts:
    """The list statements of ``stmts`` (a Stmts, which holds this part)."""

    def __init__(self, stmts):
        self.stmts, self.exprs, self.draft = stmts, stmts.exprs, stmts.draft
        self.rng = self.draft.rng

    def list_stmt(self, env: Env) -> None:
        rng = self.rng
        r = rng.random()
        writable_lists = [n for n in env.lists if not n.startswith("xs") and n not in env.appending]
        if r < 0.35 or not env.lists:
            self.build_list(env)
        elif r < 0.6 and writable_lists and self.grows(env, writable_lists):
            pass
        elif r < 0.6 and writable_lists:
            lst = rng.choice(writable_lists)
            ix = self.exprs.index_for(env, lst)
            if ix is None:
                return self.build_list(env)
            src, b = self.exprs.expr(env, 2)
            info = env.lists[lst]
            op = rng.choice(["=", "=", "+=", "*="])
            if op == "*=":
                src, b = self.exprs.fit(src, b, 1.0)
                self.draft.emit(f"{lst}[{ix}] *= {src}")
            else:
                cap = max(info.bound, LOOP_CAP) if env.in_loop else max(info.bound, b)
                if op == "+=":
                    src, b = self.exprs.fit(src, b, 1.0)
                    nb = info.bound + b
                    self.draft.emit(f"{lst}[{ix}] += {src}")
                    if env.in_loop or nb > 50:
                        self.draft.emit(f"{lst}[{ix}] = {lit(cap)} * math.tanh({lst}[{ix}])")
                        nb = cap
                    info.bound = max(info.bound, nb)
                else:
                    src, b = self.exprs.fit(src, b, cap)
                    self.draft.emit(f"{lst}[{ix}] = {src}")
                    info.bound = max(info.bound, b)
        elif r < 0.7 and env.lists and not env.in_loop:
            lst = rng.choice(sorted(env.lists))
            alias = self.draft.fresh("zs")
            self.draft.emit(f"{alias} = {lst}" if self.draft.chance(0.5) else f"{alias} = list({lst})")
            if self.draft.lines[-1].endswith(f"= {lst}"):
                if lst.startswith("xs"):
                    return  # an alias of a parameter: never written
                env.lists[alias] = env.lists[lst]
            else:
                env.lists[alias] = dataclasses.replace(env.lists[lst])
        else:
            name = self.draft.fresh("t")
            lists = [n for n in env.readable_lists() if env.lists[n].minlen >= 1]
            if not lists:
                return self.build_list(env)
            lst = rng.choice(lists)
            fn = rng.choice(["sum", "max", "min"])
            b = env.lists[lst].bound * (12 if fn == "sum" else 1)
            loop = self.reduction_loop(env, name, lst, lists)
            idiom = None if loop is not None else self.idiom(env, lst, fn)
            if loop is None:
                self.draft.emit(f"{name} = {idiom[0] if idiom else f'{fn}({lst})'}")
            b = loop if loop is not None else idiom[1] if idiom else b
            env.floats[name] = b
            if b > SQUASH_AT:
                self.stmts.assign_float(env, name, *self.exprs.squash(name, b))

    # ---- idioms: drawn from a generator of their own (Draft.idioms), so a seed's other choices stay as they were

    def idiom(self, env: Env, lst: str, fn: str) -> tuple[str, float] | None:
        """Sometimes another spelling of a reduction of ``lst`` (a generator expression, a key, sorted,
        a start value, math.fsum, zip, reversed): ``(expression, bound)``, or None for the plain one."""
        rng = self.draft.idioms()
        if rng.random() < 0.6:
            return None
        info, c = env.lists[lst], lit(draw_const(rng, -0.9, 0.9))
        big = info.bound * (NMAX + 2) if info.minlen < 8 else 50.0
        others = [n for n in env.readable_lists() if n != lst and env.lists[n].minlen >= 1]
        kind = rng.choice(["genexp", "key", "sorted", "start", "fsum", "zip", "reversed", "minmax_gen"])
        if kind == "genexp":
            return f"sum(math.sin(v) * {c} for v in {lst})", float(NMAX + 2)
        if kind == "key":
            return f"{fn if fn != 'sum' else 'max'}({lst}, key=lambda v: (v - {c}) ** 2)", info.bound
        if kind == "sorted":
            return (
                f"sorted({lst}{', reverse=True' if rng.random() < 0.5 else ''})[{rng.choice(['0', '-1'])}]",
                info.bound,
            )
        if kind == "start":
            return f"sum({lst}, {c})", big + 1.0
        if kind == "fsum":
            return f"math.fsum({lst})", big
        if kind == "zip" and others:
            other = rng.choice(others)
            return f"sum(a * b for a, b in zip({lst}, {other}))", info.bound * env.lists[other].bound * (NMAX + 2)
        if kind == "reversed":
            return f"list(reversed({lst}))[0]", info.bound
        return f"{'max' if fn == 'sum' else fn}(v * {c} for v in {lst})", info.bound

    def reduction_loop(self, env: Env, name: str, lst: str, lists: list) -> float | None:
        """Sometimes a sum written as loops over the elements, once or over the pairs of two lists
        (Table 1's ``sum_mat_vec`` on rows): ``name = 0.0``, then ``name = name + ...`` in the loop.
        Its adjoint loops only add into the lists' shadows, so the Numba target runs them forward.
        The bound of ``name``, or None (then nothing is written)."""
        rng = self.draft.idioms()
        if env.in_loop or rng.random() < 0.75:
            return None
        other = rng.choice(lists)
        i, j = self.draft.fresh("i"), self.draft.fresh("j")
        c = lit(draw_const(rng, -0.9, 0.9))
        self.draft.emit(f"{name} = 0.0")
        self.draft.emit(f"for {i} in range(len({lst})):")
        if rng.random() < 0.5:
            self.draft.emit(f"    {name} = {name} + math.sin({lst}[{i}]) * {c}")
            return float(NMAX + 2) if env.lists[lst].minlen < 8 else 50.0
        self.draft.emit(f"    for {j} in range(len({other})):")
        self.draft.emit(f"        {name} = {name} + math.tanh({lst}[{i}]) * math.tanh({other}[{j}] * {c})")
        return float((NMAX + 2) ** 2)

    def grows(self, env: Env, writable: list) -> bool:
        """Sometimes ``xs.extend([...])`` or ``xs.insert(0, ...)`` on a list the function made (it only
        grows: indices valid before stay valid); True if a line was written."""
        rng = self.draft.idioms()
        if not writable or env.in_loop or rng.random() < 0.8:
            return False
        lst = rng.choice(sorted(writable))
        src, b = self.exprs.expr(env, 1)
        src, b = self.exprs.fit(src, b, max(env.lists[lst].bound, 1.0))
        self.draft.emit(f"{lst}.extend([{src}])" if rng.random() < 0.5 else f"{lst}.insert(0, {src})")
        info = env.lists[lst]
        info.minlen, info.bound = info.minlen + 1, max(info.bound, b)
        return True

    def joined(self, env: Env, ys: str, lists: list) -> bool:
        """Sometimes a list made by joining lists the function holds, or repeating one (``a + b``, ``a[:1] + [e]
        + b``, ``a * 2``): their adjoints add parts of the join's into each list's (reverse over reverse of
        those was lost once).  Drawn from the idioms' generator (a seed's other choices stay as they were)."""
        rng = self.draft.idioms()
        if rng.random() >= 0.3:
            return False
        a, b = rng.choice(lists), rng.choice(lists)
        first, second = env.lists[a], env.lists[b]
        kind = rng.choice(["join", "parts", "repeat"])
        if kind == "join":
            self.draft.emit(f"{ys} = {a} + {b}")
            env.lists[ys] = ListInfo(first.minlen + second.minlen, max(first.bound, second.bound))
        elif kind == "parts":
            src, bound = self.exprs.expr(env, 1)
            self.draft.emit(f"{ys} = {a}[:1] + [{src}] + {b}[1:]")
            env.lists[ys] = ListInfo(
                min(first.minlen, 1) + 1 + max(second.minlen - 1, 0), max(first.bound, second.bound, bound)
            )
        else:
            times = rng.randint(2, 3)
            self.draft.emit(f"{ys} = {a} * {times}")
            env.lists[ys] = ListInfo(first.minlen * times, first.bound)
        return True

    def build_list(self, env: Env) -> None:
        rng = self.rng
        ys = self.draft.fresh("ys")
        r = rng.random()
        lists = env.readable_lists()
        if lists and self.joined(env, ys, lists):
            return
        int_params = [n for n in env.ints if n.startswith("n")]
        if r < 0.25:
            K = rng.randint(1, 4)
            if int_params and self.draft.chance(0.3):
                n = rng.choice(int_params)
                self.draft.emit(f"{ys} = []")
                self.draft.emit(f"for {(i := self.draft.fresh('i'))} in range({n} + 1):")
                K = 1
                hi = NMAX + 1
            else:
                self.draft.emit(f"{ys} = []")
                i = self.draft.fresh("i")
                self.draft.emit(f"for {i} in range({K}):")
                hi = K
            e = env.copy()
            e.in_loop = True
            e.idx[i] = Idx(hi, None)
            self.draft.indent += 1
            src, b = self.exprs.expr(e, 2)
            self.draft.emit(f"{ys}.append({src})")
            self.draft.indent -= 1
            env.lists[ys] = ListInfo(K, b)
        elif r < 0.45 and lists:
            lst = rng.choice(lists)
            v = self.draft.fresh("v")
            e = env.copy()
            e.floats[v] = env.lists[lst].bound
            e.readonly.add(v)
            src, b = self.exprs.expr(e, 2)
            if self.draft.chance(0.25):
                self.draft.emit(f"{ys} = [{src} for {v} in {lst} if {v} > {lit(draw_const(rng, -0.5, 0.5))}]")
                env.lists[ys] = ListInfo(0, b)
            else:
                self.draft.emit(f"{ys} = [{src} for {v} in {lst}]")
                env.lists[ys] = ListInfo(env.lists[lst].minlen, b)
        elif r < 0.6:
            K = rng.randint(1, 4)
            i = self.draft.fresh("i")
            e = env.copy()
            e.idx[i] = Idx(K, None)
            src, b = self.exprs.expr(e, 2)
            self.draft.emit(f"{ys} = [{src} for {i} in range({K})]")
            env.lists[ys] = ListInfo(K, b)
        elif r < 0.75:
            K = rng.randint(1, 3)
            parts = [self.exprs.expr(env, 2) for _ in range(K)]
            self.draft.emit(f"{ys} = [{', '.join(p for p, _ in parts)}]")
            env.lists[ys] = ListInfo(K, max(b for _, b in parts))
        elif r < 0.85:
            K = rng.randint(1, 4)
            self.draft.emit(f"{ys} = [0.0] * {K}")
            env.lists[ys] = ListInfo(K, 0.0)
            i = self.draft.fresh("i")
            self.draft.emit(f"for {i} in range(len({ys})):")
            e = env.loop_scope()
            e.idx[i] = Idx(K, ys)
            self.draft.indent += 1
            src, b = self.exprs.expr(e, 2)
            src, b = self.exprs.fit(src, b, LOOP_CAP)
            self.draft.emit(f"{ys}[{i}] = {src}")
            self.draft.indent -= 1
            env.lists[ys].bound = b
        elif lists:
            lst = rng.choice(lists)
            self.draft.emit(f"{ys} = list({lst})")
            env.lists[ys] = dataclasses.replace(env.lists[lst])
        else:
            K = rng.randint(1, 3)
            src, b = self.exprs.expr(env, 1)
            self.draft.emit(f"{ys} = [{src}] * {K}")
            env.lists[ys] = ListInfo(K, b)
