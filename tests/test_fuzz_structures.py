"""A fixed-seed slice of the structures fuzzer (adcompiler.testing.structures): random programs over
lists of (W, b) layers, tuples of arrays through helpers, list slices and concatenation, the same
list passed twice, products of every ndim, writes with repeated indices, recursive determinants,
each checked in both modes against finite differences, the dot-product identity, each cotangent's
structure, and autograd."""

import random
import warnings

import pytest

from adcompiler.testing import structures


@pytest.mark.parametrize("family", structures.FAMILIES, ids=lambda f: f.__name__)
def test_family(family, tmp_path):
    rng = random.Random(2024)
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # autograd's "output seems independent of input"
        for k in range(6):
            program = family(rng)
            results.append(structures.check(program, rng.randrange(2**31), str(tmp_path), k))
    failures = [r for r in results if r != "ok"]
    assert not failures, failures[0]


def test_generator_is_deterministic():
    a = [structures.generate(random.Random(7)).source for _ in range(2)]
    assert a[0] == a[1]
