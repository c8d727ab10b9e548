"""A fuzzer of the API boundary: random functions of records (dicts, NamedTuples, dataclasses, plain
objects), lists and tuples whose leaves are floats, float64 or float32 arrays, and integers (ints, bools,
NumPy integers, integer arrays), sometimes an integer parameter or default, returning a number, a dict,
a list or nested tuples; each differentiated with every entry point on one object and checked.

    python -m adcompiler.testing.boundary --programs 300 --seed 1 [--out DIR]

The oracle is independent of adcompiler: central differences over the float leaves only (integers have
no derivative), ``<u, J v> == <J^T u, v>``, and the structure of every result written out from the
arguments and the output: a tangent of the output's structure and record types; a cotangent of its
argument's, None at each integer, a float for a Python float, an array of its shape and floating dtype
(float32 kept); a parameter whose argument holds integers only left out (wrt by default); Jacobians
(jacfwd, jacrev) in the output's structure, each block of the argument's, ``out.shape + in.shape``,
float32 where both are float32.  Entry points: ``jvp``, ``vjp``, ``grad`` and ``value_and_grad`` (a
number out), ``adcompiler.jvp``, ``adcompiler.vjp``, ``jacfwd`` and ``jacrev``.  Items 9 to 12 of issue
32 are what it would have found: an integer leaf given a gradient, jvp's dict output as tuples, a float's
cotangent float32, float32 Jacobians assembled as float64.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import traceback

import numpy as np

from .campaigns import campaign
from .boundary_oracle import check_entries, float_leaves, structure_problem  # noqa: F401  (used by tests too)
from .structures import BINARY, RECORDS, UNARY, Box

SHAPES = [(), (1,), (3,), (1, 3), (2, 1), (2, 3)]  # any two of these broadcast
INTEGERS = ["int", "bool", "numpy int", "int array"]
DATA = {n: dataclasses.make_dataclass(f"Data{n}", [f"f{k}" for k in range(n)]) for n in (1, 2, 3)}


@dataclasses.dataclass
class Program:
    source: str
    args: list  # one builder (rng -> value) per parameter
    float32: bool


def _tree(rng: random.Random, depth: int, floats: list):
    """("float", shape) (shape None: a Python float), ("int", kind, shape), or (kind, [children]): a list,
    a tuple, a dict, a NamedTuple, a dataclass or a plain object (keys k0.., fields f0..)."""
    if depth >= 2 or rng.random() < 0.4:
        if rng.random() < 0.3:
            return ("int", rng.choice(INTEGERS), rng.choice(SHAPES[1:]))
        floats.append(1)
        return ("float", rng.choice([None] + SHAPES))
    kind = rng.choice(["list", "tuple", "dict", "dict", "namedtuple", "dataclass", "object"])
    return (kind, [_tree(rng, depth + 1, floats) for _ in range(rng.choice([1, 2, 3]))])


def _paths(tree, path: str) -> list:
    """(access path, leaf) of every leaf."""
    if tree[0] in ("float", "int"):
        return [(path, tree)]
    index = {"dict": "['k{}']", "list": "[{}]", "tuple": "[{}]"}.get(tree[0], ".f{}")
    return [leaf for k, t in enumerate(tree[1]) for leaf in _paths(t, path + index.format(k))]


def _build(tree, rng, float32: bool):
    gen = np.random.default_rng(rng.randrange(2**32))
    if tree[0] == "float":
        if tree[1] is None:
            return float(gen.uniform(-1, 1))
        return gen.uniform(-1, 1, size=tree[1]).astype(np.float32 if float32 else np.float64)
    if tree[0] == "int":
        n = int(gen.integers(1, 4))
        kind = tree[1]
        return {"int": n, "bool": True, "numpy int": np.int64(n), "int array": np.full(tree[2], n)}[kind]
    items = [_build(t, rng, float32) for t in tree[1]]
    if tree[0] == "dict":
        return {f"k{k}": v for k, v in enumerate(items)}
    if tree[0] == "namedtuple":
        return RECORDS[len(items)](*items)
    if tree[0] == "dataclass":
        return DATA[len(items)](*items)
    if tree[0] == "object":
        box = Box()
        box.__dict__.update({f"f{k}": v for k, v in enumerate(items)})
        return box
    return tuple(items) if tree[0] == "tuple" else items


def _expr(rng, floats: list, integers: list, depth=0) -> str:
    """A random expression of float leaves, sometimes scaled by an integer leaf."""
    if depth >= 2 or rng.random() < 0.3:
        e = rng.choice(floats)
    elif rng.random() < 0.5:
        e = rng.choice(UNARY).format(_expr(rng, floats, integers, depth + 1))
    else:
        e = rng.choice(BINARY).format(_expr(rng, floats, integers, depth + 1), _expr(rng, floats, integers, depth + 1))
    return f"({e}) * {rng.choice(integers)}" if integers and rng.random() < 0.3 else e


def generate(rng: random.Random) -> Program:
    """A random program: one to three parameters (a structure, sometimes an integer, sometimes an
    integer default), an output of one of four kinds."""
    float32 = rng.random() < 0.4
    params, args, floats, integers = [], [], [], []
    for k in range(rng.choice([1, 2, 3])):
        name = f"p{k}"
        if k > 0 and rng.random() < 0.2:  # a bare integer: left out of wrt by default
            params.append(name)
            args.append(lambda r: r.choice([2, 3, np.int64(2)]))
            integers.append(name)
            continue
        count: list = []
        tree = _tree(rng, 0, count)
        if not count:  # at least one float somewhere in the first parameter
            tree = ("tuple", [tree, ("float", rng.choice([None] + SHAPES))])
        for path, leaf in _paths(tree, name):
            (floats if leaf[0] == "float" else integers).append(path)
        params.append(name)
        args.append(lambda r, t=tree: _build(t, r, float32))
    if rng.random() < 0.3:
        params.append("n=2")  # an integer default left in place
        integers.append("n")
    outs = [_expr(rng, floats, integers) for _ in range(3)]
    kind = rng.choice(["number", "dict", "tuple", "list"])
    out = {
        "number": f"np.sum({outs[0]})",
        "dict": f"{{'b': np.sum({outs[0]}), 'a': {outs[1]}}}",
        "tuple": f"({outs[0]}, (np.sum({outs[1]}), {outs[2]}))",
        "list": f"[{outs[0]}, np.sum({outs[1]})]",
    }[kind]
    source = f"import numpy as np\n\n\ndef f({', '.join(params)}):\n    return {out}\n"
    return Program(source, args, float32)


# ---- a campaign ----------------------------------------------------------------------------------


def check(program: Program, seed: int, directory: str, k: int) -> str:
    """ "ok", "refusal: ..." or "failure: ..." for one program at one random point."""
    from ..errors import UnsupportedSyntaxError
    from .fuzz import load_module

    module = load_module(program.source, directory, f"boundary{k}")
    rng = random.Random(seed)
    args = [build(rng) for build in program.args]
    try:
        check_entries(module.f, args, program.float32, np.random.default_rng(seed))
    except UnsupportedSyntaxError as exc:
        return f"refusal: {exc}"
    except Exception as exc:  # noqa: BLE001 - a wrong value or structure, or an internal error
        return f"failure: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"
    return "ok"


def run(programs: int, seed: int, out_dir: str | None = None) -> dict:
    """Counts of one campaign: programs, ok, refusals, failures (each written to ``out_dir``)."""
    return campaign(generate, check, programs, seed, out_dir, "adc_boundary_")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None)
    a = parser.parse_args(argv)
    counts = run(a.programs, a.seed, a.out)
    print(", ".join(f"{k} {v}" for k, v in counts.items()))
    return 1 if counts["failures"] or counts["refusals"] else 0


if __name__ == "__main__":
    sys.exit(main())
