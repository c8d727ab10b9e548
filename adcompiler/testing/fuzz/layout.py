"""Program values as flat vectors of floats: arguments (Layout) and outputs (flat_out, unflat_like).

Layout also draws random points, makes tangents and says which cotangents do not look like their
parameter; structure describes an output, for comparing outputs.
"""

from __future__ import annotations

import math
import random

from .config import NMAX, PARAM_BOUND


def flat_out(out) -> list:
    """A value (float, NumPy scalar or array, nested tuples/lists of these) as a flat list of floats."""
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res += flat_out(o)
        return res
    if hasattr(out, "ndim") and out.ndim > 0:
        return [float(v) for v in out.ravel()]
    return [float(out)]


def structure(out):
    """What a value looks like, for comparing outputs: "s" (a number, NumPy scalar or 0-d array),
    ("array", shape), or a tuple ("tuple"/"list", items)."""
    if isinstance(out, (tuple, list)):
        return (type(out).__name__, tuple(structure(o) for o in out))
    if hasattr(out, "ndim") and out.ndim > 0:
        return ("array", tuple(out.shape))
    return "s"


def unflat_like(template, vec: list):
    """vec shaped like template (a float for a number, an array for an array, tuples for tuples)."""
    pos = [0]

    def go(t):
        if isinstance(t, (tuple, list)):
            return type(t)(go(o) for o in t)
        if hasattr(t, "ndim") and t.ndim > 0:
            n = t.size
            a = _numpy_module().array(vec[pos[0] : pos[0] + n], dtype=float).reshape(t.shape)
            pos[0] += n
            return a
        pos[0] += 1
        return vec[pos[0] - 1]

    return go(template)


class Layout:
    """Maps between a program's arguments and the flat vector of wrt inputs.

    params: ("float", name) | ("list", name, length) | ("array", name, shape) | ("int", name). Array
    arguments are float64 NumPy arrays; a point as stored in a report (``plain``) has them as nested lists.
    """

    def __init__(self, params):
        self.params = [tuple(p) if p[0] != "array" else (p[0], p[1], tuple(p[2])) for p in params]
        self.wrt = tuple(p[1] for p in params if p[0] != "int")

    def draw(self, rng: random.Random) -> list:
        args = []
        for p in self.params:
            if p[0] == "float":
                args.append(round(rng.uniform(-PARAM_BOUND, PARAM_BOUND), 6))
            elif p[0] == "list":
                args.append([round(rng.uniform(-PARAM_BOUND, PARAM_BOUND), 6) for _ in range(p[2])])
            elif p[0] == "array":
                vals = [round(rng.uniform(-PARAM_BOUND, PARAM_BOUND), 6) for _ in range(math.prod(p[2]))]
                args.append(_numpy_module().array(vals, dtype=float).reshape(p[2]))
            else:
                args.append(rng.randint(0, NMAX))
        return args

    def plain(self, args) -> list:
        """args with arrays as nested lists (for reports: a repr that ast.literal_eval reads back)."""
        return [
            a.tolist() if p[0] == "array" else (list(a) if p[0] == "list" else a) for p, a in zip(self.params, args)
        ]

    def from_plain(self, point) -> list:
        """The inverse of plain: array parameters become float64 arrays of their shape."""
        out = []
        for p, a in zip(self.params, point):
            if p[0] == "array":
                out.append(_numpy_module().array(a, dtype=float).reshape(p[2]))
            else:
                out.append(list(a) if p[0] == "list" else a)
        return out

    def flat(self, args) -> list:
        res = []
        for p, a in zip(self.params, args):
            if p[0] == "float":
                res.append(a)
            elif p[0] == "list":
                res += a
            elif p[0] == "array":
                res += [float(v) for v in a.ravel()]
        return res

    def _take(self, p, vec, k):
        """The value of parameter p from vec at k, and the next k."""
        if p[0] == "float":
            return vec[k], k + 1
        if p[0] == "list":
            return list(vec[k : k + p[2]]), k + p[2]
        n = math.prod(p[2])
        return _numpy_module().array(vec[k : k + n], dtype=float).reshape(p[2]), k + n

    def unflat(self, args, vec) -> list:
        """args with the wrt inputs replaced by vec."""
        out, k = [], 0
        for p, a in zip(self.params, args):
            if p[0] == "int":
                out.append(a)
            else:
                v, k = self._take(p, vec, k)
                out.append(v)
        return out

    def tangents(self, vec) -> tuple:
        """vec as one tangent per wrt parameter."""
        res, k = [], 0
        for p in self.params:
            if p[0] != "int":
                v, k = self._take(p, vec, k)
                res.append(v)
        return tuple(res)

    def shape_errors(self, cts) -> list[str]:
        """Cotangents that do not look like their parameter (README: a gradient looks like its argument).

        Also their precision: every argument is float64 (or a Python float), so is every cotangent.
        """
        errs = []
        for p, ct in zip([p for p in self.params if p[0] != "int"], cts):
            dtype = getattr(ct, "dtype", None)
            if p[0] in ("array", "float") and dtype is not None and str(dtype) != "float64":
                errs.append(f"cotangent of {p[0]} {p[1]} has dtype {dtype}; {p[1]} is float64")
            if p[0] == "array" and getattr(ct, "shape", None) != p[2]:
                errs.append(
                    f"cotangent of {p[1]} is {type(ct).__name__} {getattr(ct, 'shape', '')}; {p[1]} has shape {p[2]}"
                )
            elif p[0] == "float" and getattr(ct, "ndim", 0) != 0:
                errs.append(f"cotangent of float {p[1]} has shape {ct.shape}")
            elif p[0] == "list" and (not isinstance(ct, (list, tuple)) or len(ct) != p[2]):
                errs.append(f"cotangent of list {p[1]} is {ct!r}, not {p[2]} numbers")
        return errs


def _numpy_module():
    """NumPy, imported only when a program has array parameters or outputs (scalar fuzzing needs none)."""
    import numpy

    return numpy
