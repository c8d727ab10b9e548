"""Lists rebound in loops and branches: ListRebinds assigns a list variable (a parameter first) a new list.

``xs = xs + [e]``, ``xs = [c * v + e for v in xs]``, ``xs = xs[1:] + [e]``, ``xs = list(ys)``, ... in a
loop or a branch: the variable then ends with a list of another length or other elements than the
argument, whose cotangent must still look like the argument (adcompiler once took its length from the
last value). A list never gets shorter than the length its scope knows, so later reads stay in range.
"""

from __future__ import annotations

from .config import LOOP_CAP
from .scalar_expr import draw_const, lit
from .scope import Env, Idx

LIST_PARAMS = ("xs", "ws")  # the entry's list parameter, a helper's


class ListRebinds:
    """The part of ``stmts`` (a Stmts) that rebinds a list variable to a new list, maybe in a loop or an if of
    its own."""

    def __init__(self, stmts):
        self.stmts, self.exprs, self.draft = stmts, stmts.exprs, stmts.draft
        self.rng = self.draft.rng

    def stmt(self, env: Env, depth: int, budget: list) -> bool:
        """Sometimes (Config.p_rebind, drawn from Draft.rebinds) a list rebound in this statement's place."""
        lists = env.readable_lists()
        if lists and self.draft.rebinds().random() < self.draft.config.p_rebind:
            budget[0] -= 1
            self.rebind_list(env, depth, budget, lists)
            return True
        return False

    def rebind_list(self, env: Env, depth: int, budget: list, lists: list) -> None:
        """A list rebound: in place if already in a loop or a branch, else in a loop or an if around it."""
        rng = self.rng
        params = [n for n in lists if n in LIST_PARAMS]
        lst = rng.choice(params) if params and self.draft.chance(0.7) else rng.choice(lists)
        compound_ok = depth < 3 and budget[0] > 0
        if not compound_ok or (depth >= 1 and self.draft.chance(0.5)):
            self.list_line(env, lst)
        elif self.draft.chance(0.6):
            k = rng.randint(1, 3)
            i = self.draft.fresh("i")
            self.draft.emit(f"for {i} in range({k}):")
            body = env.loop_scope()
            body.idx[i] = Idx(k, None)
            self.draft.indent += 1
            self.list_line(body, lst)
            self.draft.indent -= 1
            if self.draft.chance(0.5):
                self.stmts.block(body, depth + 1, budget, rng.randint(1, 2))
            env.after_loop(body)
        else:
            self.draft.emit(f"if {self.exprs.cond(env)}:")
            e = env.copy()
            self.draft.indent += 1
            self.list_line(e, lst)
            self.draft.indent -= 1
            if self.draft.chance(0.4):
                self.stmts.block(e, depth + 1, budget, 1)
            branches = [e]
            if self.draft.chance(0.5):
                self.draft.emit("else:")
                e = env.copy()
                self.stmts.block(e, depth + 1, budget, 1)
                branches.append(e)
            env.merge(branches, len(branches) == 2)

    def list_line(self, env: Env, lst: str) -> None:
        """``lst = <a new list>``, at least as long as the scope knows lst to be; no shorter than lst
        itself while a loop index runs over range(len(lst))."""
        rng = self.rng
        info = env.lists[lst]
        tied = any(ix.tied == lst for ix in env.idx.values())
        cap = max(info.bound, LOOP_CAP) if env.in_loop else max(info.bound, 1.0)
        others = [n for n in env.readable_lists() if n != lst]
        longer = [n for n in others if env.lists[n].minlen >= info.minlen]
        forms = ["append", "prepend", "map", "map"] + (["shift"] if info.minlen >= 1 else [])
        forms += (["concat"] if others else []) + (["copy"] if longer and not tied else [])
        forms += ["cut"] if info.minlen >= 1 and not tied else []
        form = rng.choice(forms)
        src, b = self.exprs.fit(*self.exprs.expr(env, rng.randint(1, 2)), cap)
        if form == "append":
            line = f"{lst} = {lst} + [{src}]"
        elif form == "prepend":
            line = f"{lst} = [{src}] + {lst}"
        elif form == "shift":
            line = f"{lst} = {lst}[1:] + [{src}]"
        elif form == "map":
            v = self.draft.fresh("v")
            e = env.copy()
            e.floats[v] = info.bound
            e.readonly.add(v)
            c = draw_const(rng, -0.9, 0.9)
            src, b = self.exprs.fit(*self.exprs.expr(e, rng.randint(1, 2)), cap)
            src, b = self.exprs.fit(f"{lit(c)} * {v} + {src}", abs(c) * info.bound + b, cap)
            line = f"{lst} = [{src} for {v} in {lst}]"
        elif form == "concat":
            other = rng.choice(others)
            line, b = f"{lst} = {lst} + {other}", env.lists[other].bound
        elif form == "copy":
            other = rng.choice(longer)
            line = f"{lst} = {rng.choice([f'list({other})', f'{other}[:]'])}"
            b = env.lists[other].bound
        else:
            k = info.minlen
            line, b = f"{lst} = {rng.choice([f'{lst}[:{k}]', f'{lst}[-{k}:]'])}", info.bound
        self.draft.emit(line)
        info.bound = max(info.bound, b)
