"""Under ``backend="numba"`` a list argument goes into compiled code as an array: the function's writes into it
reached that array only, and the caller's list stayed as it was (every entry point, silently), where the python
target and the function itself change it.  The entry now writes the array's entries back into the caller's lists.
Checked on hand-written functions and on random programs of the aliasing generator (writes through aliases,
helpers that fill the list they are handed, loops of overwrites), each called through every entry point."""

import copy
import importlib.util
import random

import pytest

pytest.importorskip("numba")

import adcompiler  # noqa: E402
import alias_gen  # noqa: E402
import red_team_funcs as R  # noqa: E402
from adcompiler.errors import UnsupportedSyntaxError  # noqa: E402

CALLS = {
    "value": lambda d, args: d.value(*args),
    "grad": lambda d, args: d.grad(*args),
    "vjp": lambda d, args: d.vjp(tuple(args), 1.0),
    "jvp": lambda d, args: d.jvp(tuple(args), tuple(copy.deepcopy(a) for a in args)),
}


def _after(fn, args):
    """The arguments as calling ``fn`` itself leaves them."""
    args = copy.deepcopy(args)
    fn(*args)
    return args


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize(
    "f, args", [(R.doubled_in_place, ([0.3, 0.5, -1.0],)), (R.rows_doubled_in_place, ([[0.3, 1.0], [0.5, 2.0]],))]
)
def test_the_callers_list_is_changed_as_the_function_changes_it(f, args, call):
    d = adcompiler.differentiate(f, backend="numba")
    given = copy.deepcopy(args)
    CALLS[call](d, given)
    assert given == _after(f, args)  # (doubled: the same numbers bit for bit)


def test_an_argument_holding_one_row_twice_that_the_function_changes_is_refused():
    rows = [[0.3, 1.0]]
    rows.append(rows[0])  # (the same row twice: rows_doubled_in_place doubles it twice)
    with pytest.raises(ValueError, match="holds one list twice"):  # (refused, as under backend="python")
        adcompiler.differentiate(R.rows_doubled_in_place, backend="numba").grad(rows)


def _programs(tmp_path, count):
    sources = [alias_gen.list_function(random.Random(20261202 + k), f"f{k}") for k in range(count)]
    path = tmp_path / "numba_list_writes.py"
    path.write_text(alias_gen.module(sources))
    spec = importlib.util.spec_from_file_location("numba_list_writes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [getattr(module, f"f{k}") for k in range(count)], sources


def test_random_list_programs_change_the_callers_lists_as_python_does(tmp_path):
    functions, sources = _programs(tmp_path, 6)
    compared = 0
    for fn, source in zip(functions, sources):
        rng = random.Random(fn.__name__)
        args = [rng.uniform(-1, 1), rng.uniform(-1, 1), [rng.uniform(-1, 1) for _ in range(3)]]
        args.append([rng.uniform(-1, 1) for _ in range(3)])
        expected = _after(fn, args)
        d = adcompiler.differentiate(fn, backend="numba")
        for call in ("value", "grad"):
            given = copy.deepcopy(args)
            try:
                CALLS[call](d, given)
            except UnsupportedSyntaxError:
                break  # (a located refusal: what the target does not compile)
            assert type(given[2]) is list and type(given[3]) is list
            assert _flat(given) == pytest.approx(_flat(expected), rel=1e-12, abs=1e-15), f"{call}:\n{source}"
            compared += 1
    assert compared >= 6


def _flat(x) -> list:
    return [v for e in x for v in _flat(e)] if isinstance(x, (list, tuple)) else [x]


@pytest.mark.parametrize(
    "f, x",
    [
        (R.through_a_factorys_closure, 0.7),
        (R.through_a_helper_reading_the_modules_dict, __import__("numpy").array([0.3, -0.2])),
    ],
)
def test_the_value_of_a_helper_reading_a_list_or_dict_it_does_not_take_as_an_argument(f, x):
    """``d.value`` under Numba called such a helper compiled as written, where Numba types no list of a closure
    and no dict of the module (refused in Numba's words, "OverloadSelector object ..."), though ``d.grad`` ran
    the helper's generated code; the value's call of it now runs its generated code too."""
    d = adcompiler.differentiate(f, backend="numba")
    assert d.value(x) == pytest.approx(f(x), rel=1e-14)
    assert d.grad(x) == pytest.approx(adcompiler.differentiate(f).grad(x), rel=1e-12)
