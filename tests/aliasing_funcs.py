"""Functions that mutate their arguments and hold one list or array under several names.

Python semantics decide every value here: ``b = a`` makes a second name for
one object, so a write through ``b`` is seen through ``a``; ``a[1:]`` of an
array is a view (writing into it writes into ``a``), ``a += v`` on an array
changes it in place, while ``list(a)``, ``a.copy()`` and ``a * 1.0`` are
copies.  test_aliasing.py checks each derivative against finite differences
taken on fresh copies of the arguments (the primal writes into them).
"""

import math

import numpy as np

# ---------------------------------------------------------------- lists, writes into parameters


def list_param_write(x, xs):
    xs[0] = x * xs[1]
    return xs[0] * xs[2] + xs[1]


def list_param_augassign(x, xs):
    for i in range(len(xs)):
        xs[i] += x * xs[i]
    return xs[0] * xs[1] + xs[2]


def list_param_append(x, xs):
    xs.append(x * x)
    return xs[-1] * xs[0] + sum(xs)


def list_param_overwritten_in_loops(x, xs):
    for k in range(4):
        for i in range(len(xs)):
            xs[i] = math.sin(xs[i] * x + xs[(i + 1) % len(xs)])
    return xs[0] + xs[1] * xs[2]


def list_param_negative_index_writes(x, xs):
    xs[-1] = xs[-2] * x
    xs[-3] -= xs[-1]
    return xs[0] * xs[-1] + xs[1]


def list_param_read_only(x, xs):
    return x * xs[1] + xs[0]


def list_param_copied_and_read(x, xs):
    ys = list(xs)
    return x * ys[1]


def list_param_elements_into_a_new_list(x, xs):
    ys = [xs[0], xs[1]]
    ys[0] = x * ys[1]
    return ys[0] + ys[1]


def list_param_scaled_into_a_new_list(x, xs):
    ys = [0.0] * len(xs)
    for i in range(len(xs)):
        ys[i] = xs[i] * x
    zs = [v * 1.0 for v in xs]
    zs[0] = ys[1]
    return ys[0] + zs[0] * zs[1]


# ---------------------------------------------------------------- lists, two names for one list


def alias_write(x, a):
    b = a
    b[0] = x * x
    return a[0] * a[1]


def alias_write_then_read_both(x, a):
    b = a
    b[1] = b[0] * x
    a[0] = a[1] + x
    return a[0] * b[1] + b[2]


def alias_augassign_element(x, xs):
    ys = xs
    ys[0] += x
    ys[0] *= xs[1]
    return xs[0] * xs[1]


def alias_loop(x, xs):
    ys = xs
    for i in range(len(xs)):
        ys[i] = ys[i] * x + xs[i - 1]
    return xs[0] + xs[1] * xs[2]


def alias_append(x, xs):
    ys = xs
    ys.append(x * x)
    return xs[-1] + len(xs) * x


def alias_then_rebind(x, y):
    r = [x, y]
    s = r
    r = [y, x]
    s[0] = x * 3.0
    return r[0] * s[0]


def alias_rebound_in_loop(x, y):
    r = [x, y]
    s = r
    for i in range(3):
        s[i % 2] = s[i % 2] * x + y
        if i == 1:
            s = [s[0], s[1]]
    return r[0] + r[1] * s[0]


def alias_chosen_by_branch(x, y):
    r = [x, y]
    q = [y, x]
    if x > 0.0:
        s = r
    else:
        s = q
    s[0] = x * y
    return r[0] + q[0]


def alias_names_swapped(x, xs, ys):
    xs, ys = ys, xs
    zs = xs
    zs[0] = x * ys[1]
    return xs[0] * ys[0] + zs[1]


def copy_is_not_alias(x, a):
    b = list(a)
    b[0] = x
    return a[0] * b[0]


# ---------------------------------------------------------------- lists, helpers that write into what they get


def fill(ys, v):
    ys[0] = v * ys[1]
    return ys[0] * 0.5


def fill_without_return(ys, v):
    ys[0] = v * ys[1]


def helper_writes_param(x, xs):
    z = fill(xs, x)
    return xs[0] * xs[1] + z


def helper_writes_alias(x, xs):
    ys = xs
    z = fill(ys, x)
    return xs[0] * xs[1] + z


def helper_writes_twice(x, xs):
    z = fill(xs, x)
    w = fill(xs, xs[0])
    return xs[0] + z + w


def helper_writes_shared_row(x, y):
    r = [x, y]
    rows = [r, r]
    z = fill(rows[0], x * y)
    return rows[1][0] + z + r[0]


def fill_and_read(ys, v):
    ys[0] = v * ys[1]
    return ys[0]


def helper_fills_local_list(x, y):
    r = [x, y]
    z = fill_and_read(r, x)
    return z * z


def helper_without_return(x, xs):
    fill_without_return(xs, x)
    return xs[0] * xs[1]


# ---------------------------------------------------------------- lists of lists that share rows


def shared_rows(x, y):
    r = [x, y]
    rows = [r, r]
    rows[0][1] = x * y
    return rows[1][1] * rows[0][0] + rows[1][0]


def shared_rows_of_param(x, r):
    rows = [r, r]
    rows[1][0] = rows[0][0] * x
    return rows[0][0] + r[0] * r[1]


