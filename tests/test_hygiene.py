"""Generated names never clash with the user's; NaN stays NaN; bad cotangents are refused early."""

import math

import pytest

import adcompiler

from . import hygiene_funcs as H
from .oracle import check_grads


@pytest.mark.parametrize(
    "fn,args",
    [
        (H.clash_generated, (0.3, 1.2, -0.7, 0.4)),
        (H.clash_loop, (0.4, 5)),
        (H.clash_builtins, (1.1, -0.6)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_user_names_that_generated_code_also_wants(fn, args):
    wrt = tuple(p for p, a in zip(fn.__code__.co_varnames, args) if isinstance(a, float))
    check_grads(adcompiler.differentiate(fn, wrt=wrt), args, wrt)


def test_nan_input_gives_nan_derivatives_in_both_modes():
    d = adcompiler.differentiate(H.nan_through)
    assert math.isnan(d.grad(float("nan"))) and math.isnan(d.jvp((float("nan"),), (1.0,))[1])


def test_vjp_cotangent_of_the_wrong_structure_is_refused_before_running():
    with pytest.raises(ValueError, match="tuple of 2"):
        adcompiler.differentiate(H.pair).vjp((1.0, 2.0), 1.0)
