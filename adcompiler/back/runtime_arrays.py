"""More helpers of generated NumPy derivative code (np.linalg's checks, adjoints of data movement), kept
as source text; ``runtime_numpy`` adds them to its table."""

MORE_HELPERS: dict = {}

MORE_HELPERS.update(
    {
        "linalg_check": '''def linalg_check(x, kind, *others):
    """x, once the decomposition it comes from is known to have a derivative: qr of a matrix with no
    more columns than rows, a reduced svd (full_matrices=True of a matrix that is not square has none),
    lstsq of a matrix of full rank."""
    import numpy

    if kind == "qr" and numpy.shape(x)[-2] < numpy.shape(x)[-1]:
        raise ValueError("the derivative of np.linalg.qr of a wide matrix (more columns than rows) is not supported: differentiate qr of its transpose")
    if kind == "svd" and not numpy.shape(x)[-1] == numpy.shape(others[0])[-1] == numpy.shape(others[1])[-2]:
        raise ValueError("np.linalg.svd(a) of a matrix that is not square has no unique derivative (full_matrices=True): pass full_matrices=False")
    if kind == "lstsq" and others[0] < min(numpy.shape(others[1])[-2:]):
        raise ValueError("the derivative of np.linalg.lstsq of a matrix without full rank is not supported (its solution is not differentiable there)")
    return x
''',
    }
)
