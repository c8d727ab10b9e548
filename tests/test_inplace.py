"""adcompiler/inplace.py: in-place array changes it can follow are differentiated right (checked against
central differences by tests/alias_oracle.py); the ones it cannot are refused with a located error."""

import inspect

import pytest

np = pytest.importorskip("numpy")

import adcompiler  # noqa: E402
from tests import inplace_funcs as F  # noqa: E402
from tests.alias_oracle import outcome  # noqa: E402

ARGS = {"x": 0.7, "a": np.array([0.3, -0.5, 1.1]), "c": 1.0}
ACCEPTED = [fn for _, fn in inspect.getmembers(F, inspect.isfunction)]


@pytest.mark.parametrize("fn", ACCEPTED, ids=[f.__name__ for f in ACCEPTED])
def test_followed_in_place_changes_have_the_finite_difference_derivative(fn):
    args = tuple(ARGS[p] for p in inspect.signature(fn).parameters)
    assert outcome(fn, args) == "ok"


def test_conditional_expression_with_the_local_chosen():
    assert outcome(F.chosen_array_then_written, (0.7, ARGS["a"], -1.0)) == "ok"


def _stores_in_the_other_branch(x, a):
    """The list holding t is made only in the branch that does not run t += 1.0."""
    t = a * x
    if x >= 0.31:
        ys = [t]
        return np.sum(ys[0])
    else:
        t += 1.0
    return np.sum(t)


@pytest.mark.xfail(
    strict=True,
    reason="false refusal: a list made in one branch is taken to hold t in the other branch too "
    "(the in-place rules follow which values reach a change, not which stores do)",
)
def test_store_in_an_exclusive_branch_does_not_refuse_the_change():
    assert [outcome(_stores_in_the_other_branch, (x, ARGS["a"])) for x in (0.7, -0.6)] == ["ok", "ok"]


def _float_from_a_list_or_a_numpy_number(x, p):
    """t is a float read from a list of floats, or np.sum(x): never an array taken from a list."""
    ys = [p, 2.0 * p]
    t = ys[1] if p > 0.0 else np.sum(x)
    t -= 1.0
    return t


def test_float_from_a_list_merged_with_an_array_is_not_an_array_from_a_list():
    """Abstract values follow ys[1] as the float it is (kinds merged over both arms once refused it)."""
    assert [outcome(_float_from_a_list_or_a_numpy_number, (ARGS["a"], p)) for p in (0.4, -0.4)] == ["ok", "ok"]


@pytest.mark.parametrize(
    "name",
    [
        "same_object_then_written",
        "row_view_then_written",
        "rebound_in_a_loop_then_written",
        "rebound_in_a_branch_then_written",
    ],
)
def test_a_write_seen_through_another_name_is_refused(name):
    """Reverse mode gave 0 for xs[0] here (found by the NumPy fuzzer at seed 777): now a located refusal."""
    from adcompiler.errors import UnsupportedSyntaxError
    from tests import inplace_refused_funcs as R

    with pytest.raises(UnsupportedSyntaxError, match="inplace_refused_funcs.py"):
        adcompiler.differentiate(getattr(R, name)).grad([0.3, 0.5, 0.1, 0.2])


def test_a_float32_array_made_with_a_dtype_named_by_numpy():
    """``np.zeros(3, dtype=np.float32)`` then filled was refused ("the attribute np.float32 is not supported");
    the dtype is a constant as ``dtype="float32"`` is, and ``dtype=x.dtype`` x's, read as the code runs."""

    def filled(x, a):
        out = np.zeros(3, dtype=np.float32)
        for i in range(3):
            out[i] = a[i] * x
        return np.sum(out * a)

    a = np.array([0.3, -0.5, 1.1])
    assert adcompiler.differentiate(filled, wrt=("x",)).grad(0.7, a) == pytest.approx(float(np.sum(a * a)), rel=1e-6)

    def like(x):
        out = np.zeros(3, dtype=x.dtype)
        out[0] = x[0]
        return np.sum(out)

    got = adcompiler.grad(like)(np.ones(3, np.float32))  # (x.dtype read as the code runs: tests/test_dtype_reads.py)
    assert got.dtype == np.float32 and got.tolist() == [1.0, 0.0, 0.0]
