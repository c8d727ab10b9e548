"""The test modules themselves: no module-level function or class of a file under tests/ is defined twice.

A second ``def`` of a name silently replaces the first: pytest collects only the last of two tests of one
name, and a helper module's later function replaces the one other tests import by that name (2026-11-29:
a second ``numba_funcs.along_axes`` took the place of the one ``test_sums_along_an_axis_...`` meant, and
only the slow run's autograd oracle noticed)."""

import ast
import pathlib

import pytest

TESTS = pathlib.Path(__file__).resolve().parent


def _defined_twice(path: pathlib.Path) -> list:
    seen: dict = {}
    twice = []
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in seen:
                twice.append(f"{path.name}:{node.lineno}: {node.name} (first at line {seen[node.name]})")
            seen.setdefault(node.name, node.lineno)
    return twice


@pytest.mark.parametrize("path", sorted(TESTS.glob("*.py")), ids=lambda p: p.name)
def test_no_module_level_name_is_defined_twice(path):
    assert not _defined_twice(path)
