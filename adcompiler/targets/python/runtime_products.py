"""Helpers of generated NumPy derivative code for the split family and np.pad (not records yet: the
products' helpers are in their records, ``rules/products.py``), kept as source text; ``runtime_numpy``
adds them to its table.  Each is linear in g, so forward mode can differentiate the adjoint code."""

PRODUCT_HELPERS: dict = {}
PRODUCT_HELPERS["split_part"] = '''def split_part(dx, kind, sections, axis, i):
    """Piece i of numpy.<kind>(dx, sections, axis): the tangent of a piece of a split."""
    import numpy

    return (getattr(numpy, kind)(dx, sections) if axis is None else getattr(numpy, kind)(dx, sections, axis))[i]
'''
PRODUCT_HELPERS["split_vjp"] = '''def split_vjp(g, x, kind, sections, axis, i):
    """The cotangent of x for piece i of numpy.<kind>(x, sections, axis): g where the piece is, else 0."""
    import numpy

    out = numpy.zeros(numpy.shape(x), dtype=numpy.result_type(x, numpy.float32))
    pieces = getattr(numpy, kind)(out, sections) if axis is None else getattr(numpy, kind)(out, sections, axis)
    pieces[i][...] = g  # a view of out
    return out
'''
PRODUCT_HELPERS["pad_vjp"] = '''def pad_vjp(g, x, pad_width, mode="constant"):
    """The cotangent of x in numpy.pad(x, pad_width, mode): along each axis, the centre of g, plus (for
    "edge" and "reflect") each padded cell added into the cell it copies."""
    import numpy

    shape = numpy.shape(x)
    widths = numpy.broadcast_to(numpy.asarray(pad_width, dtype=int), (len(shape), 2))
    g = numpy.asarray(g)
    for k, (n, (before, after)) in enumerate(zip(shape, widths)):
        moved = numpy.moveaxis(g, k, 0)
        if mode == "constant":
            out = moved[before : before + n]
        else:  # the source of each padded cell: the same pad of the positions
            out = numpy.zeros((n,) + moved.shape[1:], dtype=numpy.result_type(g, numpy.float32))
            numpy.add.at(out, numpy.pad(numpy.arange(n), (before, after), mode=mode), moved)
        g = numpy.moveaxis(out, 0, k)
    return g if hasattr(x, "shape") else g[()]
'''
PRODUCT_HELPERS["pad_vjp_values"] = '''def pad_vjp_values(g, x, pad_width, values):
    """The cotangent of constant_values in numpy.pad(x, pad_width, "constant", constant_values=values):
    g summed over the cells each of the values fills."""
    import numpy

    values = numpy.asarray(values, dtype=float)
    out, empty = numpy.zeros(values.shape), numpy.zeros(numpy.shape(x))
    for k in numpy.ndindex(values.shape):
        one = numpy.zeros(values.shape)
        one[k] = 1.0
        out[k] = numpy.sum(g * numpy.pad(empty, pad_width, mode="constant", constant_values=one))
    return out if out.ndim else out[()]
'''
