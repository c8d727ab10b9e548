"""Array parameters of a shape that broadcasts up, rebound in loops and branches: SmallRebinds.

A parameter of shape (), (1,), (k, 1), (1, k) or (1, 1) is assigned, mostly inside a loop or a branch,
an expression of a larger shape it broadcasts into (``x = x * w``, ``x = x + A``, ``np.maximum(x, w)``):
the variable then ends with another shape than the argument, whose cotangent must keep the argument's
shape (adcompiler once took it from the last value). The scope never reads such a parameter before that
assignment, and records the larger shape only where every path has made it: after the first line of a
loop that surely runs, after an if/elif/else whose every branch assigns it, or in the scope of the
assignment itself (a path that skips it never reads the name again). The name stays read-only, as a
parameter is: adcompiler refuses writes into a name that may still hold the argument.
"""

from __future__ import annotations

from .config import LOOP_CAP
from .draft import Draft
from .scalar_expr import draw_const, lit, wrap
from .scope import ArrInfo, Idx, NpEnv

P_PENDING = 0.5  # a statement where a small parameter waits: its assignment (soon: it is unread till then)
P_WIDEN = 0.06  # a statement of the function's own block: a vector parameter broadcast to a matrix


def broadcasts_to(small: tuple, shape: tuple) -> bool:
    """Does an array of shape small broadcast to shape (and to nothing larger)?"""
    if len(small) > len(shape):
        return False
    return all(a in (1, b) for a, b in zip(small[::-1], shape[::-1]))


def small_param(draft: Draft) -> tuple | None:
    """Sometimes (Config.p_small_param, drawn from Draft.rebinds) a small shape for a parameter, one the
    program's shapes broadcast."""
    rng = draft.rebinds()
    if rng.random() >= draft.config.p_small_param:
        return None
    small = [(), (1,), (1,)]
    for r, c in [s for s in draft.shapes if len(s) == 2]:
        small += [(r, 1), (1, c), (1, 1)]
    return rng.choice(small)


