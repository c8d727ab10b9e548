"""Runtime helpers of the Numba target: the python target's helpers that dispatch on the kinds of
their arguments with ``isinstance``, written as Numba overloads, which choose their code from the
Numba types of the arguments when the caller is compiled (so the compiled code holds no dispatch).

Each entry is source text copied into the generated module, as ``runtime.HELPERS`` are: a Python
stub that only compiled code calls, and its ``numba.extending.overload``.  Lists of floats reach
compiled code as arrays (see ``numba_target``), so a shadow of one is an array; a tuple's shadow is
a tuple of its elements' shadows, already the structure of the primal (``like`` has nothing to do).
"""

from __future__ import annotations

from .coordinates import COORDINATE_HELPERS
from .scatters import SCATTER_HELPERS
from .by_element import HELPERS as BY_ELEMENT
from .lists import LIST_HELPERS
from .arrays import ARRAY_HELPERS
from .reductions import REDUCTION_HELPERS
from ...rules.families import helper_forms

NUMBA_HELPERS = {
    "polygamma": '''def polygamma(n, x):
    """The n-th derivative of digamma (compiled code only: see the overload below)."""
    raise TypeError("polygamma is called from code numba.njit compiles")


@numba.extending.overload(polygamma)
def _numba_polygamma(n, x):
    """The python helper's series (math.lgamma's derivatives), with no import and the factorials as products."""
    bernoulli = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330)

    def impl(n, x):
        x = float(x)
        reflected = 0.0
        if n == 0 and x < 0.0:  # psi(x) = psi(1 - x) - pi / tan(pi x)
            reflected = -numpy.pi / numpy.tan(numpy.pi * x)
            x = 1.0 - x
        fact = 1.0
        for k in range(2, n + 1):
            fact *= k
        sign = 1.0 if n % 2 == 0 else -1.0
        shift = 0.0
        while x < 16.0 + n:
            shift -= sign * fact / x ** (n + 1)
            x += 1.0
        if n == 0:
            series = numpy.log(x) - 0.5 / x
            for k in range(len(bernoulli)):
                series -= bernoulli[k] / (2 * (k + 1) * x ** (2 * (k + 1)))
            return series + shift + reflected
        series = fact / n / x**n + fact / (2 * x ** (n + 1))
        for k in range(len(bernoulli)):
            ratio = 1.0  # (2k + n - 1)! / (2k)!, k counted from 1
            for j in range(2 * (k + 1) + 1, 2 * (k + 1) + n):
                ratio *= j
            series += bernoulli[k] * ratio / x ** (2 * (k + 1) + n)
        return -sign * series + shift

    return impl
''',
    "thread_count": '''def thread_count():
    """How many threads may run a prange loop's iterations (compiled code only)."""
    raise TypeError("thread_count is called from code numba.njit compiles")


@numba.extending.overload(thread_count)
def _numba_thread_count():
    """NUMBA_NUM_THREADS, the most threads a parallel loop runs on whatever numba.set_num_threads says:
    the chunks a prange loop's iterations are cut into, a row of partial sums each (targets.numba.parallel)."""
    count = numba.config.NUMBA_NUM_THREADS
    return lambda: count
''',
    "zeros_like": '''def zeros_like(x):
    """A zero with the structure of x (compiled code only: see the overload below)."""
    raise TypeError("zeros_like is called from code numba.njit compiles")


@numba.extending.overload(zeros_like)
def _numba_zeros_like(x):
    """0.0 for a number, zeros of x's shape for an array or a list of numbers, a list of zeros of each
    array of a tuple of arrays of one type (a list of weight matrices passed in: ``d_Ws[k] += d_W``, which
    a tuple would refuse), a list or tuple of zeros_like of each element otherwise."""
    types = numba.core.types
    if isinstance(x, types.Number):
        return lambda x: 0.0
    if isinstance(x, types.Array):
        return lambda x: numpy.zeros(x.shape)
    if isinstance(x, (types.List, types.ListType)) and isinstance(x.dtype, types.Number):
        return lambda x: numpy.zeros(len(x))
    if isinstance(x, types.List) and isinstance(x.dtype, types.Boolean):  # a tape of branches: popped only
        return lambda x: [0.0 for e in x]
    if isinstance(x, (types.List, types.ListType)):
        return lambda x: [zeros_like(e) for e in x]
    if isinstance(x, types.UniTuple) and isinstance(x.dtype, types.Array):  # a list of arrays of one type,
        return lambda x: [numpy.zeros(e.shape) for e in x]  # passed as a tuple: a list its adjoints add into
    if isinstance(x, types.BaseTuple):
        items = ", ".join(f"zeros_like(x[{k}])" for k in range(len(x)))
        scope = {"zeros_like": zeros_like}
        exec(f"def impl(x):\\n    return ({items},)", scope)
        return scope["impl"]
    return None
''',
    "zero_array": '''def zero_array(ndim):
    """Zeros of length 1 along each of ndim axes (compiled code only: see the overload below)."""
    raise TypeError("zero_array is called from code numba.njit compiles")


@numba.extending.overload(zero_array, prefer_literal=True)
def _numba_zero_array(ndim):
    """The zero adjoint of an array of ``ndim`` axes before anything is added to it: an array, so that
    the variable keeps one type, which broadcasts as the number 0.0 does (``unbroadcast``, ``array_like``
    and ``scatter_add`` give it the shape it stands for)."""
    if not isinstance(ndim, numba.core.types.IntegerLiteral):
        return None
    shape = "(" + "1, " * ndim.literal_value + ")"
    scope = {"numpy": numpy}
    exec(f"def impl(ndim):\\n    return numpy.zeros({shape})", scope)
    return scope["impl"]
''',
    "zero_of": '''def zero_of(x):
    """The zero adjoint of x, typed from x alone (compiled code only: see the overload below)."""
    raise TypeError("zero_of is called from code numba.njit compiles")


@numba.extending.overload(zero_of)
def _numba_zero_of(x):
    """The zero adjoint of ``x`` before anything is added to it where ``x``'s kind is not known when the
    code is written (the module ``adc compile --target numba`` writes): 0.0 for a number, zeros of length
    1 along each of an array's axes (as ``zero_array``), so that the adjoint keeps one type in a loop.
    Only ``x``'s type is read, never its value: it may be unbound (a loop that did not run)."""
    types = numba.core.types
    if isinstance(x, types.Array):
        shape = "(" + "1, " * x.ndim + ")"
        dtype = "numpy.complex128" if isinstance(x.dtype, types.Complex) else "numpy.float64"
        scope = {"numpy": numpy}
        exec(f"def impl(x):\\n    return numpy.zeros({shape}, {dtype})", scope)
        return scope["impl"]
    if isinstance(x, types.Complex):
        return lambda x: 0j
    return lambda x: 0.0  # (a number; anything else as the number 0.0 was written)
''',
    "zeros_rows": '''def zeros_rows(rows):
    """Zeros in the shape of a list of lists of numbers (compiled code only: see the overload below)."""
    raise TypeError("zeros_rows is called from code numba.njit compiles")


@numba.extending.overload(zeros_rows)
def _numba_zeros_rows(rows):
    """A 2-D array of zeros for a 2-D array (equal-length rows reach compiled code as one: one block
    of memory, a row of it a view); a list of arrays of zeros for a typed list of rows."""
    types = numba.core.types
    if isinstance(rows, types.Array) and rows.ndim == 2:
        return lambda rows: numpy.zeros(rows.shape)
    return lambda rows: [numpy.zeros(len(r)) for r in rows]
''',
    "empty_rows": '''def empty_rows(rows):
    """Uninitialised floats in the shape of a list of lists of numbers (compiled code only: see the
    overload below)."""
    raise TypeError("empty_rows is called from code numba.njit compiles")


@numba.extending.overload(empty_rows)
def _numba_empty_rows(rows):
    """zeros_rows without the zeros, for a shadow every element of which is stored before it is read."""
    types = numba.core.types
    if isinstance(rows, types.Array) and rows.ndim == 2:
        return lambda rows: numpy.empty(rows.shape)
    return lambda rows: [numpy.empty(len(r)) for r in rows]
''',
    "check_index": '''def check_index(x, k):
    """IndexError unless x[k] exists (compiled code only: see the overload below)."""
    raise TypeError("check_index is called from code numba.njit compiles")


@numba.extending.overload(check_index)
def _numba_check_index(x, k):
    """What reading x[k] raises in Python (compiled code reads without a check)."""

    def impl(x, k):
        if not -len(x) <= k < len(x):
            raise IndexError("list index out of range")

    return impl
''',
    "like": '''def like(shadow, x):
    """The shadow in x's structure (compiled code only: see the overload below)."""
    raise TypeError("like is called from code numba.njit compiles")


@numba.extending.overload(like)
def _numba_like(shadow, x):
    """The shadow itself: zeros_like built it in x's structure (the entry restores lists)."""
    return lambda shadow, x: shadow
''',
    "add_into": '''def add_into(acc, ct):
    """Add ct into the shadow acc (compiled code only: see the overload below)."""
    raise TypeError("add_into is called from code numba.njit compiles")


@numba.extending.overload(add_into)
def _numba_add_into(acc, ct):
    """acc[k] += ct[k] for every k: acc is an array or list of numbers, ct an array, list or tuple of them."""
    types = numba.core.types
    if isinstance(acc, types.Array) and acc.ndim == 2 and isinstance(ct, types.Array) and ct.ndim == 2:

        def rows(acc, ct):
            if acc.shape != ct.shape:
                if ct.size != 1:  # (one value: a zero_array, which broadcasts as the number 0.0 does)
                    raise ValueError("a cotangent with a number of values other than the list's")
                acc += ct.ravel()[0]
            else:
                acc += ct

        return rows
    if isinstance(acc, types.List) and isinstance(acc.dtype, types.List) and isinstance(ct, types.Array) and ct.ndim == 2:

        def nested(acc, ct):  # the shadow of a list of lists of numbers (np.array([[c, -s], [s, c]])'s rows)
            if len(acc) != ct.shape[0]:
                raise ValueError("a cotangent with a number of values other than the list's")
            for k in range(len(acc)):
                row = acc[k]
                if len(row) != ct.shape[1]:
                    raise ValueError("a cotangent with a number of values other than the list's")
                for j in range(len(row)):
                    row[j] += ct[k, j]

        return nested
    if isinstance(acc, types.List) and isinstance(acc.dtype, types.Array):  # a list of arrays: each a new sum

        def arrays(acc, ct):
            if len(acc) != len(ct):
                raise ValueError("a cotangent with a number of values other than the list's")
            for k in range(len(acc)):
                acc[k] = acc[k] + ct[k]

        return arrays
    numbers = isinstance(acc, types.Array) and acc.ndim == 1 or isinstance(acc, types.List) and isinstance(acc.dtype, types.Number)
    if numbers:

        def impl(acc, ct):
            one = len(ct) == 1 and len(acc) != 1  # a zero_array, which broadcasts as the number 0.0 does
            if len(acc) != len(ct) and not one:
                raise ValueError("a cotangent with a number of values other than the list's")
            for k in range(len(acc)):
                acc[k] += ct[0] if one else ct[k]

        return impl
    return None
''',
    "like_arrays": '''def like_arrays(shadow, x):
    """The shadow in x's structure (compiled code only: see the overload below)."""
    raise TypeError("like_arrays is called from code numba.njit compiles")


@numba.extending.overload(like_arrays)
def _numba_like_arrays(shadow, x):
    """The shadow itself: zeros_like built it in x's structure (the entry restores lists and dtypes)."""
    return lambda shadow, x: shadow
''',
    "unbroadcast": '''def unbroadcast(g, x):
    """g summed down to x's shape (compiled code only: see the overload below)."""
    raise TypeError("unbroadcast is called from code numba.njit compiles")


@numba.extending.overload(unbroadcast)
def _numba_unbroadcast(g, x):
    """The adjoint of broadcasting x up to g's shape: g summed over the leading axes x lacks and the
    axes of length 1 x has where g's are longer; a number x gets the sum."""
    types = numba.core.types
    if not isinstance(g, types.Array):
        if isinstance(x, types.Array):
            return lambda g, x: numpy.full(x.shape, g)
        return lambda g, x: g
    if not isinstance(x, types.Array) or x.ndim == 0:
        return lambda g, x: g.sum()
    if g.ndim < x.ndim:
        return None

    if g.ndim == x.ndim:

        def same(g, x):
            if g.shape == x.shape:
                return g
            if g.size == 1 and x.size != 1:  # a zero_array (a cotangent is never smaller than its operand)
                return numpy.full(x.shape, g.ravel()[0])
            if narrower(g, x.shape):  # (g of a zero_array times the other operand: alike along x's other axes)
                return unbroadcast_summed(g + numpy.zeros(x.shape, g.dtype), x.shape)
            return unbroadcast_summed(g, x.shape)

        return same

    def more(g, x):
        if narrower(g, x.shape):
            return unbroadcast_summed(g + numpy.zeros(x.shape, g.dtype), x.shape)
        return unbroadcast_summed(g, x.shape)

    return more


@numba.njit
def narrower(g, shape):
    """Whether g has length 1 along an axis where x, of ``shape``, is longer: g is the product of a zero_array
    (the zero adjoint of a result no use of which ran) and the other operand, the same along that axis, as the
    python target's unbroadcast takes it."""
    lead = g.ndim - len(shape)
    for k in range(len(shape)):
        if g.shape[lead + k] == 1 and shape[k] != 1:
            return True
    return False


@numba.njit
def unbroadcast_summed(g, shape):
    """Each element of g added into the element of x (of ``shape``, so compiled once for every dtype and
    layout of x) it was broadcast from: g read in C order, in blocks of its last two axes (the axes next
    to each other that x keeps, or sums, alike taken as one), the place in
    x of each block's start kept as g's index moves (no division an element); a row that x sums is summed
    first.  A function of the module, not of the overload (a function compiled apart in it would be a
    dynamic global of its caller, which Numba does not cache)."""
    lead = g.ndim - len(shape)
    cells = 1
    for k in range(len(shape)):
        if shape[k] != 1 and shape[k] != g.shape[lead + k]:
            raise ValueError("operands could not be broadcast together")
        cells *= shape[k]
    out = numpy.zeros(cells, g.dtype)
    flat = numpy.ravel(g)
    if flat.size == 0:
        return out.reshape(shape)
    sizes = numpy.ones(g.ndim, numpy.int64)  # g's axes, those of length 1 left out, alike neighbours merged
    steps = numpy.zeros(g.ndim, numpy.int64)  # how far x's place moves a step along each of them (0: summed)
    m, scale = 0, 1
    for k in range(g.ndim - 1, -1, -1):
        size = g.shape[k]
        step = 0 if k < lead or shape[k - lead] == 1 else scale
        if k >= lead:
            scale *= shape[k - lead]
        if size == 1:
            continue
        if m > 0 and (step == 0 and steps[m - 1] == 0 or step != 0 and step == steps[m - 1] * sizes[m - 1]):
            sizes[m - 1] *= size
        else:
            sizes[m], steps[m] = size, step
            m += 1
    if m == 0:
        out[0] += flat[0]
        return out.reshape(shape)
    sizes, steps = sizes[:m][::-1].copy(), steps[:m][::-1].copy()  # outermost first
    width, along = sizes[m - 1], steps[m - 1]
    rows, across = (sizes[m - 2], steps[m - 2]) if m > 1 else (1, 0)  # a block: the last two axes
    index = numpy.zeros(m, numpy.int64)
    start = 0
    for block in range(flat.size // (rows * width)):
        for r in range(rows):
            n, at = (block * rows + r) * width, start + r * across
            part = flat[n : n + width]
            if along == 0:
                total = part[0]
                for j in range(1, width):
                    total += part[j]
                out[at] += total
            elif along == 1:
                into = out[at : at + width]
                for j in range(width):
                    into[j] += part[j]
            else:
                for j in range(width):
                    out[at + j * along] += part[j]
        k = m - 3
        while k >= 0:  # the next block: g's index moved on, x's place with it
            index[k] += 1
            start += steps[k]
            if index[k] < sizes[k]:
                break
            start -= steps[k] * sizes[k]
            index[k] = 0
            k -= 1
    return out.reshape(shape)
''',
    "unreduce": '''def unreduce(g, x, axis=None, keepdims=False):
    """g spread over x's shape (compiled code only: see the overload below)."""
    raise TypeError("unreduce is called from code numba.njit compiles")


@numba.extending.overload(unreduce)
def _numba_unreduce(g, x, axis=None, keepdims=False):
    """The adjoint of a sum of x: g at every element of x (a number for a number x; of an array g, a sum
    with keepdims, its one entry); along one axis (an integer, negative from the end), g's entry of each
    line along it."""
    types = numba.core.types
    if isinstance(axis, types.Integer) and isinstance(x, types.Array) and isinstance(g, types.Array):
        if g.ndim == x.ndim:  # keepdims: g broadcasts as it is
            return lambda g, x, axis=None, keepdims=False: numpy.broadcast_to(g, x.shape).copy()

        def along(g, x, axis=None, keepdims=False):
            return numpy.broadcast_to(numpy.expand_dims(g, axis if axis >= 0 else axis + x.ndim), x.shape).copy()

        return along
    if isinstance(axis, types.Integer) and isinstance(x, types.Array) and x.ndim == 1:  # (a vector's one axis,
        axis = None  # the builtin sum(d): g a number, at every element)
    if not isinstance(axis, (types.NoneType, types.Omitted)) and axis is not None:
        return None
    if isinstance(x, types.Array) and isinstance(g, types.Array):  # keepdims: g of x's ndim, each axis 1 long
        return lambda g, x, axis=None, keepdims=False: numpy.full(x.shape, g.ravel()[0])
    if isinstance(x, types.Array) and isinstance(g, (types.Integer, types.Boolean)):  # n * np.sum(x): of x's floats
        dtype = x.dtype if isinstance(x.dtype, types.Float) else types.float64
        return lambda g, x, axis=None, keepdims=False: numpy.full(x.shape, g, dtype)
    if isinstance(x, types.Array) and isinstance(x.dtype, types.Float) and isinstance(g, types.Float):
        dtype = x.dtype  # (a number spread over float32 entries: float32, as NumPy's weak scalar gives)
        return lambda g, x, axis=None, keepdims=False: numpy.full(x.shape, g, dtype)
    if isinstance(x, types.Array):
        return lambda g, x, axis=None, keepdims=False: numpy.full(x.shape, g)
    return lambda g, x, axis=None, keepdims=False: g
''',
    "spread_along": '''def spread_along(g, x, axis):
    """unreduce(g, x, axis) as an operand of what has x's shape (compiled code only: see the overload below)."""
    raise TypeError("spread_along is called from code numba.njit compiles")


@numba.extending.overload(spread_along)
def _numba_spread_along(g, x, axis):
    """unreduce(g, x, axis) where it is an operand of arithmetic with x itself (``z * unreduce(g, z, 1)``, the
    adjoint of ``np.sum(z * z, axis=1)``): g with the summed axis put back with length 1, which the arithmetic
    broadcasts along x's, so that Numba's loop of the expression reads g instead of an array of x's shape
    made first (of a number g, g)."""
    if not isinstance(g, numba.core.types.Array):
        return lambda g, x, axis: g
    return lambda g, x, axis: numpy.expand_dims(g, axis if axis >= 0 else axis + x.ndim)
''',
    "add_at": '''def add_at(shadow, index, value):
    """shadow[index] += value (compiled code only: see the overload below)."""
    raise TypeError("add_at is called from code numba.njit compiles")


@numba.extending.overload(add_at, prefer_literal=True)
def _numba_add_at(shadow, index, value):
    """shadow[index] += value; for a tuple (of arrays), added into the array in place."""
    types = numba.core.types
    if not isinstance(shadow, types.BaseTuple):

        def impl(shadow, index, value):
            shadow[index] += value

        return impl
    if not isinstance(index, types.IntegerLiteral) or not isinstance(shadow[index.literal_value], types.Array):
        return None
    k = index.literal_value

    def into_tuple(shadow, index, value):
        numpy.add(shadow[k], value, shadow[k])

    return into_tuple
''',
    "sum_all": '''def sum_all(g):
    """numpy.sum(g) (compiled code only: see the overload below)."""
    raise TypeError("sum_all is called from code numba.njit compiles")


@numba.extending.overload(sum_all)
def _numba_sum_all(g):
    """numpy.sum(g) of an array; a number itself."""
    if isinstance(g, numba.core.types.Array):
        return lambda g: numpy.sum(g)
    return lambda g: g
''',
    "power_of": '''def power_of(a, b):
    """a ** b (compiled code only: see the overload below)."""
    raise TypeError("power_of is called from code numba.njit compiles")


@numba.extending.overload(power_of)
def _numba_power_of(a, b):
    """a ** b.  Of two integers Python's power is a float where b is negative (2 ** -1 is 0.5) and an integer
    of any size otherwise, where Numba's is a 64-bit integer (0, and 10 ** 20 wrapped): one type a
    variable, so the integer power, with an error where Python's would differ, saying what to write."""
    types = numba.core.types
    if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
        return lambda a, b: a ** b

    def integers(a, b):
        if b < 0:
            raise ValueError("an integer to a negative integer power (a float in Python) in compiled code: write the base as a float (2.0 ** k)")
        if b > 1 and abs(float(a)) ** b >= 9.2e18:
            raise ValueError("an integer power past 64 bits (an int of any size in Python) in compiled code: write the base as a float (10.0 ** k)")
        return a ** b

    return integers
''',
    "sum_product": '''def sum_product(a, b):
    """numpy.sum(a * b) (compiled code only: see the overload below)."""
    raise TypeError("sum_product is called from code numba.njit compiles")


@numba.extending.overload(sum_product)
def _numba_sum_product(a, b):
    """numpy.sum(a * b), which the derivatives of products and norms take (``sum_all(g * x)``, ``(x *
    dx).sum()``): for two vectors of float64 of one length, a loop adding their products in order, the
    sum Numba's makes of the array of them, without that array (a quarter of the arrays GradBench
    particle's derivatives make); else the sum of the product; of numbers, their product."""
    types = numba.core.types
    if not (isinstance(a, types.Array) or isinstance(b, types.Array)):
        return lambda a, b: a * b
    vectors = all(isinstance(t, types.Array) and t.ndim == 1 and t.dtype == types.float64 for t in (a, b))
    if not vectors:
        return lambda a, b: numpy.sum(a * b)

    def impl(a, b):
        n = a.shape[0]
        if b.shape[0] != n:  # (broadcast from length 1, or NumPy's error)
            return numpy.sum(a * b)
        s = 0.0
        for k in range(n):
            s += a[k] * b[k]
        return s

    return impl
''',
    "add_new": '''def add_new(acc, c):
    """acc + c (compiled code only: see the overload below)."""
    raise TypeError("add_new is called from code numba.njit compiles")


@numba.extending.overload(add_new)
def _numba_add_new(acc, c):
    """acc + c: this target's own code keeps acc += c (modes.owned), this is for code differentiated again."""
    return lambda acc, c: acc + c
''',
}

NUMBA_HELPERS.update(SCATTER_HELPERS)  # adjoints of reading and writing at an index (scatters)
NUMBA_HELPERS.update(COORDINATE_HELPERS)  # x[(rows, cols)] read and written (numba_coordinates)
NUMBA_HELPERS.update(LIST_HELPERS)  # lists joined and repeated (numba_lists)
NUMBA_HELPERS.update(BY_ELEMENT)  # elementwise cotangents added by element (by_element)
NUMBA_HELPERS.update(ARRAY_HELPERS)  # adjoints of a @ b, distinct (numba_arrays)
NUMBA_HELPERS.update(REDUCTION_HELPERS)  # np.min, np.mean, ... along an axis
NUMBA_HELPERS.update(helper_forms("numba"))  # of the primitives written as records (rules.families)
