"""Shadows of lists and tuples written out from the arguments' abstract values: the zeros a shadow
starts as, and a shadow turned back into its argument's structure (tuples where it has tuples).

The abstract value of an argument was made by looking at every element (``values.describe``), and
the generated code runs only for arguments of that signature, so the structure is known when the
code is generated: ``[([[0.0] * len(r) for r in l[0]], [0.0] * len(l[1])) for l in layers]`` instead
of the runtime helpers ``zeros_like``/``like``, which find it out again on every call by looking at
each element's type (for the paper's network on lists, a quarter of the gradient's time).
"""

from __future__ import annotations

from ..analysis import values as V
from ..ir import expr as E


def zeros(aval, value: E.Expr, fresh) -> E.Expr | None:
    """The shadow of zeros of ``value`` (of abstract value ``aval``): ``0.0`` for a number or an array,
    a list of the zeros of each element for a list or tuple; None where ``aval`` does not say
    (the runtime helper then walks the value).  ``fresh(base)`` names a comprehension's variable."""
    if not isinstance(aval, V.Seq):
        return E.Num(0.0) if _leaf(aval) else None
    if numbers_only(aval):
        return E.BinOp("*", E.List((E.Num(0.0),)), E.Call("len", (value,)))
    if aval.items is not None:
        items = [zeros(a, E.Subscript(value, E.Num(i)), fresh) for i, a in enumerate(aval.items)]
        return None if any(x is None for x in items) else E.List(tuple(items))
    row = fresh("row" if numbers_only(aval.elem) else "item")  # (a matrix's rows; a network's layers)
    inner = zeros(aval.elem, E.Name(row), fresh)
    return None if inner is None else E.ListComp(inner, row, value)


def like(aval, shadow: E.Expr, value: E.Expr, fresh) -> E.Expr | None:
    """The shadow ``shadow`` of ``value`` in ``value``'s structure (tuples where it has tuples; a
    list's shadow itself where everything below is lists or numbers; a floating array's adjoint made an
    array of its shape by ``array_like``, which for those does what the helper ``like_arrays`` does);
    None where ``aval`` does not say (the helper ``like_arrays`` then walks the value)."""
    if isinstance(aval, V.Arr):
        return E.Call("@array_like", (shadow, value)) if aval.dtype in _FLOATING else None
    if not isinstance(aval, V.Seq):
        return shadow if _leaf(aval) else None
    if aval.kind is None:  # a list or a tuple (a signature assumed from the code): the helper looks
        return None
    if _lists_down(aval):
        return shadow
    if numbers_only(aval):  # a tuple of numbers
        if aval.items is not None:  # (d_t[0], d_t[1]): code a second derivative can read
            return E.Tuple(tuple(E.Subscript(shadow, E.Num(i)) for i in range(len(aval.items))))
        return E.Call("tuple", (shadow,))
    if aval.items is not None:
        items = [
            like(a, E.Subscript(shadow, E.Num(i)), E.Subscript(value, E.Num(i)), fresh)
            for i, a in enumerate(aval.items)
        ]
        if any(x is None for x in items):
            return None
        return E.Tuple(tuple(items)) if aval.kind == "tuple" else E.List(tuple(items))
    pair = fresh("pair")  # (an element's shadow, the element), as the helpers zip them: as many as the shorter
    inner = like(aval.elem, E.Subscript(E.Name(pair), E.Num(0)), E.Subscript(E.Name(pair), E.Num(1)), fresh)
    if inner is None:
        return None
    made = E.ListComp(inner, pair, E.Call("zip", (shadow, value)))
    return E.Call("tuple", (made,)) if aval.kind == "tuple" else made


# dtypes whose cotangent is of the array's own dtype for both helpers (an int array's: like_arrays's float64,
# array_like's the least floating dtype holding it)
_FLOATING = ("float16", "float32", "float64", "float128", "complex64", "complex128", "complex256")


def _leaf(aval) -> bool:
    """A number, an array or a constant: its shadow starts as 0.0 (the helper's zero too)."""
    return isinstance(aval, (V.Num, V.Arr, V.Static))


def leaves_only(aval) -> bool:
    """Whether a list's every element is a number, an array (or either) or a constant: none a list or
    tuple, whose shadow a copy of the list shares."""
    if not isinstance(aval, V.Seq):
        return False
    inner = aval.items if aval.items is not None else (aval.elem,)
    return all(_leaf(a) or isinstance(a, V.Numeric) or a is V.BOTTOM for a in inner)


def numbers_only(aval) -> bool:
    """Whether a list's every element is a number (its shadow a flat list of number adjoints)."""
    if not isinstance(aval, V.Seq):
        return False
    return all(isinstance(a, V.Num) for a in (aval.items if aval.items is not None else (aval.elem,)))


def _lists_down(aval) -> bool:
    """Whether every sequence in a value is a list and every leaf a number: its shadow is its cotangent."""
    if not isinstance(aval, V.Seq):
        return isinstance(aval, V.Num)
    inner = aval.items if aval.items is not None else (aval.elem,)
    return aval.kind == "list" and all(_lists_down(a) for a in inner)


def lists_of_numbers(aval) -> bool:
    """Whether a value is a list (or a list of lists, ...) of numbers, read by position only where
    its elements are alike: its shadow is its cotangent."""
    if not isinstance(aval, V.Seq) or aval.kind == "tuple" and not numbers_only(aval):
        return False
    if numbers_only(aval):
        return True
    return aval.items is None and aval.kind == "list" and lists_of_numbers(aval.elem)


def lists_all_down(aval) -> bool:
    """Whether every sequence in a value is a list: its shadow (lists of adjoints) is then its cotangent;
    a tuple inside (a list of ``(x,)`` records) gets its cotangent rebuilt by ``like``, as a tuple."""
    if not isinstance(aval, V.Seq):
        return True
    inner = aval.items if aval.items is not None else (aval.elem,)
    return aval.kind == "list" and all(lists_all_down(a) for a in inner)
