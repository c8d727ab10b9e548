"""NumPy programs: NpGen writes helpers over arrays, and the entry function with its arrays."""

from __future__ import annotations

import math
import random

from .config import DEFAULT, HELPER_BOUND, NMAX, PARAM_BOUND, Config, Spec
from .draft import Draft
from .numpy_expr import ArrayExprs
from .numpy_rebind import SmallRebinds, small_param
from .numpy_stmt import ArrayStmts
from .scalar_expr import Exprs, draw_const, lit
from .scalar_program import helper
from .scalar_rebind import ListRebinds
from .scalar_stmt import Stmts
from .scope import ArrayHelper, ArrInfo, ListInfo, NpEnv


class NpGen:
    """Random NumPy programs in README's supported subset, on top of the scalar generator's parts.

    Every array variable has one small fixed shape: a program picks dimensions n (2..4) and m (2..3) and
    uses shapes (n,), (m,) and (m, n) for its variables (any (r, c) with r, c in {n, m} inside
    expressions). Statements are the scalar generator's (floats, lists, branches, loops, helpers) mixed
    with array statements (ArrayStmts) and small parameters broadcast up (SmallRebinds); scalar
    expressions also read arrays (reductions, dot products, elements: ArrayExprs), so branch conditions
    and loop bounds depend on array values.
    """

    def __init__(self, rng: random.Random, config: Config = DEFAULT):
        self.draft = Draft(rng, config, NpEnv)
        self.rng = rng
        self.stmts = Stmts(Exprs(self.draft, arrays=ArrayExprs), parts=(SmallRebinds, ArrayStmts, ListRebinds))

    # ---------------------------------------------------------------- helpers with arrays

    def array_helper(self, idx: int) -> list[str]:
        draft, rng = self.draft, self.rng
        name = f"h{idx}"
        shape = rng.choice(draft.shapes)
        small = small_param(self.draft)  # a parameter the body broadcasts up, maybe in a loop
        params = [("array", "a", shape if small is None else small)]
        if draft.chance(0.4):
            params.append(("array", "b", rng.choice(draft.shapes)))
        default = False
        if draft.chance(0.5):
            params.append(("float", "s"))
            default = draft.chance(0.3)
        outs = rng.choice([[None], [None], [shape], [shape], [shape, None], [None, None]])
        env = draft.new_env()
        saved, draft.lines, draft.indent = draft.lines, [], 1
        for p in params:
            if p[0] == "array" and p[2] not in draft.shapes:
                env.small[p[1]] = (p[2], HELPER_BOUND)
            elif p[0] == "array" and draft.avoiding("helper_array_param_list"):
                local = draft.fresh("u")  # the body never reads the parameter, only this copy
                draft.emit(f"{local} = {draft.f('copy')}({p[1]})")
                env.arrays[local] = ArrInfo(p[2], HELPER_BOUND, True)
            elif p[0] == "array":
                env.arrays[p[1]] = ArrInfo(p[2], HELPER_BOUND, False)
            else:
                env.floats[p[1]] = HELPER_BOUND
        sig = [p[1] for p in params]
        if default:
            sig[-1] = f"s={lit(draw_const(rng))}"
        draft.vector_params = {p[1] for p in params if p[0] == "array" and len(p[2]) == 1 and p[2] in draft.shapes}
        draft.fresh_returns = True
        bound = self.stmts.function(env, rng.randint(2, max(2, draft.config.helper_stmts)), outs)
        draft.fresh_returns = False
        body, draft.lines = draft.lines, saved
        draft.ahelpers.append(ArrayHelper(name, params, default, outs, bound))
        return [f"def {name}({', '.join(sig)}):"] + body

    # ---------------------------------------------------------------- functions

    def module_arrays(self, env: NpEnv) -> list[str]:
        """Arrays defined at module level, ``K0 = np.array([...])``, read by the entry function like
        parameters it never writes into (the derivative must read them as they are, in every loop).
        Drawn from a generator of their own, so a seed's other choices stay what they were."""
        rng, draft = random.Random(repr(self.rng.getstate()[1][:8])), self.draft
        lines = []
        for k in range(rng.choice([0, 0, 1, 2])):
            shape = rng.choice(draft.shapes)
            values = [round(rng.uniform(-1.0, 1.0), 2) for _ in range(math.prod(shape))]
            rows = values if len(shape) == 1 else [values[i : i + shape[1]] for i in range(0, len(values), shape[1])]
            lines.append(f"K{k} = {draft.np}.array({rows!r})")
            env.arrays[f"K{k}"] = ArrInfo(shape, 1.0, False)
            env.readonly.add(f"K{k}")  # assigned in f, it would be a local of f
        return lines + ([""] if lines else [])

    def program(self, entry: str = "f") -> Spec:
        draft, rng = self.draft, self.rng
        cfg = draft.config
        alias = rng.choice(["np"] * 8 + ["numpy", "onp"])
        draft.np = alias
        out = ["import math", "import numpy" if alias == "numpy" else f"import numpy as {alias}", "", ""]
        n, m = rng.randint(2, 4), rng.randint(2, 3)
        if draft.chance(0.35):
            draft.dims, draft.shapes = [n], [(n,)]
        else:
            draft.dims = sorted({n, m})
            draft.shapes = list(dict.fromkeys([(n,), (m,), (m, n)]))
        for h in range(min(cfg.max_helpers, rng.choice([0, 0, 1, 1, 2, 3]))):
            out += (self.array_helper(h) if draft.chance(0.7) else helper(self.stmts, h)) + ["", ""]
        params = []
        vectors = [s for s in draft.shapes if len(s) == 1]
        matrices = [s for s in draft.shapes if len(s) == 2]
        narr = rng.randint(1, 3)
        for k in range(narr):
            shape = rng.choice(matrices) if matrices and draft.chance(0.4) else rng.choice(vectors)
            params.append(("array", ("A", "B", "C")[k] if len(shape) == 2 else ("x", "y", "w")[k], shape))
        small = small_param(self.draft)
        if small is not None:
            params.append(("array", "v", small))
        for name in ["p", "q"][: rng.choice([0, 0, 1, 1, 2])]:
            params.append(("float", name))
        if draft.chance(cfg.p_list_param):
            params.append(("list", "xs", rng.randint(2, 4)))
        if draft.chance(cfg.p_int_param):
            params.append(("int", "n"))
        env = draft.new_env()
        out[4:4] = self.module_arrays(env)
        for p in params:
            if p[0] == "array" and p[2] not in draft.shapes:
                env.small[p[1]] = (p[2], PARAM_BOUND)
            elif p[0] == "array":
                env.arrays[p[1]] = ArrInfo(p[2], PARAM_BOUND, False)
            elif p[0] == "float":
                env.floats[p[1]] = PARAM_BOUND
            elif p[0] == "list":
                env.lists[p[1]] = ListInfo(p[2], PARAM_BOUND)
            else:
                env.ints[p[1]] = NMAX
        k = rng.random()
        if k < 0.55:
            outs = [None]
        elif k < 0.75:
            outs = [rng.choice(draft.shapes)]
        else:
            outs = [rng.choice([None, None] + draft.shapes) for _ in range(rng.randint(2, 3))]
        draft.lines = []
        draft.vector_params = {p[1] for p in params if p[0] == "array" and len(p[2]) == 1 and p[2] in draft.shapes}
        self.stmts.function(env, rng.randint(3, max(3, cfg.max_stmts)), outs)
        out += [f"def {entry}({', '.join(p[1] for p in params)}):"] + draft.lines + [""]
        return Spec("\n".join(out), entry, params, len(outs))
