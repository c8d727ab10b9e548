"""Abstract values in words and as literals: ``show`` for messages ("a list of floats", "a dict {W: a
2-D float64 array}"), ``spec`` for the checks a written module makes of its arguments."""

from __future__ import annotations

from . import values as V


def spec(a: V.Aval):
    """A plain literal for an abstract value (strings and tuples), which the runtime helper ``expect``
    checks a value against: what a written module was generated for."""
    if isinstance(a, V.Num):
        return "number"
    if isinstance(a, V.Arr):
        return ("array", -1 if a.ndim is None else a.ndim)
    if isinstance(a, V.Numeric):
        return "numeric"
    if isinstance(a, V.Seq):
        items = None if a.items is None else tuple(spec(i) for i in a.items)
        return (a.kind or "sequence", items, spec(a.elem) if not isinstance(a.elem, V.Bottom) else "any")
    return "any"


def show(a: V.Aval) -> str:
    """A short human description: 'a float', 'a (3-D float32) array', 'a list of floats'."""
    if isinstance(a, V.Num):
        return {"float": "a float", "int": "an int", "bool": "a bool"}.get(a.dtype, f"a NumPy {a.dtype}")
    if isinstance(a, V.Arr):
        dims = f"{a.ndim}-D " if a.ndim is not None else ""
        return f"a {dims}{a.dtype or ''} array".replace("  ", " ").replace("a array", "an array")
    if isinstance(a, V.Numeric):
        return "a number or an array"
    if isinstance(a, V.Seq) and a.keys is not None:
        what = "a dict" if a.cls is dict else f"a {getattr(a.cls, '__name__', 'record')}"
        return f"{what} {{{', '.join(f'{k}: {show(i)}' for k, i in zip(a.keys, a.items))}}}"
    if isinstance(a, V.Seq):
        kind = a.kind or "list or tuple"
        if a.items is not None and (a.kind == "tuple" or len(set(a.items)) > 1):
            return f"a {kind} ({', '.join(show(i) for i in a.items)})"
        if isinstance(a.elem, V.Bottom):
            return f"an empty {kind}"
        count = f"{len(a.items)} " if a.items is not None else ""  # (a length the code was generated for)
        return f"a {kind} of {count}{_plural(a.elem)}"
    if isinstance(a, V.Static):
        return "a value with no derivative"
    return "a value of unknown kind"


def _plural(a: V.Aval) -> str:
    """'floats', 'lists of floats', '2-D float64 arrays', 'numbers or arrays'."""
    if isinstance(a, V.Numeric):
        return "numbers or arrays"
    if isinstance(a, V.Seq) and not (a.items is not None and (a.kind == "tuple" or len(set(a.items)) > 1)):
        return (
            f"{a.kind or 'list or tuple'}s of {_plural(a.elem)}" if not isinstance(a.elem, V.Bottom) else "empty lists"
        )
    text = show(a)
    for article in ("an ", "a "):
        if text.startswith(article):
            text = text[len(article) :]
            break
    return text + "s" if not text.endswith(")") else text
