"""Determinant by expansion by minors (GradBench eval ``det``, cmpad's ``det_by_minor``).

The recursive Laplace expansion along the first row of the minor: O(ell!) multiplications on
purpose.  A minor is named by the rows and columns of ``A`` it keeps.
"""


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
