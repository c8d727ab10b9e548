"""A fixed-seed slice of the API-boundary fuzzer (adcompiler.testing.boundary): random functions of
records, lists and tuples holding floats, float64 and float32 arrays and integers, returning numbers,
dicts, lists and nested tuples, through every entry point (jvp, vjp, grad, value_and_grad,
adcompiler.jvp / vjp, jacfwd, jacrev) against central differences and the structures, None at
integers and dtypes written out from the arguments."""

import random
import warnings

import numpy as np

from adcompiler.testing import boundary


def test_a_slice_of_the_boundary_fuzzer(tmp_path):
    rng = random.Random(32)
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in range(12):
            program = boundary.generate(rng)
            results.append(boundary.check(program, rng.randrange(2**31), str(tmp_path), k))
    failures = [r for r in results if r != "ok"]
    assert not failures, failures[0]


def test_the_oracle_sees_what_the_issue_saw():
    """The structure check itself: an integer's gradient must be None, a float's a float, float32 kept,
    and a record output's tangent a record."""
    like = {"w": np.ones(2, np.float32), "n": 3, "s": 2.0}
    assert boundary.structure_problem({"w": np.ones(2, np.float32), "n": None, "s": 1.0}, like, "g", True) == ""
    assert "integer" in boundary.structure_problem({"w": np.ones(2, np.float32), "n": 3.0, "s": 1.0}, like, "g", True)
    assert "a float" in boundary.structure_problem(
        {"w": np.ones(2, np.float32), "n": None, "s": np.float32(1)}, like, "g", True
    )
    assert "float64" in boundary.structure_problem({"w": np.ones(2), "n": None, "s": 1.0}, like, "g", True)
    assert "tuple for dict" in boundary.structure_problem((1.0, 2.0), {"a": 1.0, "b": 2.0}, "tangent")
    assert boundary.float_leaves(like)[1] == 2.0 and len(boundary.float_leaves(like)) == 2


def test_generator_is_deterministic():
    a = [boundary.generate(random.Random(7)).source for _ in range(2)]
    assert a[0] == a[1]
