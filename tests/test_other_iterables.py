"""A generator, ``range``, ``deque``, set or iterator passed where a list is read (issue 32, item 17): it
was refused with a message blaming the function's code ("returning a value whose kind the arguments do
not decide"); now the argument is refused at the call, named with its type and what to pass instead.
Measuring one (``len``) still works, as before."""

import collections

import pytest

import adcompiler
import iterables_funcs as F

OTHERS = {
    "generator": lambda: (x * 0.5 for x in range(3)),
    "range": lambda: range(3),
    "deque": lambda: collections.deque([0.5, 1.5, 2.0]),
    "set": lambda: {0.5, 1.5},
    "list_iterator": lambda: iter([0.5, 1.5]),
}


@pytest.mark.parametrize("kind", list(OTHERS))
@pytest.mark.parametrize("entry", ["grad", "jvp", "vjp"])
def test_an_iterable_read_as_a_list_is_refused_naming_the_argument(kind, entry):
    d = adcompiler.differentiate(F.total)
    call = {
        "grad": lambda xs: d.grad(xs),
        "jvp": lambda xs: d.jvp((xs,), ([1.0, 1.0, 1.0],)),
        "vjp": lambda xs: d.vjp((xs,), 1.0),
    }[entry]
    with pytest.raises(TypeError, match=rf"total: argument xs is a {kind}\b.*pass a list \(list\(xs\)[);]"):
        call(OTHERS[kind]())


@pytest.mark.parametrize(
    "fn, args, wrt, name",
    [
        (F.first_two, (range(3),), None, "xs"),
        (F.scaled_sum, (collections.deque([1.0, 2.0]), 2.0), "y", "xs"),  # not differentiated, still read
        (F.through_a_helper, (2.0, range(1, 4)), "y", "idx"),  # read by the helper it is handed to
    ],
)
def test_not_differentiated_or_read_in_a_helper(fn, args, wrt, name):
    with pytest.raises(TypeError, match=rf"argument {name} is a (range|deque)"):
        adcompiler.differentiate(fn, wrt=wrt).grad(*args)
    # the remedy the message gives works: a range's integers as floats where it is differentiated
    floats = wrt is None
    listed = tuple(
        (
            ([float(v) for v in a] if floats and isinstance(a, range) else list(a))
            if isinstance(a, (range, collections.deque))
            else a
        )
        for a in args
    )
    adcompiler.differentiate(fn, wrt=wrt).grad(*listed)


def test_measuring_one_is_left_alone():
    d = adcompiler.differentiate(F.measured, wrt="x")
    assert d.grad(0.5, range(3)) == d.grad(0.5, collections.deque([1, 2, 3])) == 3
