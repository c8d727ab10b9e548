"""Scalar programs: Gen writes function bodies with their returns, helpers, and the entry function."""

from __future__ import annotations

from .config import HELPER_BOUND, NMAX, PARAM_BOUND, Spec
from .scalar_expr import draw_const, lit
from .scalar_rebind import RebindGen
from .scope import Env, Helper, ListInfo


class Gen(RebindGen):
    """Random scalar programs (floats, lists of floats, ints) in README's supported subset."""

    def live_mix(self, env: Env, src: str, b: float) -> tuple[str, float]:
        """src plus small multiples of a few variables, so that more of the body is live."""
        names = sorted(n for n in env.floats)
        if not names or self.chance(0.25):
            return src, b
        picked = self.rng.sample(names, min(len(names), self.rng.randint(1, 3)))
        terms = []
        for n in picked:
            t, tb = self.fit(n, env.floats[n], 3.0)
            terms.append((f"{lit(draw_const(self.rng, -0.7, 0.7))} * {t}", 0.7 * tb))
        return " + ".join([src] + [t for t, _ in terms]), b + sum(tb for _, tb in terms)

    def ret_value(self, env: Env) -> tuple[str, float]:
        parts = [self.live_mix(env, *self.expr(env, self.rng.randint(1, 3))) for _ in range(self.outputs)]
        src = ", ".join(p for p, _ in parts)
        return (src if self.outputs == 1 else f"({src})" if self.chance(0.5) else src), max(b for _, b in parts)

    def ret(self, env: Env) -> None:
        src, b = self.ret_value(env)
        self.emit(f"return {src}")
        self.out_bound = max(self.out_bound, b)

    # ---------------------------------------------------------------- functions

    def function(self, name: str, env: Env, nstmts: int, outputs: int) -> float:
        """Emit a body into self.lines; returns the bound of its outputs."""
        self.outputs = outputs
        self.out_bound = 0.0
        self.indent = 1
        budget = [nstmts]
        while budget[0] > 0:
            self.stmt(env, 0, budget)
        self.ret(env)
        return self.out_bound

    def helper(self, idx: int) -> list[str]:
        rng = self.rng
        name = f"h{idx}"
        if self.chance(0.12):
            # a recursive helper, with an int depth parameter
            lines = [
                f"def {name}(a, m):",
                "    if m <= 0:",
                f"        return math.tanh(a) + {lit(draw_const(rng))}",
                f"    return {name}({lit(round(rng.uniform(0.3, 0.9), 2))} * math.sin(a) + {lit(draw_const(rng, -0.5, 0.5))} * a, m - 1)",
            ]
            self.helpers.append(Helper(name, 1, False, False, 1, 2.0, recursive=True))
            return lines
        nfloat = rng.randint(1, 2)
        has_default = self.chance(0.3)
        list_param = self.chance(0.25)
        outputs = 2 if self.chance(0.25) else 1
        params = ["a", "b"][:nfloat]
        env = self.new_env()
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
        saved, self.lines = self.lines, []
        bound = self.function(name, env, rng.randint(2, max(2, self.config.helper_stmts)), outputs)
        body, self.lines = self.lines, saved
        self.helpers.append(Helper(name, nfloat, has_default, list_param, outputs, bound))
        return [f"def {name}({', '.join(sig)}):"] + body

    def program(self, entry: str = "f") -> Spec:
        rng = self.rng
        out = ["import math", "", ""]
        cfg = self.config
        for h in range(min(cfg.max_helpers, rng.choice([0, 0, 1, 1, 2, 3]))):
            out += self.helper(h) + ["", ""]
        nfloat = rng.randint(1, 3)
        params = [("float", n) for n in ["x", "y", "z"][:nfloat]]
        if self.chance(cfg.p_list_param):
            params.append(("list", "xs", rng.randint(2, 5)))
        if self.chance(cfg.p_int_param):
            params.append(("int", "n"))
        env = self.new_env()
        for p in params:
            if p[0] == "float":
                env.floats[p[1]] = PARAM_BOUND
            elif p[0] == "list":
                env.lists[p[1]] = ListInfo(p[2], PARAM_BOUND)
            else:
                env.ints[p[1]] = NMAX
        outputs = rng.randint(2, 3) if self.chance(cfg.p_tuple_out) else 1
        self.lines = []
        self.function(entry, env, rng.randint(3, max(3, cfg.max_stmts)), outputs)
        out += [f"def {entry}({', '.join(p[1] for p in params)}):"] + self.lines + [""]
        return Spec("\n".join(out), entry, params, outputs)
