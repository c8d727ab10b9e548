"""ANF: every operator is a primitive applied to atoms, and the printed stage runs."""

import ast

import pytest

import adcompiler

from . import stage_funcs as S

FUNCS = [S.recipe, S.reassign, S.polar, S.uses_polar, S.clashing, S.swap]


def run_stage(fn, stage, *args):
    """Execute a printed stage in the function's globals and call the function again."""
    namespace = dict(fn.__globals__)
    exec(
        compile(adcompiler.differentiate(fn).source(stage), "<stage>", "exec"),
        namespace,
    )
    return namespace[fn.__name__](*args)


def test_recipe_anf_matches_the_paper():
    expected = """def recipe(x, y):
    # line 8: p = 7 * x
    p = 7 * x
    # line 9: r = 1 / y
    r = 1 / y
    # line 10: q = p * x * 5
    t1 = p * x
    q = t1 * 5
    # line 11: v = 2 * p * q + 3 * r
    t2 = 2 * p
    t3 = t2 * q
    t4 = 3 * r
    v = t3 + t4
    # line 12: return v
    return v
"""
    assert adcompiler.differentiate(S.recipe).source("anf") == expected


@pytest.mark.parametrize("fn", FUNCS, ids=lambda f: f.__name__)
def test_no_nested_subexpressions(fn):
    tree = ast.parse(adcompiler.differentiate(fn).source("anf"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call)):
            children = (
                [node.left, node.right]
                if isinstance(node, ast.BinOp)
                else [node.operand] if isinstance(node, ast.UnaryOp) else node.args
            )
            assert all(isinstance(c, (ast.Name, ast.Constant, ast.Attribute)) for c in children), ast.unparse(node)


@pytest.mark.parametrize("fn", FUNCS, ids=lambda f: f.__name__)
def test_anf_runs_and_returns_the_primal_value(fn):
    args = (0.7, 1.3, 0.4, 2.1)[: fn.__code__.co_argcount]
    assert run_stage(fn, "anf", *args) == pytest.approx(fn(*args), rel=1e-15)


def test_reassignment_gets_versioned_names():
    src = adcompiler.differentiate(S.reassign).source("anf")
    assert "x_1 = x * y" in src and "x_2 = x_1 + t1" in src
