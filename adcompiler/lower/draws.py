"""``np.random`` draws -> ``draw`` equations: made once per call, by the primal line, with no derivative.

``npr.randn(3)``, ``np.random.normal(size=(2, 3))``: generated code calls the same function at the same
place in the primal's order (forward mode once, reverse mode in its primal sweep, the value kept for
the adjoint sweep like any other), so both modes see the draw the primal makes from the same state.
The equation's param is ``("draw", "numpy.random.<name>", keyword names, ndim)``: ndim from the
arguments that give the shape (0: a float).  A draw is never pure (``analysis.liveness``): it is not
dropped when unused, moved or made twice, since each draw advances the generator.
"""

from __future__ import annotations

import ast
import sys

# name -> (the positional parameters, in order; how the shape is given: "dims" (randn(2, 3)) or "size")
DRAWS = {
    "randn": ((), "dims"),
    "rand": ((), "dims"),
    "standard_normal": (("size",), "size"),
    "random": (("size",), "size"),
    "random_sample": (("size",), "size"),
    "normal": (("loc", "scale", "size"), "size"),
    "uniform": (("low", "high", "size"), "size"),
    "standard_cauchy": (("size",), "size"),
    "standard_exponential": (("size",), "size"),
    "exponential": (("scale", "size"), "size"),
    "laplace": (("loc", "scale", "size"), "size"),
    "logistic": (("loc", "scale", "size"), "size"),
    "gumbel": (("loc", "scale", "size"), "size"),
    "lognormal": (("mean", "sigma", "size"), "size"),
}


def draw_name(target) -> str | None:
    """The name of the ``np.random`` function ``target`` is (None: another function)."""
    name = getattr(target, "__name__", None)
    module = sys.modules.get("numpy.random")  # not imported: no draw (scalar users need no NumPy)
    return name if name in DRAWS and module is not None and vars(module).get(name) is target else None


def lower_draw(emit, expr, node: ast.Call, name: str, hint):
    """Lower ``np.random.<name>(...)``: its arguments as written (``expr``: lowered into ``emit``'s block),
    the ndim of its value from its shape."""
    params, how = DRAWS[name]
    if how == "dims":
        if node.keywords:
            raise emit.parsed.error(node, f"keyword arguments to np.random.{name}", f"write {name}(d0, d1, ...)")
        ndim = len(node.args)
    else:
        given = dict(zip(params, node.args)) | {k.arg: k.value for k in node.keywords}
        unknown = [k for k in given if k not in params] + (["*"] if len(node.args) > len(params) else [])
        if unknown:
            raise emit.parsed.error(node, f"np.random.{name} with these arguments", f"pass {', '.join(params)}")
        size = given.get("size")
        if any(k != "size" for k in given):
            if size is None:  # the value's shape would be the arguments' broadcast shape
                raise emit.parsed.error(
                    node, f"np.random.{name} with parameters and no size", "give the shape: size=... (or size=())"
                )
        ndim = _size_ndim(size)
        if ndim is None:
            raise emit.parsed.error(
                node, f"the size of np.random.{name} (not a number or a tuple)", "write size=n or size=(n, m)"
            )
    args = [emit.element(expr(a)) for a in node.args]
    args += [emit.element(expr(k.value)) for k in node.keywords]
    keys = tuple(k.arg for k in node.keywords)
    return emit.apply(
        "draw", args, hint if isinstance(hint, str) else None, param=("draw", f"numpy.random.{name}", keys, ndim)
    )


def _size_ndim(size) -> int | None:
    """The ndim a ``size=`` argument gives: None -> 0, a number or name -> 1, a tuple -> its length."""
    if size is None or isinstance(size, ast.Constant) and size.value is None:
        return 0
    if isinstance(size, ast.Tuple):
        return len(size.elts)
    if isinstance(size, (ast.Constant, ast.Name, ast.BinOp, ast.Call)):
        return 1
    return None


__all__ = ["DRAWS", "draw_name", "lower_draw"]
