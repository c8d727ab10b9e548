"""Dup form: every local variable is read exactly once; the stage still runs."""

import ast
from collections import Counter

import pytest

import adcompiler

from . import stage_funcs as S
from .test_anf import FUNCS, run_stage


def reads(src: str, fname: str) -> Counter:
    fdef = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == fname)
    local = {a.arg for a in fdef.args.args} | {
        n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return Counter(
        n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in local
    )


@pytest.mark.parametrize("fn", FUNCS, ids=lambda f: f.__name__)
def test_every_variable_used_once(fn):
    counts = reads(adcompiler.differentiate(fn).source("dup"), fn.__name__)
    assert counts and max(counts.values()) == 1, counts


@pytest.mark.parametrize("fn", FUNCS, ids=lambda f: f.__name__)
def test_dup_form_runs_and_returns_the_primal_value(fn):
    args = (0.7, 1.3, 0.4, 2.1)[: fn.__code__.co_argcount]
    assert run_stage(fn, "dup", *args) == pytest.approx(fn(*args), rel=1e-15)


def test_n_uses_make_n_minus_one_dups():
    src = adcompiler.differentiate(S.recipe).source("dup")
    # x is read twice and p twice in the recipe: one dup each
    assert src.count("= dup(x)") == 1 and src.count("= dup(p)") == 1


def test_user_variable_named_dup_does_not_clash():
    src = adcompiler.differentiate(S.clashing).source("dup")
    assert "def dup_1(x):" in src and run_stage(S.clashing, "dup", 1.0, 2.0, 3.0, 4.0) == S.clashing(1.0, 2.0, 3.0, 4.0)
