"""Helpers that generated code may call, kept as source text.

Generated modules must run where adcompiler is not installed, so a helper is
copied into each module that uses it (under a name nothing else uses).  Each
is small, plain Python in the supported subset.
"""

from .runtime_numpy import NUMPY_HELPERS

HELPERS = {
    "argmax": '''def argmax(xs):
    """The index of the first largest element: the one max(xs) returns."""
    if len(xs) == 0:
        raise ValueError("max() arg is an empty sequence")
    best = 0
    for k in range(1, len(xs)):
        if xs[k] > xs[best]:
            best = k
    return best
''',
    "argmin": '''def argmin(xs):
    """The index of the first smallest element: the one min(xs) returns."""
    if len(xs) == 0:
        raise ValueError("min() arg is an empty sequence")
    best = 0
    for k in range(1, len(xs)):
        if xs[k] < xs[best]:
            best = k
    return best
''',
    "reject_ints": '''def reject_ints(arrays_expected, *args):
    """Refuse to differentiate with respect to an int: the derivative would silently be of a float."""
    for k, a in enumerate(args):
        kind = type(a)
        if kind is float:
            continue
        if kind is int or kind is bool or kind.__module__ == "numpy" and kind.__name__.startswith(("int", "uint", "bool")):
            raise TypeError(f"cannot differentiate with respect to argument {k + 1}, the integer {a!r}; pass a float ({float(a)!r})")
        if arrays_expected:
            continue
        first = a[0] if kind in (list, tuple) and a else a
        if kind.__name__ == "ndarray" or type(first).__name__ == "ndarray":
            raise TypeError(f"argument {k + 1} is a NumPy array, but this gradient was generated for numbers; call it through the object adcompiler.differentiate returned")
''',
    "thread_count": '''def thread_count():
    """How many chunks a prange loop's iterations are cut into: one in Python (targets.numba.parallel)."""
    return 1
''',
    "zeros_like": '''def zeros_like(x, made=None):
    """A zero with the structure of x: 0.0 for a number, a list of zeros for a list or tuple; a list x holds
    twice (or holds and is: a tuple of a list and a list in it) has one list of zeros, as it is one list."""
    if isinstance(x, (list, tuple)):
        kinds = set(map(type, x))
        if list not in kinds and tuple not in kinds:  # no element is a list: every one starts at 0.0
            return [0.0] * len(x) if made is None else made.setdefault(id(x), [0.0] * len(x))
        made = {} if made is None else made
        if id(x) not in made:
            made[id(x)] = [zeros_like(e, made) if isinstance(e, (list, tuple)) else 0.0 for e in x]
        return made[id(x)]
    return 0.0
''',
    "add_into": '''def add_into(acc, ct):
    """Add the nested list or tuple (or array) ct into the shadow list acc, element by element (ct the number
    0.0: the adjoint of a value no use of which ran, as in a loop's last pass left by break: nothing); an
    array's length read from its shape (array-api-strict's arrays have no len())."""
    if type(ct) is float and ct == 0.0:
        return
    count = ct.shape[0] if hasattr(ct, "shape") else len(ct)
    if len(acc) != count:
        raise ValueError(f"a cotangent of {count} values for a list of {len(acc)}: give one per element")
    for k in range(len(acc)):
        if isinstance(acc[k], list):
            add_into(acc[k], ct[k])
        else:
            acc[k] = acc[k] + ct[k]
''',
    "add_scalars_into": '''def add_scalars_into(acc, src):
    """acc[k] += src[k] for the number elements (list elements are shared, not copied)."""
    for k in range(len(acc)):
        if not isinstance(acc[k], list):
            acc[k] = acc[k] + src[k]
''',
    "add_part_into": '''def add_part_into(acc, whole, start):
    """acc[j] += whole[start + j] for the number elements: the adjoint of a list in a concatenation."""
    for j in range(len(acc)):
        if not isinstance(acc[j], list):
            acc[j] = acc[j] + whole[start + j]
''',
    "add_tiled_into": '''def add_tiled_into(acc, whole):
    """acc[j % len(acc)] += whole[j] for the number elements: the adjoint of the repetition xs * n."""
    for j in range(len(whole)):
        k = j % len(acc)
        if not isinstance(acc[k], list):
            acc[k] = acc[k] + whole[j]
''',
    "add_slice_into": '''def add_slice_into(acc, part, index):
    """acc[index] += part for the number elements: the adjoint of the list slice xs[index]."""
    for k, j in enumerate(range(len(acc))[index]):
        if not isinstance(acc[j], list):
            acc[j] = acc[j] + part[k]
''',
    "like": '''def like(shadow, x):
    """The shadow list of x (numbers and lists) turned into x's structure: tuples where x has tuples."""
    if not isinstance(x, (list, tuple)):
        return shadow
    kinds = set(map(type, x))
    if list not in kinds and tuple not in kinds:  # numbers only
        return tuple(shadow) if isinstance(x, tuple) else shadow
    items = [like(s, e) for s, e in zip(shadow, x)]
    return tuple(items) if isinstance(x, tuple) else items
''',
    "like_arrays": '''def like_arrays(shadow, x):
    """The shadow list of x turned into x's structure: tuples where x has tuples, and each array's
    cotangent an array of its shape and floating dtype (0.0 where nothing reached it)."""
    if isinstance(x, (list, tuple)):
        items = [like_arrays(s, e) for s, e in zip(shadow, x)]
        return tuple(items) if isinstance(x, tuple) else items
    if type(x).__name__ != "ndarray":
        return shadow
    dtype = x.dtype if x.dtype.kind in "fc" else float
    if type(shadow) is type(x) and shadow.shape == x.shape and shadow.dtype == dtype:
        return shadow
    import numpy

    out = numpy.zeros(x.shape, dtype=dtype)
    out[...] = shadow
    return out
''',
}


