"""Primal programs used by the benchmark harness (bench_scalar.py).

They are plain Python in a real file so that ``adcompiler.differentiate`` can
read their source with ``inspect``.  ``rotate_vec_by_quat`` is the sample in
samples/quaternion.py, imported from there so there is a single copy.

Programs beyond the current straight-line subset (loops, lists) also live
here; the harness reports them as 'unsupported' until adcompiler handles
them.
"""

import os
import sys

_SAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples")
if _SAMPLES not in sys.path:
    sys.path.insert(0, _SAMPLES)

from quaternion import rotate_vec_by_quat  # noqa: E402  (samples/quaternion.py)


def mul(x, y):
    """Scalar multiplication, the smallest program of the Table-1 suite."""
    return x * y


def dot(xs, ys):
    """Dot product of two lists of floats, written with a loop (not yet in
    adcompiler's supported subset)."""
    s = 0.0
    for i in range(len(xs)):
        s = s + xs[i] * ys[i]
    return s


__all__ = ["mul", "rotate_vec_by_quat", "dot"]
