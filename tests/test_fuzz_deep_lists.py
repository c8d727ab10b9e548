"""The fuzzer's generators for issue 32's items 14-16, in CI-sized campaigns: deep programs (long elif
chains, chains of conditional expressions and of ``and`` tests, loop nests to Python's limit), NumPy
functions on list parameters, and every entry point called on one differentiate object in an order drawn
per program, a refusal after another entry point ran (where a fresh object runs the call) a bug."""

import dataclasses
import random
import re

import pytest

from adcompiler.errors import UnsupportedSyntaxError
from adcompiler.testing import fuzz
from adcompiler.testing.fuzz import entries
from adcompiler.testing.fuzz.deep import MAX_LOOPS
from test_fuzz import _format

pytest.importorskip("numpy")

DEEP = dataclasses.replace(fuzz.SMALL, mode="deep")
LISTS = dataclasses.replace(fuzz.SMALL, mode="lists")


def test_deep_ci_run():
    """Deep programs: no mismatch, crash or refusal (IndentationError and exponential building were)."""
    s = fuzz.run(4, 20240611, points=1, stage_every=4, config=DEEP)
    assert s.programs == 4 and s.points_checked >= 2, _format(s)
    assert s.mismatches == 0 and s.crashes == 0 and s.refusals == 0, _format(s)


def test_lists_ci_run():
    """NumPy functions on list parameters (53 of 180 such cases crashed, and np.maximum of two lists had a
    wrong tangent)."""
    s = fuzz.run(20, 20240612, points=2, stage_every=4, config=LISTS)
    assert s.programs == 20 and s.points_checked >= 20, _format(s)
    assert s.mismatches == 0 and s.crashes == 0 and s.refusals == 0, _format(s)


def test_deep_programs_are_deep():
    """The generator writes what it says: elif chains past the depth Python's parser took nested, and loop
    nests of up to twenty blocks."""
    config = dataclasses.replace(fuzz.DEFAULT, mode="deep")
    sources = [fuzz.generate(random.Random(fuzz.program_seed(5, k)), config).source for k in range(60)]
    for source in sources:
        compile(source, "<deep>", "exec")
    assert max(s.count("elif ") for s in sources) > 100
    assert 15 <= max(len(re.findall(r"^ *(for i|while j)", s, re.M)) for s in sources) <= MAX_LOOPS
    assert any(" and " in s for s in sources) and any(" else (" in s or ") if " in s for s in sources)


def test_list_programs_hand_lists_to_numpy():
    sources = [fuzz.generate(random.Random(fuzz.program_seed(5, k)), LISTS).source for k in range(30)]
    assert all(re.search(r"np\.\w+\((xs|ys)\b", s) for s in sources)


def test_every_entry_point_in_an_order_drawn_per_program():
    orders = {entries.order(seed) for seed in range(40)}
    assert all(sorted(o) == sorted(entries.ENTRIES) for o in orders) and len(orders) > 10


class _Refusing:
    """A differentiate object whose vjp is refused as outside a compiled target's subset, or runs."""

    def __init__(self, refuses: bool):
        self.refuses = refuses

    def vjp(self, primals, ct):
        if self.refuses:
            raise UnsupportedSyntaxError('not under backend="numba"', 'use backend="python"', "f.py", 1, 0)
        return 1.0, (2.0,)


@pytest.mark.parametrize(
    "ran, fresh_refuses, bug", [([], False, False), (["grad"], True, False), (["grad"], False, True)]
)
def test_a_refusal_of_code_compiled_before_is_a_bug(ran, fresh_refuses, bug):
    """Outside the subset only where nothing ran before on the object, or a fresh object refuses it too."""
    refusal = UnsupportedSyntaxError('not under backend="numba"', 'use backend="python"', "f.py", 1, 0)
    refusal.fuzz_entry, refusal.fuzz_retry = "vjp", entries.calls((0.5,), (1.0,), 1.0, list)["vjp"]
    found = entries.compiled_before(refusal, ran, lambda: _Refusing(fresh_refuses))
    assert (found is not None) == bug
    if bug:
        assert "vjp refused after grad ran on the same object, where a fresh object runs it" in found
