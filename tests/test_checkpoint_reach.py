"""``checkpoint=True`` where the long loop is in a helper (issue 32, item 17): it changed nothing, silently
(checkpointing applies to loops of the differentiated function itself; a helper is differentiated in two
sweeps and taped as usual).  Now building the reverse code warns, at the user's call, naming the helper's
loop and what to write instead; the derivative is the same (against central differences)."""

import warnings

import pytest

import adcompiler
import checkpoint_reach_funcs as F
from oracle import central_grad


@pytest.mark.parametrize("fn", [F.calls_the_loop, F.calls_a_caller])
@pytest.mark.parametrize("entry", ["grad", "value_and_grad", "vjp", "jacobian"])
@pytest.mark.parametrize("checkpoint", [True, 4, "revolve"])
def test_a_loop_in_a_helper_is_warned_of(fn, entry, checkpoint):
    d = adcompiler.differentiate(fn, checkpoint=checkpoint, wrt="x")
    call = {
        "grad": lambda: d.grad(0.3, 50),
        "value_and_grad": lambda: d.value_and_grad(0.3, 50)[1],
        "vjp": lambda: d.vjp((0.3, 50), 1.0)[1][0],
        "jacobian": lambda: adcompiler.jacobian(d, mode="reverse")(0.3, 50)[0][0],
    }[entry]
    with pytest.warns(UserWarning, match=r"changes nothing in \w+: its loop is in iterate \(.*funcs.py:8\)") as got:
        value = call()
    assert got[0].filename == __file__  # told at the user's call
    assert value == pytest.approx(float(central_grad(lambda x: fn(x, 50), (0.3,), 0)), rel=1e-7)


@pytest.mark.parametrize("fn, checkpoint", [(F.has_its_own_loop, True), (F.calls_the_loop, None)])
def test_no_warning_where_it_applies_or_was_not_asked_for(fn, checkpoint):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        adcompiler.differentiate(fn, checkpoint=checkpoint, wrt="x").grad(0.3, 50)