class SmallRebinds:
    """The part of ``stmts`` (a Stmts of a NumPy program, which holds this part) that assigns small
    parameters (Draft.vector_params too) a shape they broadcast to."""

    def __init__(self, stmts):
        self.stmts, self.exprs, self.draft = stmts, stmts.exprs, stmts.draft
        self.arrays = self.exprs.arrays
        self.rng = self.draft.rng

    def stmt(self, env: NpEnv, depth: int, budget: list) -> bool:
        """A small parameter's assignment, or a vector parameter widened, in this statement's place (the
        draws from Draft.rebinds); False where neither is written."""
        if env.small and self.draft.rebinds().random() < P_PENDING:
            budget[0] -= 1
            self.rebind_small(env, depth, budget)
            return True
        if depth == 0 and budget[0] > 1 and env.arrays and self.draft.rebinds().random() < P_WIDEN:
            if self.widen_param(env, budget):
                return True
        return False

    def widen_param(self, env: NpEnv, budget: list) -> bool:
        """A vector parameter of shape (n,) made (m, n) in a loop or in every branch of an if, in the
        function's own block (no outer scope keeps the old shape); False if the program has none."""
        grown = [
            (n, s)
            for n in sorted(self.draft.vector_params)
            if n in env.arrays and n not in env.readonly and len(env.arrays[n].shape) == 1
            for s in self.draft.shapes
            if len(s) == 2 and broadcasts_to(env.arrays[n].shape, s)
        ]
        if not grown:
            return False
        budget[0] -= 1
        name, target = self.rng.choice(grown)
        bound = env.arrays[name].bound
        if self.draft.chance(0.6):
            self.small_loop(env, name, bound, target, 0, budget)
        else:
            self.small_branches(env, name, bound, target, 0, budget)
        return True

    def rebind_small(self, env: NpEnv, depth: int, budget: list) -> None:
        """A small parameter (or a name for it) assigned a larger shape: in place if already in a loop or a
        branch, else in a loop (maybe broadcast once before it too) or in every branch of an if."""
        rng = self.rng
        name = rng.choice(sorted(env.small))
        shape, bound = env.small.pop(name)
        target = rng.choice([s for s in self.draft.shapes if broadcasts_to(shape, s)])
        if self.draft.chance(0.2):  # a variable aliasing the parameter is what gets rebound
            name, alias = self.draft.fresh("u"), name
            self.draft.emit(f"{name} = {alias}")
        compound_ok = depth < 3 and budget[0] > 0
        r = rng.random()
        if not compound_ok or r < 0.1 or (depth >= 1 and r < 0.45):
            self.small_line(env, name, bound, target)
        elif r < 0.75:
            self.small_loop(env, name, bound, target, depth, budget)
        else:
            self.small_branches(env, name, bound, target, depth, budget)

    def small_line(self, env: NpEnv, name: str, bound: float, target: tuple) -> None:
        """``name = <an expression of shape target>`` that name broadcasts into (name may be small, or of
        shape target already: a loop's later iterations)."""
        rng = self.rng
        info = env.arrays.get(name)
        cap = env.acaps.get(name, max(bound, LOOP_CAP))
        bx = info.bound if info else max(bound, cap) if env.in_loop else bound
        hidden = env.arrays.pop(name, None)  # W never reads name: its shape differs from one iteration to the next
        W, bw = self.arrays.aexpr(env, target, rng.randint(1, 2))
        if hidden is not None:
            env.arrays[name] = hidden
        W = wrap(W)
        c = draw_const(rng, -0.9, 0.9)
        dims = f"({', '.join(map(str, target))},)" if len(target) == 1 else f"({target[0]}, {target[1]})"
        src, b = rng.choice(
            [
                (f"{name} * {W}", bx * bw),
                (f"{name} * {W}", bx * bw),
                (f"{name} + {W}", bx + bw),
                (f"{W} - {name}", bx + bw),
                (f"{lit(c)} * {name} + {W}", abs(c) * bx + bw),
                (f"{self.draft.f('maximum')}({name}, {W})", max(bx, bw)),
                (f"{self.draft.f('where')}({W} > {lit(c)}, {name}, {lit(c)})", max(bx, abs(c))),
                (f"{lit(c)} * {self.draft.f('broadcast_to')}({name}, {dims})", abs(c) * bx),
                (f"{name} * {self.draft.f('ones')}({dims})", bx),
            ]
        )
        src, b = self.arrays.afit(src, b, cap) if env.in_loop else self.arrays.asquash(src, b)
        self.draft.emit(f"{name} = {src}")
        if info is not None:
            info.shape, info.bound = target, b
        else:
            env.arrays[name] = ArrInfo(target, b, False)
            if env.in_loop:
                env.acaps[name] = cap

    def small_loop(self, env: NpEnv, name: str, bound: float, target: tuple, depth: int, budget: list) -> None:
        """A loop that surely runs (for i in range(k), while j < k), whose first line assigns name."""
        rng = self.rng
        if self.draft.chance(0.3):  # broadcast once before the loop too: the loop keeps the larger shape
            self.small_line(env, name, bound, target)
        k = rng.randint(1, 3)
        counter = None
        if self.draft.chance(0.7):
            i = self.draft.fresh("i")
            self.draft.emit(f"for {i} in range({k}):")
            body = env.loop_scope()
            body.idx[i] = Idx(k, None)
            self.draft.indent += 1
        else:
            counter = self.draft.fresh("j")
            self.draft.emit(f"{counter} = 0")
            self.draft.emit(f"while {counter} < {k}:")
            body = env.loop_scope()
            body.ints[counter] = k
            self.draft.indent += 1
            self.draft.emit(f"{counter} += 1")
        self.small_line(body, name, bound, target)
        self.draft.indent -= 1
        if budget[0] > 0 and self.draft.chance(0.6):
            self.stmts.block(body, depth + 1, budget, rng.randint(1, 2))
        env.after_loop(body)
        if counter:
            env.ints[counter] = k
        if name not in env.arrays or env.arrays[name].shape != target:
            env.arrays[name] = ArrInfo(target, body.arrays[name].bound, False)

    def small_branches(self, env: NpEnv, name: str, bound: float, target: tuple, depth: int, budget: list) -> None:
        """if/elif/else, every branch first assigning name (the same shape whichever runs)."""
        rng = self.rng
        heads = [f"if {self.exprs.cond(env)}:"] + [
            f"elif {self.exprs.cond(env)}:" for _ in range(rng.choice([0, 0, 1]))
        ]
        branches = []
        for head in heads + ["else:"]:
            self.draft.emit(head)
            e = env.copy()
            self.draft.indent += 1
            self.small_line(e, name, bound, target)
            self.draft.indent -= 1
            if budget[0] > 0 and self.draft.chance(0.4):
                self.stmts.block(e, depth + 1, budget, 1)
            branches.append(e)
        env.merge(branches, True)
        env.arrays[name] = ArrInfo(target, max(e.arrays[name].bound for e in branches), False)
