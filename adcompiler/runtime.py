"""Helpers that generated code may call, kept as source text.

Generated modules must run where adcompiler is not installed, so a helper is
copied into each module that uses it (under a name nothing else uses).  Each
is small, plain Python in the supported subset.
"""

HELPERS = {
    "reject_ints": '''def reject_ints(*args):
    """Refuse to differentiate with respect to an int: the derivative would silently be of a float."""
    for k, a in enumerate(args):
        if type(a) is int:
            raise TypeError(f"cannot differentiate with respect to argument {k + 1}, the int {a!r}; pass a float ({float(a)!r})")
''',
    "zeros_like": '''def zeros_like(x):
    """A zero with the structure of x: 0.0 for a number, a list of zeros for a list or tuple."""
    if isinstance(x, (list, tuple)):
        return [zeros_like(e) if isinstance(e, (list, tuple)) else 0.0 for e in x]
    return 0.0
''',
    "add_into": '''def add_into(acc, ct):
    """Add the nested list or tuple ct into the shadow list acc, element by element."""
    for k in range(len(acc)):
        if isinstance(acc[k], list):
            add_into(acc[k], ct[k])
        else:
            acc[k] += ct[k]
''',
    "add_scalars_into": '''def add_scalars_into(acc, src):
    """acc[k] += src[k] for the number elements (list elements are shared, not copied)."""
    for k in range(len(acc)):
        if not isinstance(acc[k], list):
            acc[k] += src[k]
''',
    "like": '''def like(shadow, x):
    """The shadow list of x turned into x's structure (tuples where x has tuples)."""
    if isinstance(x, (list, tuple)):
        items = [like(s, e) if isinstance(e, (list, tuple)) else s for s, e in zip(shadow, x)]
        return tuple(items) if isinstance(x, tuple) else items
    return shadow
''',
}


# Helpers are primitives when generated code is itself differentiated: what each makes or changes.
MAKES = ("zeros_like", "like")  # return a new (shadow) structure
CHANGES = ("add_into", "add_scalars_into")  # add their second argument into their first, in place
INERT = ("reject_ints",)  # no derivative at all
