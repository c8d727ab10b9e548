"""Reverse mode by data: the tape plan (a frozen record of the dup form), the record of what the primal
sweep keeps (``Kept``, returned by the adjoint sweep and keyed by sites: places in the function, not
object identities), and the primal sweep as a function of the two (``modes.plan``, ``modes.sweep``,
``modes.primal``)."""

import ast
import dataclasses
import math
from pathlib import Path

import pytest

import adcompiler
from adcompiler.modes.plan import CheckpointPlan, Kept, TapePlan
from adcompiler.modes.primal import primal_sweep
from adcompiler.modes.reverse import sweeps


def nested(xs, y):
    s = 0.0
    for i in range(len(xs)):
        for j in range(3):
            if xs[i] > 0.0:
                s = s + math.sin(xs[i] * y) * j
            else:
                s = s * y
    return s


def looped(x, n):
    for i in range(2):
        k = 0
        while k < n:
            x = math.sin(x) * x
            k = k + 1
    return x


def steps(x):
    for i in range(8):
        x = math.cos(x) * x + 0.1
    return x


def _sweeps(fn, *args, **options):
    """Both sweeps of ``fn`` for the gradient, built again from the facts its gradient was built from."""
    return _built(fn, *args, **options)[0]


def _built(fn, *args, **options) -> tuple:
    """``(sweeps, program)``."""
    d = adcompiler.differentiate(fn, **options)
    d.grad(*args)
    program = d.program
    (key,) = [k for k in program.specs if k[0] == "grad" and k[1] is fn]
    _, _, params, sig = key
    namer = program.namers[fn].child(also=(program.module_names,), report=program.local_names)
    return sweeps(program.facts(fn, sig), params, program, namer), program


def test_the_plan_and_the_record_are_frozen():
    s = _sweeps(nested, [0.5, -1.0], 0.3)
    assert isinstance(s.plan, TapePlan) and isinstance(s.kept, Kept)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.kept.runs = {}
    with pytest.raises(TypeError):  # its tables too
        s.kept.runs[(0,)] = ("x",)
    with pytest.raises(TypeError):
        s.plan.home["x"] = ()


def test_what_a_loop_pushes_is_keyed_by_sites_inside_it():
    """Each pushed run, branch and loop is named by its place; a site's prefixes are the loops around it
    (what a sweep keeping one slot per iteration needs to know)."""
    s = _sweeps(nested, [0.5, -1.0], 0.3)
    kept, plan = s.kept, s.plan
    loops = sorted(plan.parent_loop)  # the outer loop, and the inner one inside its body
    assert len(loops) == 2 and plan.parent_loop[loops[1]] == loops[0] and loops[1][: len(loops[0])] == loops[0]
    assert kept.branches and all(b[: len(loops[1])] == loops[1] for b in kept.branches)  # the branch's direction
    assert all(all(isinstance(k, int) for k in site) for site in list(kept.runs) + list(kept.loops))
    assert set(kept.tapes) >= {("branch", b) for b in kept.branches}


def test_the_same_program_gives_the_same_record():
    assert _sweeps(nested, [0.5, -1.0], 0.3).kept == _sweeps(nested, [0.5, -1.0], 0.3).kept


def test_a_while_loop_keeps_its_trip_count():
    """A while loop's trip count: counted in the primal sweep, pushed after each run of it (inside a for loop)."""
    s = _sweeps(looped, 0.7, 3.0)
    outer, inner = sorted(s.kept.loops)
    assert s.kept.loops[outer].counter is None and not s.kept.loops[outer].saved  # (at the top: nothing pushed)
    assert s.kept.loops[inner].counter is not None and s.kept.loops[inner].saved[0] == s.kept.loops[inner].counter


def test_the_primal_sweep_is_a_function_of_the_plan_and_the_record():
    s, program = _built(nested, [0.5, -1.0], 0.3)
    again = primal_sweep(s.plan, s.kept, s.shadows, program)
    assert again and again == s.primal[len(s.entry) : len(s.entry) + len(again)]


def test_a_checkpointed_loop_has_its_plan_in_the_record():
    s = _sweeps(steps, 0.4, checkpoint=3)
    (plan,) = s.kept.checkpoints.values()
    assert isinstance(plan, CheckpointPlan) and plan.every == 3 and len(plan.state) == 1 and not plan.looped
    assert {"snapshots", "steps", "k", "start"} == set(plan.names)


def test_no_class_of_reverse_mode_has_more_than_thirty_methods():
    """The god class is gone: each class of modes/ (with its bases) does one job."""
    for path in (Path(adcompiler.__file__).parent / "modes").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                assert not node.bases, f"{path.name}: {node.name} is made of mixins"
                methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
                assert len(methods) <= 30, f"{path.name}: {node.name} has {len(methods)} methods"
