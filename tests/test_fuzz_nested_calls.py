"""A fixed-seed slice of the nested-calls fuzzer (adcompiler.testing.nested_calls): derivatives called inside
differentiated functions, the inner function a module-level def, a local def or named lambda reading the
enclosing function's variables, or a lambda in the call, by grad (argnums an int or a tuple),
value_and_grad and jvp, of numbers and vectors; both modes against central differences and the dot-product
identity, the module adc compile writes against the same gradient, and (with Numba) backend="numba"."""

import importlib.util
import random

import pytest

from adcompiler.testing import nested_calls


@pytest.mark.parametrize("seed", [63, 64])
def test_programs(seed, tmp_path):
    numba = importlib.util.find_spec("numba") is not None
    rng = random.Random(seed)
    results = [
        nested_calls.check(nested_calls.program(rng), rng.randrange(2**31), str(tmp_path), k, numba) for k in range(6)
    ]
    failures = [r for r in results if r != "ok"]
    assert not failures, failures[0]


def test_every_spelling_is_drawn():
    sources = [nested_calls.program(random.Random(k)).source for k in range(40)]
    for spelling in (
        "def inner(t",
        "inner = lambda",
        "grad(lambda",
        "value_and_grad(",
        "adcompiler.jvp(",
        "argnums=(0, 1)",
    ):
        assert any(spelling in s for s in sources), spelling
