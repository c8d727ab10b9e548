"""Determinant by expansion by minors (GradBench eval ``det``, cmpad's ``det_by_minor``).

The recursive Laplace expansion along the first row of the minor: O(ell!) multiplications on
purpose.  A minor is named by the rows and columns of ``A`` it keeps.  ``det_by_links`` is GradBench's reference
formulation of the same expansion, which names a minor by links in two integer arrays changed in place.
"""

import numpy as np


def det_of_minor(A, rows, cols):
    """Determinant of the minor of ``A`` made of ``rows`` and ``cols`` (lists of indices)."""
    if len(rows) == 1:
        return A[rows[0], cols[0]]
    total = 0.0
    sign = 1.0
    for j in range(len(cols)):
        sub_cols = cols[:j] + cols[j + 1 :]
        total = total + sign * A[rows[0], cols[j]] * det_of_minor(A, rows[1:], sub_cols)
        sign = -sign
    return total


def det(A):
    """Determinant of the square matrix ``A``."""
    ell = A.shape[0]
    return det_of_minor(A, list(range(ell)), list(range(ell)))


def det_of_minor_links(A, n, m, r, c):
    """The determinant of the ``m`` x ``m`` minor of ``A`` (``n`` x ``n``) as GradBench's reference code
    computes it (``cpp/gradbench/evals/det.hpp``, after cmpad): ``r[i]`` is the row after row ``i`` in the
    minor, ``r[n]`` its first; ``c`` likewise for columns.  A sub-minor is named by changing the links in place
    and putting them back after, so no list is made."""
    R0 = r[n]
    Cj = c[n]
    if m == 1:
        return A[R0, Cj]
    total = 0.0
    sign = 1.0
    r[n] = r[R0]  # the minor's first row left out of its sub-minors
    Cj1 = n
    for j in range(m):
        M0j = A[R0, Cj]
        c[Cj1] = c[Cj]  # column j left out
        detS = det_of_minor_links(A, n, m - 1, r, c)
        c[Cj1] = Cj  # and put back
        total = total + sign * M0j * detS
        Cj1 = Cj
        Cj = c[Cj]
        sign = -sign
    r[n] = R0
    return total


def det_by_links(A):
    """``det(A)`` by the reference formulation's links (tests/test_index_arrays.py differentiates it)."""
    ell = A.shape[0]
    r = np.arange(1, ell + 2)
    c = np.arange(1, ell + 2)
    r[ell] = 0
    c[ell] = 0
    return det_of_minor_links(A, ell, ell, r, c)
