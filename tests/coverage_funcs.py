"""Functions of test_numpy_coverage.py (adcompiler reads source: they live in a real module)."""

import numpy as np

CONSTANT = np.array([1.0 + 2.0j, -1.0j])


def real_parts(x):
    return np.real(x)


def imag_part(x):
    return np.imag(x)


def conj_part(x):
    return np.conj(x) * 2.0


def flip_then_write(x):
    y = x * 1.0
    z = np.flip(y)
    z[0] = 5.0 * x[0]  # changes y[-1] through the view
    return np.sum(y * y)


def real_of_complex(x):
    return np.sum(np.real(x * CONSTANT))


def eig_values(a):
    w, v = np.linalg.eig(a)
    return w


def r_directive(x):
    return np.r_["0,2", x, x]


def einsum_computed(x, spec):
    return np.einsum(spec, x)


def stack_in_loop(xs, w):
    rows = []
    for x in xs:
        rows.append(np.tanh(w * x))
    return np.sum(np.vstack(rows) ** 2)


def stack_parameter(xs):
    return np.stack(xs, axis=-1) * 3.0


def partition_weighted(x):
    return np.partition(x, 2) * np.arange(1.0, 6.0)


def stack_then_grow(a, b):
    xs = [a]
    y = np.stack(xs)
    xs.append(b)  # the first join's adjoint must see the list as it was
    xs[0] = b * 2.0
    return np.sum(y * y) + np.sum(np.stack(xs) ** 2)


def vstack_nested(xs):
    return np.vstack(xs) ** 2


def add_at_parameter(x, v):
    np.add.at(x, [0, 0], v)
    return np.sum(x * x)


def array_of_float(x):
    return np.array(x)