HELPERS.update(
    {
        "expect": '''def expect(what, spec, value):
    """Raise TypeError unless value is what the code was generated for: spec is "number", "numeric"
    (a number or an array), "any", ("array", ndim), or (kind, items or None, spec of every element)."""
    kind = spec if isinstance(spec, str) else spec[0]
    if kind == "any":
        return
    array = type(value).__name__ == "ndarray"
    if kind == "number":
        ok = isinstance(value, (float, int)) or type(value).__module__ == "numpy" and not array
    elif kind == "numeric":
        ok = isinstance(value, (float, int)) or type(value).__module__ == "numpy"
    elif kind == "array":
        ok = array and spec[1] in (-1, value.ndim)
    else:
        ok = type(value) is {"list": list, "tuple": tuple}.get(kind, type(value)) and isinstance(value, (list, tuple))
        if ok and spec[1] is not None:
            ok = len(value) == len(spec[1])
            for k, item in enumerate(spec[1] if ok else ()):
                expect(what, item, value[k])
        elif ok and spec[2] == "number":  # (NumPy's numbers too: list(a) of an array)
            ok = set(map(type, value)) <= {float, int, bool} or all(
                isinstance(v, (float, int)) or type(v).__module__ == "numpy" and type(v).__name__ != "ndarray"
                for v in value
            )
        elif ok:
            for k, item in enumerate(value):
                expect(what, spec[2], item)
    if not ok:
        raise TypeError(f"this code was generated for {what}, which {value!r:.80} is not; generate it again for this kind (annotate the parameter: x: float, xs: list[float], a: np.ndarray)")
''',
        "revolve": '''def revolve(at, end, free):
    """Binomial checkpointing (Griewank's revolve): the step to run to from the snapshot at step at.

    Steps at .. end - 1 of a loop are still to be reversed, the state at step at is held in a
    snapshot, and free more snapshots may be taken.  The answer is end - 1 when the last of these
    steps is to be reversed now (run the steps before it from the snapshot, then it, taping),
    else the step whose state to keep in a new snapshot.  With s snapshots (the one at step at
    included) and r repetitions (runs of a step before the one that reverses it), C(s + r, s)
    steps can be reversed.  The fewest runs in all come from the fewest r that reach
    n = end - at and the new snapshot m steps on with C(s + r - 2, s) <= m <= C(s + r - 1, s)
    and C(s + r - 2, s - 1) <= n - m <= C(s + r - 1, s - 1) (the upper bounds keep every step
    within r repetitions, the lower ones balance the two sides).  With no free snapshot each step
    is reached from step at.
    """
    n = end - at
    if free == 0 or n <= 2:
        return end - 1
    s = free + 1
    r, most = 0, 1
    while most < n:  # most = C(s + r, s)
        r += 1
        most = most * (s + r) // r
    right = most * s // (s + r)  # C(s + r - 1, s - 1)
    left = (most - right) * (r - 1) // (s + r - 1)  # C(s + r - 2, s)
    return at + max(1, n - right, left)
''',
    }
)

HELPERS.update(
    {
        "argsort": '''def argsort(keys, reverse=False):
    """The permutation sorted(xs, key=..., reverse=...) applies: stable, as sorted is."""
    return sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)
''',
        "fail": '''def fail(*message):
    """A failed assert of the user's code."""
    raise AssertionError(*message)
''',
        "check_rows": '''def check_rows(a, n):
    """Raise unless the rows of the matrix a (or the vector a) hold n numbers: code built for n numbers,
    held as numbers (adcompiler.lower.small_arrays), reads no other length."""
    if a.shape[-1] != n:
        raise ValueError("this derivative was built for another length of rows: call it through adcompiler")
''',
        "check_unpack": '''def check_unpack(xs, n):
    """Raise the ValueError Python's unpacking of xs into n names raises: xs must hold n items."""
    if len(xs) > n:
        raise ValueError("too many values to unpack (expected " + str(n) + ")")
    if len(xs) < n:
        raise ValueError("not enough values to unpack (expected " + str(n) + ", got " + str(len(xs)) + ")")
''',
        "polygamma": '''def polygamma(n, x):
    """The n-th derivative of digamma (n = 0: digamma itself, the derivative of math.lgamma): the
    recurrence psi_n(x) = psi_n(x + 1) - (-1)**n n! / x**(n + 1) up to x >= 16 + n, then the
    asymptotic series with Bernoulli numbers to B_20 (error below 1e-16 there); digamma of a
    negative x by the reflection psi(x) = psi(1 - x) - pi / tan(pi x)."""
    import math

    if n == 0 and x < 0.0:
        return polygamma(0, 1.0 - x) - math.pi / math.tan(math.pi * x)
    fact = math.factorial(n)
    shift = 0.0
    while x < 16.0 + n:
        shift -= (-1) ** n * fact / x ** (n + 1)
        x += 1.0
    bernoulli = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330)
    if n == 0:
        series = math.log(x) - 0.5 / x
        for k, b in enumerate(bernoulli, 1):
            series -= b / (2 * k * x ** (2 * k))
        return series + shift
    series = math.factorial(n - 1) / x**n + fact / (2 * x ** (n + 1))
    for k, b in enumerate(bernoulli, 1):
        series += b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * x ** (2 * k + n))
    return (-1) ** (n + 1) * series + shift
''',
    }
)

HELPERS.update(NUMPY_HELPERS)
