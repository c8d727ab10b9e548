"""Scalar programs: Gen writes helpers and the entry function, with the parts of scalar_expr's list."""

from __future__ import annotations

import random

from .config import DEFAULT, HELPER_BOUND, NMAX, PARAM_BOUND, Config, Spec
from .draft import Draft
from .scalar_expr import Exprs, draw_const, lit
from .scalar_rebind import ListRebinds
from .scalar_stmt import Stmts
from .scope import Helper, ListInfo


class Gen:
    """Random scalar programs (floats, lists of floats, ints) in README's supported subset."""

    def __init__(self, rng: random.Random, config: Config = DEFAULT):
        self.draft = Draft(rng, config)
        self.stmts = Stmts(Exprs(self.draft), parts=(ListRebinds,))

    def program(self, entry: str = "f") -> Spec:
        draft, rng = self.draft, self.draft.rng
        out = ["import math", "", ""]
        cfg = draft.config
        for h in range(min(cfg.max_helpers, rng.choice([0, 0, 1, 1, 2, 3]))):
            out += helper(self.stmts, h) + ["", ""]
        nfloat = rng.randint(1, 3)
        params = [("float", n) for n in ["x", "y", "z"][:nfloat]]
        if draft.chance(cfg.p_list_param):
            params.append(("list", "xs", rng.randint(2, 5)))
        if draft.chance(cfg.p_int_param):
            params.append(("int", "n"))
        env = draft.new_env()
        for p in params:
            if p[0] == "float":
                env.floats[p[1]] = PARAM_BOUND
            elif p[0] == "list":
                env.lists[p[1]] = ListInfo(p[2], PARAM_BOUND)
            else:
                env.ints[p[1]] = NMAX
        outputs = rng.randint(2, 3) if draft.chance(cfg.p_tuple_out) else 1
        draft.lines = []
        self.stmts.function(env, rng.randint(3, max(3, cfg.max_stmts)), outputs)
        out += [f"def {entry}({', '.join(p[1] for p in params)}):"] + draft.lines + [""]
        return Spec("\n".join(out), entry, params, outputs)


def helper(stmts: Stmts, idx: int) -> list[str]:
    """The lines of a helper ``h<idx>`` of floats (a list, a default), written with ``stmts``; the draft
    then knows it (Draft.helpers), so later code may call it."""
    draft = stmts.draft
    rng = draft.rng
    name = f"h{idx}"
    if draft.chance(0.12):
        # a recursive helper, with an int depth parameter
        lines = [
            f"def {name}(a, m):",
            "    if m <= 0:",
            f"        return math.tanh(a) + {lit(draw_const(rng))}",
            f"    return {name}({lit(round(rng.uniform(0.3, 0.9), 2))} * math.sin(a) + {lit(draw_const(rng, -0.5, 0.5))} * a, m - 1)",
        ]
        draft.helpers.append(Helper(name, 1, False, False, 1, 2.0, recursive=True))
        return lines
    nfloat = rng.randint(1, 2)
    has_default = draft.chance(0.3)
    list_param = draft.chance(0.25)
    outputs = 2 if draft.chance(0.25) else 1
    params = ["a", "b"][:nfloat]
    env = draft.new_env()
    for p in params:
        env.floats[p] = HELPER_BOUND
    if has_default:
        params[-1] = "c"
        env.floats.pop("b" if nfloat == 2 else "a")
        env.floats["c"] = HELPER_BOUND
    sig = list(params)
    if has_default:
        sig[-1] = f"c={lit(draw_const(rng))}"
    if list_param:
        env.lists["ws"] = ListInfo(1, HELPER_BOUND)
        sig.insert(len(sig) - 1 if has_default else len(sig), "ws")
    saved, draft.lines = draft.lines, []
    bound = stmts.function(env, rng.randint(2, max(2, draft.config.helper_stmts)), outputs)
    body, draft.lines = draft.lines, saved
    draft.helpers.append(Helper(name, nfloat, has_default, list_param, outputs, bound))
    return [f"def {name}({', '.join(sig)}):"] + body
