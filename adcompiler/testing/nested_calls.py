"""A fuzzer of derivatives called inside differentiated functions, spelt as users spell them: the inner
function a module-level ``def``, a local ``def`` or named lambda reading the enclosing function's
variables, or a lambda written in the call; taken by ``adcompiler.grad`` (``argnums`` an int or a
tuple), ``adcompiler.value_and_grad`` or ``adcompiler.jvp``, of numbers and of NumPy vectors, called at once
or held in a local name first (``dg = adcompiler.grad(inner)``, then ``dg(t)``).

    python -m adcompiler.testing.nested_calls --programs 200 --seed 1

Each program is random source text (a seeded ``random.Random``), written to a file and imported, then
checked by ``adcompiler.testing.oracle.check_both_modes`` (both modes against central differences, the
dot-product identity, each cotangent's structure, shape and dtype), and the module ``adc compile`` writes
of it run against the same gradient (it must define every helper the inner derivatives call); with
``--numba``, the gradient under ``backend="numba"`` against the python target's.  A
refusal (a located ``UnsupportedSyntaxError``) is counted apart; a wrong value or an internal error is a
failure, written with its source to ``--out``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import random
import sys
import traceback

from .campaigns import campaign

UNARY = ["np.sin({})", "np.tanh({})", "({}) ** 2", "np.exp(0.3 * {})", "np.cos({}) * 0.5"]


@dataclasses.dataclass
class Program:
    source: str
    vector: bool  # the parameters are NumPy vectors (else numbers)


def _body(rng: random.Random, names: list) -> str:
    """A smooth expression of ``names`` (each read at least once)."""
    terms = []
    for name in names:
        term = rng.choice(UNARY).format(name)
        terms.append(term if rng.random() < 0.5 else f"{term} * {rng.choice(names)}")
    return " + ".join(terms)


def program(rng: random.Random) -> Program:
    """One program ``f(x, y)``: an inner function of ``t`` (and of ``s``, at times) that reads ``y`` or is
    handed it, differentiated inside ``f`` by one of the spellings, its result combined with x and y."""
    vector = rng.random() < 0.4
    total = "np.sum({})" if vector else "{}"
    spelling = rng.choice(["module", "local", "named", "inline"])
    transform = rng.choice(["grad", "grad", "value_and_grad", "grad2"] + (["jvp"] if spelling == "module" else []))
    held = rng.random() < 0.3  # the derivative held in a local name, then called
    two = transform == "grad2"
    params = "t, s" if two else "t"
    reads = ["t", "s", "y"] if two else ["t", "y"]
    inner_expr = total.format(_body(rng, reads))
    lines, head = [], ["import numpy as np", "", "import adcompiler", "", ""]
    if spelling == "module":  # y handed as an argument
        head += [f"def inner({params}, y):", f"    return {inner_expr}", "", ""]
        fn, extra = "inner", ", y"
    elif spelling == "local":
        lines += [f"def inner({params}):", f"    return {inner_expr}", ""]
        fn, extra = "inner", ""
    elif spelling == "named":
        lines += [f"inner = lambda {params}: {inner_expr}  # noqa: E731"]
        fn, extra = "inner", ""
    else:
        fn, extra = f"lambda {params}: {inner_expr}", ""
    at = "x * 0.5 + 0.1"
    if transform == "grad" and held:
        lines.append(f"dg = adcompiler.grad({fn})")
        lines.append(f"g = dg({at}{extra})")
    elif transform == "grad":
        lines.append(f"g = adcompiler.grad({fn})({at}{', 0.7' if two else ''}{extra})")
    elif transform == "grad2":
        lines.append(f"ga, gb = adcompiler.grad({fn}, argnums=(0, 1))({at}, y * 0.3{extra})")
        lines.append("g = ga * gb + ga")
    elif transform == "value_and_grad":
        lines.append(f"v, g = adcompiler.value_and_grad({fn})({at}{extra})")
        lines.append("g = g + v")
    else:  # jvp of the module-level function, y handed with no tangent
        tangent = "np.ones_like(x)" if vector else "1.0"
        zero = "np.zeros_like(y)" if vector else "0.0"
        lines.append(f"v, g = adcompiler.jvp(inner, ({at}, y), ({tangent}, {zero}))")
    outer = rng.choice(["g * x", "g * y + x * x", "np.tanh(g) * y", "g + np.sin(x * y)"])
    lines.append(f"return {total.format(outer)}")
    source = "\n".join(head) + "def f(x, y):\n" + "".join(f"    {line}\n" for line in lines)
    return Program(source, vector)


def _load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(prog: Program, seed: int, directory: str, k: int, numba: bool = False) -> str:
    """ "ok", "refusal: ..." or "failure: ..." for one program at one random point (``numba``: its gradient
    under ``backend="numba"`` too, against the python target's)."""
    import numpy as np

    import adcompiler
    from ..cli.main import main
    from ..errors import UnsupportedSyntaxError
    from .oracle import check_both_modes

    path = os.path.join(directory, f"nested_calls_{k}.py")
    with open(path, "w") as fh:
        fh.write(prog.source)
    module = _load(path, f"_adc_nested_calls_{os.getpid()}_{k}")
    gen = np.random.default_rng(seed)
    args = tuple(gen.uniform(-1.0, 1.0, 3) if prog.vector else float(gen.uniform(-1.0, 1.0)) for _ in range(2))
    try:
        check_both_modes(module.f, args)
        want = adcompiler.grad(module.f, argnums=(0, 1))(*args)
        out = os.path.join(directory, f"nested_calls_{k}_ad.py")
        if main(["compile", path, "--function", "f", "--mode", "reverse", "-o", out]) != 0:
            return "failure: adc compile refused what differentiate took"
        if not prog.vector:  # (the written module assumes numbers for parameters it reads as numbers)
            got = _load(out, f"_adc_nested_calls_{os.getpid()}_{k}_ad").f_reverse(*args)[1]
            for a, b in zip(got, want):
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg="the written module")
        if numba:
            got = adcompiler.differentiate(module.f, backend="numba").grad(*args)
            for a, b in zip(got, want):
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg="backend numba")
    except UnsupportedSyntaxError as exc:
        return f"refusal: {exc}"
    except Exception as exc:  # noqa: BLE001 - a wrong value or an internal error
        return f"failure: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}"
    return "ok"


def run(programs: int, seed: int, out_dir: str | None = None, numba: bool = False) -> dict:
    """Counts of one campaign: programs, ok, refusals, failures (each written to ``out_dir``)."""
    checked = lambda prog, point, directory, k: check(prog, point, directory, k, numba)  # noqa: E731
    return campaign(program, checked, programs, seed, out_dir, "adc_nested_calls_")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None)
    parser.add_argument("--numba", action="store_true", help='each gradient under backend="numba" too')
    a = parser.parse_args(argv)
    counts = run(a.programs, a.seed, a.out, a.numba)
    print(", ".join(f"{k} {v}" for k, v in counts.items()))
    return 1 if counts["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