def shared_row_alias(x, y):
    r = [x, y]
    rows = [r, [y, x]]
    q = rows[0]
    q[0] = q[0] * y
    return rows[0][0] + r[0] * x


def shared_rows_from_comprehension(x, y):
    r = [x, y]
    rows = [r for i in range(2)]
    rows[0][1] = x * x
    return rows[1][1] * y


def shared_rows_appended(x, y):
    r = [x, y]
    rows = []
    rows.append(r)
    rows.append(r)
    rows[1][0] = y * 2.0
    return rows[0][0] * x


def rows_copied_not_shared(x, y):
    r = [x, y]
    rows = [list(r), r]
    rows[0][0] = y * 2.0
    return rows[1][0] * x + r[0]


def rows_parameter_written(x, rows):
    rows[0][0] = rows[1][1] * x
    return rows[0][0] + rows[1][0]


def shared_rows_in_tuple(x, y):
    r = [x, y]
    t = (r, r)
    t[0][0] = x * y
    return t[1][0] + r[0]


def rows_repeated_literal(x, y):
    rows = [[x, y]] * 2
    rows[0][0] = x * y
    return rows[1][0] * rows[1][1]


def rows_repeated_param(x, r):
    rows = [r] * 2
    rows[0][0] = x
    return r[0] + r[1]


def rows_repeated_local(x, y):
    r = [x, y]
    rows = [r] * 2
    rows[1][0] = y * x
    return rows[0][0] + r[1]


def subscript_tuple_targets(x, xs):
    ys = xs
    a, b = ys[0], ys[1]
    ys[0], ys[1] = b * x, a
    return xs[0] * xs[1]


# ---------------------------------------------------------------- lists, outputs that alias inputs


def returns_written_param(x, xs):
    xs[0] = x * xs[1]
    return xs


def returns_two_aliases(x, xs):
    ys = xs
    ys[1] = x * x
    return xs, ys


def returns_shared_rows(x, y):
    r = [x, y]
    rows = [r, r]
    rows[0][0] = x * y
    return rows


# ---------------------------------------------------------------- arrays that work


def array_local_alias_write(x, a):
    b = a * 1.0
    c = b
    c[0] = x * 3.0
    return np.sum(b) * x


def array_alias_slice_write(x, a):
    b = a.copy()
    c = b
    c[1:] = x * b[:-1]
    return np.sum(b * b)


def array_full_slice_write(x, a):
    b = a * 1.0
    b[:] = x * b
    return np.sum(b * a)


def array_alias_full_slice_write(x, a):
    b = a * 1.0
    c = b
    c[:] = x
    return np.sum(b * a)


def array_augassign_unaliased(x, a):
    b = a * 1.0
    b += x
    b *= a
    return np.sum(b * a)


def array_element_writes_in_loop(x, a):
    b = np.sin(a)
    for k in range(5):
        b[k % 4] = np.tanh(b[k % 4] * x + b[(k + 1) % 4])
    return np.sum(b * b)


def array_param_write(x, a):
    a[0] = x
    return np.sum(a * a)


def array_param_slice_write(x, a):
    a[1:] = x
    return np.sum(a * a)


def array_param_augassign(x, a):
    a += x
    return np.sum(a * a)


# ---------------------------------------------------------------- arrays: aliases, views, lists of arrays


def array_view_write(x, a):
    b = a * 2.0
    v = b[1:]
    v[0] = x
    return np.sum(b)


def array_row_view_write(x, A):
    B = A * 1.0
    r = B[0]
    r[1] = x
    return np.sum(B * A)


def array_reshape_view_write(x, a):
    b = a * 1.0
    c = b.reshape(2, 2)
    c[0, 0] = x * x
    return np.sum(b * a)


def array_transpose_view_write(x, A):
    B = A + 0.0
    C = B.T
    C[0, 1] = x
    return np.sum(B * A)


def array_ravel_view_write(x, a):
    b = a * 1.0
    c = b.ravel()
    c[0] = x
    return np.sum(b * b)


def array_view_augassign(x, a):
    b = a * 1.0
    v = b[1:]
    v += x
    return np.sum(b)


def array_alias_augassign(x, a):
    b = a * 1.0
    c = b
    c += x
    return np.sum(b * b)


def array_alias_multiply_in_place(x, a):
    b = a * 1.0
    c = b
    c *= x
    return np.sum(b)


def array_param_alias_augassign(x, a):
    c = a
    a += x
    return np.sum(c * c)


def array_in_list_written(x, a):
    b = a * 1.0
    rows = [b]
    rows[0][0] = x
    return np.sum(b)


def array_in_list_alias_written(x, a):
    b = a * 1.0
    rows = [b]
    r = rows[0]
    r[1] = x * x
    return np.sum(b)


def array_twice_in_list(x, a):
    b = a * 1.0
    arrs = [b, b]
    arrs[0][0] = x
    return np.sum(arrs[1]) + np.sum(b)


def array_of_floats(x, y):
    b = np.array([x, y])
    return np.sum(b * b)


# ---------------------------------------------------------------- lists overwritten in nested loops


def overwritten_in_nested_loops(x, y):
    ys = [x, x]
    for i in range(2):
        for w in ys:
            ys[1] = y * ys[0] + w
    return ys[1]


def overwritten_in_nested_reversed_loop(x, y):
    ys = [x, x]
    for i in range(2):
        for w in reversed(ys):
            ys[1] = y * ys[0]
    return ys[1]
