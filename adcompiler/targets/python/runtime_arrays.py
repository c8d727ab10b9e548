"""More helpers of generated NumPy derivative code (np.linalg's checks, adjoints of data movement), kept
as source text; ``runtime_numpy`` adds them to its table."""

MORE_HELPERS: dict = {}

MORE_HELPERS.update(
    {
        "sum_all": '''def sum_all(g):
    """numpy.sum(g): all of g's entries added up, by the reduction numpy.sum calls (its own dispatch
    costs twice the sum of a short vector; an array's method calls it quickest); a number's the NumPy
    number numpy.sum makes it."""
    import numpy

    if type(g) is numpy.ndarray:
        return g.sum()
    return numpy.add.reduce(g, None)
''',
        "add_new": '''def add_new(acc, c):
    """acc += c for an element acc of a shadow list, where c is a new array nothing else holds: c itself
    while acc is still the number 0.0 (0.0 + c would be a copy of it)."""
    import numpy

    if type(acc) is float and acc == 0.0 and type(c) is numpy.ndarray and c.dtype.kind in "fc":
        return c
    acc += c
    return acc
''',
        "distinct": '''def distinct(d, *earlier):
    """d, or a copy of it where it is one of the earlier cotangents: two gradients never one array (a
    number, which nothing changes in place, is itself: two zeros may be one object)."""
    for e in earlier:
        if d is e and hasattr(d, "copy"):
            return d.copy()
    return d
''',
        "shape_like": '''def shape_like(x, *others):
    """What the adjoint keeps of an array it reads only for its shape and dtype (the second argument of
    unbroadcast, unreduce, array_like, unjoin's pieces): an array of x's shape and dtype whose every
    entry is one number, in place of x's data; a small array, or anything else, is kept as it is.  With
    others (arrays of x's ndim and dtype): of the shape x and others broadcast to, that of the array
    elementwise arithmetic made of them."""
    import numpy

    if type(x) is not numpy.ndarray:
        return x
    shape = x.shape
    for other in others:
        if other.shape != shape:  # (numpy.broadcast_shapes only where there is something to broadcast)
            shape = numpy.broadcast_shapes(shape, other.shape)
    if shape == x.shape and x.nbytes <= 512:  # (too small to be worth an object of its own)
        return x
    like = numpy.ndarray(shape, x.dtype, numpy.zeros(1, x.dtype), 0, (0,) * len(shape))
    like.flags.writeable = False  # (every entry is one memory: nothing may write it)
    return like
''',
        "add_at": '''def add_at(d, x, index, v):
    """numpy.add.at on a copy: d (an array shaped like x, or a number) with v added at x[index],
    repeated indices adding up."""
    import numpy

    out = numpy.zeros(numpy.shape(x), dtype=numpy.result_type(x, d, v, numpy.float32)) + d
    numpy.add.at(out, index, v)
    return out
''',
        "add_at_vjp": '''def add_at_vjp(g, index, v):
    """The cotangent of v in numpy.add.at(y, index, v): g read at index (each repeat once), summed to
    v's shape where v was broadcast."""
    import numpy

    got = numpy.asarray(g)[index]
    shape = numpy.shape(v)
    while numpy.ndim(got) > len(shape):
        got = got.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and got.shape[axis] != 1:
            got = got.sum(axis=axis, keepdims=True)
    return got if shape else got[()] if isinstance(got, numpy.ndarray) else got
''',
        "linalg_check": '''def linalg_check(x, kind, *others):
    """x, once the decomposition it comes from is known to have a derivative: qr of a matrix with no
    more columns than rows, u or vh of an svd no wider than the reduced one's (see rules/linalg.py),
    lstsq of a matrix of full rank."""
    import numpy

    problem = None
    if kind == "qr" and numpy.shape(x)[-2] < numpy.shape(x)[-1]:
        problem = "the derivative of np.linalg.qr of a wide matrix (more columns than rows) is not supported: differentiate qr of its transpose"
    if kind == "svd" and not numpy.shape(x)[-1] == numpy.shape(others[0])[-1] == numpy.shape(others[1])[-2]:
        problem = "np.linalg.svd(a) with full_matrices=True of a matrix that is not square: the columns of u (rows of vh) past min(a.shape) span the rest of the space, and a basis of it has no unique derivative: pass full_matrices=False (s alone, or u of a wide matrix, vh of a tall one, are differentiated as they are)"
    if kind == "lstsq" and others[0] < min(numpy.shape(others[1])[-2:]):
        problem = "the derivative of np.linalg.lstsq of a matrix without full rank is not supported (its solution is not differentiable there)"
    if problem is None:
        return x
    import linecache
    import sys

    caller = sys._getframe(1)  # the derivative code, whose line came from one of the user's
    at, code = caller.f_lineno, caller.f_code.co_filename
    origins = sys.modules.get("adcompiler.compile.origins")  # (loaded by adcompiler: it knows the file)
    told = origins.LOADED.get(code) if origins is not None else None
    line, text, _ = told.at(at) if told is not None else (None, None, None)
    source = told.file_at(at) if line is not None else None
    if source is not None:
        raise ValueError(f"{source}:{line}: {problem} (at `{text}`)")
    while at > 1 and not linecache.getline(code, at).lstrip().startswith("# line "):  # (a module adc compile
        at -= 1  # wrote: the nearest "# line N: ..." above the call)
    number, _, text = linecache.getline(code, at).strip()[len("# line ") :].partition(": ")
    raise ValueError(f"{problem} (at line {number} of the source: `{text}`)" if number.isdigit() else problem)
''',
    }
)
