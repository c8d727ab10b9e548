"""Transformation work grows linearly with the length of the function transformed, counted, never timed:
the statements whole-block liveness walks, those the blocks' indexes hold, and the names the namer
tries (benchmarks/bench_transform.py has the times).  Before tidying asked an index instead of
recomputing liveness after each rewrite, the loops' liveness count grew 12.8 times for 4 times the
lines, and the namer's tries 12.6 times for 8 times the lines of straight-line code."""

import importlib.util
import random

import pytest

import adcompiler
from adcompiler.analysis import liveness, positions
from adcompiler.front.names import Namer

TERMS = (
    "{a} * {b} + {c}",
    "{a} - 0.5 * {b}",
    "{a} * math.sin({b})",
    "math.exp(-{a} * {a}) + {b} / (1.0 + {c} ** 2)",
    "math.sqrt(1.0 + {a} * {a}) - {b}",
)


def straight(n: int) -> str:
    """``n`` lines: new variables reading earlier ones, and a few reassigned again and again."""
    rng, names, lines = random.Random(n), ["x", "y", "z"], ["def f(x, y, z):", "    s = 0.0"]
    for i in range(n - 3):
        term = rng.choice(TERMS).format(**{k: rng.choice(names[-10:]) for k in "abc"})
        if i % 3 == 0:
            lines.append(f"    s = s + {term}")
        elif i % 3 == 1:
            lines.append(f"    {rng.choice(names)} = math.tanh({term})")
        else:
            lines.append(f"    v{i} = {term}")
            names.append(f"v{i}")
    return "\n".join(lines + [f"    return s + {names[-1]}"])


def loops(n: int) -> str:
    """About ``n`` lines: loops with branches inside, branches, and straight-line stretches."""
    rng, names, lines = random.Random(n), ["x", "y", "z"], ["def f(x, y, z, k):", "    s = 0.0"]
    while len(lines) < n - 1:
        v = f"v{len(lines)}"
        term = rng.choice(TERMS).format(**{k: rng.choice(names[-10:]) for k in "abc"})
        lines += [
            f"    {v} = {term}",
            "    for j in range(k):",
            f"        {v} = 0.5 * {v} + 0.1 * {term}",
            f"        if {v} > 0.0:",
            f"            s = s + {v} * {rng.choice(names)}",
            "        else:",
            f"            s = s - math.sin({v})",
        ]
        names.append(v)
    return "\n".join(lines + [f"    return s + {names[-1]}"])


def function(source: str, tmp_path, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text("import math\n\n\n" + source + "\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def transform(f, args) -> None:
    """Both modes, built afresh: the first grad and the first jvp."""
    adcompiler.differentiate(f).grad(*args)
    adcompiler.differentiate(f).jvp(args, (1.0, 1.0, 1.0))


def counts(source: str, args, tmp_path, name: str, monkeypatch) -> dict:
    """What transforming ``source`` walked: liveness's statements, indexed statements, namer tries."""
    f = function(source, tmp_path, name)
    tries = {"n": 0}
    free = Namer._free

    def counted(self, candidate):
        tries["n"] += 1
        return free(self, candidate)

    monkeypatch.setattr(Namer, "_free", counted)
    liveness.COUNT["statements"] = positions.COUNT["statements"] = 0
    transform(f, args)
    monkeypatch.undo()
    return {"liveness": liveness.COUNT["statements"], "indexed": positions.COUNT["statements"], "names": tries["n"]}


@pytest.mark.parametrize(
    "make, small, large, args",
    [(straight, 75, 600, (0.3, 0.7, 1.1)), (loops, 75, 300, (0.3, 0.7, 1.1, 2))],
    ids=["straight", "loops"],
)
def test_work_per_line_stays_the_same(make, small, large, args, tmp_path, monkeypatch):
    a = counts(make(small), args, tmp_path, f"small_{make.__name__}", monkeypatch)
    b = counts(make(large), args, tmp_path, f"large_{make.__name__}", monkeypatch)
    growth = large / small
    assert all(b[k] <= 1.5 * growth * max(a[k], 1) for k in a), (a, b)  # quadratic work would grow 64 or 16 times
