"""Functions for tests/test_numba.py: what Numba users write (no adcompiler import here)."""

import math
import sys
from pathlib import Path

import numba
import numpy as np
from scipy.special import gammaln, multigammaln

from tests.release_funcs import particles_np  # noqa: F401 (Table 1's particles on NumPy)
from tests.store_funcs import dot_rows as mat_vec_product_sum  # noqa: F401 (Table 1's sum_mat_vec on lists)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "gradbench"))
from evals import det as _det  # noqa: E402 (the eval module itself, as tests/test_gradbench_evals.py reads it)
from evals.det import det_by_links  # noqa: E402, F401 (the reference formulation: links changed in place)


def poly(x, y):
    return x * x * y + math.sin(x) * y - math.exp(-y) / (1.0 + x * x)


def branchy(x, y):
    if x > y:
        z = x * math.cos(y)
    else:
        z = y * y - x
    return z * x


def loop_jumps(x, n):
    s = 0.0
    for k in range(n):
        if k == 5:
            continue
        s = s + math.sin(x * k)
        if s > 2.5:
            break
    return s * x


def early_return(x):
    t = x
    for k in range(10):
        t = t * 1.1 + math.tanh(t)
        if t > 5.0:
            return t * t
    return t


def newton_sqrt(a):
    """A data-dependent while loop: x -> sqrt(a) by Newton's iteration."""
    x = a
    while abs(x * x - a) > 1e-13 * a:
        x = 0.5 * (x + a / x)
    return x


def power(x, n):
    """Recursion: x ** n for an integer n >= 0."""
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def helper(u, v):
    return u * math.exp(v)


def calls(x, y):
    return helper(x, y) + helper(y, x) * x


@numba.njit
def jitted_helper(u, v):
    return u * math.log(1.0 + v * v)


@numba.njit
def jitted(x, y):
    return jitted_helper(x, y) * y + x


def dot(xs, ys):
    s = 0.0
    for i in range(len(xs)):
        s = s + xs[i] * ys[i]
    return s


def mat_vec_sum(rows, v):
    s = 0.0
    for i in range(len(rows)):
        row = rows[i]
        for j in range(len(v)):
            s = s + math.sin(row[j]) * v[j]
    return s


def written_elements(x, w):
    """Writes into a local array at an integer, reading the element before it (u[-1] first)."""
    u = np.zeros(4)
    for i in range(4):
        u[i] = math.tanh(x[i] * w[0]) + u[i - 1] * 0.5
    return np.sum(u * u)


def written_rows(a, w):
    """Writes of rows, a column and an element into a local 2-D array, overwriting earlier writes."""
    b = np.zeros((3, 4))
    for i in range(3):
        b[i, :] = np.sin(a[i] * w)
    b[1, 2] = b[0, 0] * 3.0
    b[:, 1] = b[:, 0] * w[1]
    return np.sum(b * b)


def written_at_indices(x, idx):
    u = np.zeros(3)
    u[idx] = x
    return np.sum(u * u)


def products(A, B, x, y):
    """a @ b of every pair of ndims 1 and 2, a transposed operand among them."""
    C = np.tanh(A @ B)
    v = C @ x
    w = x @ B.T
    return np.sum(v * v) + np.sin(w @ y) + (x @ x) * 0.1


def row_broadcast(x, p):
    """A (1, 4) operand of a (2, 4) result, plus a number (the fuzzer's program, seed 92)."""
    return (x[None, :] - np.full((2, 4), -0.88)) * 2.0 + 3.0 * np.tanh(p)


def zeros_plus(x, p):
    return (np.zeros((3, 4)) + x) * p


def joined(x, y):
    """Lists joined with + (the numba fuzz run's program): Python joins, arrays would add."""
    ys = [x * 3.0]
    zs = [y * y]
    ys = ys + zs
    return ys[len(ys) - 1]


def repeated(x, xs):
    zs = xs * 2
    return zs[3] * x


def appended(x, xs):
    """A list argument joined with a literal, then repeated."""
    ys = xs + [x * 2.0]
    zs = ys * 2
    return zs[len(zs) - 1] * ys[0] + zs[1]


def rows_joined(a, b):
    rows = a + b
    return rows[1][0] * rows[0][1]


def sliced_then_written(x, xs):
    ys = xs[1:3]
    ys[0] = ys[0] * x
    return xs[1] + ys[0]


def three_outputs(xs):
    return xs[0] * xs[1], math.cos(xs[2]), xs[0] / xs[2]


def list_out(xs):
    out = []
    for i in range(len(xs)):
        out.append(xs[i] * xs[i] + 1.0)
    return out


def softmax_np(w, x):
    h = np.tanh(np.dot(w, x))
    m = np.maximum(np.max(h), 0.0)
    e = np.exp(h - m)
    return np.sum(np.arange(1.0, e.shape[0] + 1.0) * e / np.sum(e))


def layers_np(layers, x):
    h = x
    for l in range(len(layers)):
        w = layers[l][0]
        b = layers[l][1]
        h = np.tanh(np.dot(w, h) + b)
    return np.sum(h * h)


def relayer(xs, n):
    h = xs
    for layer in range(n):
        z = []
        for i in range(len(h)):
            z.append(math.tanh(h[i]))
        h = z
    return h[0]


def gathered(x, idx):
    """An integer array as an index, with repeats: their cotangents accumulate."""
    y = x[idx]
    return np.sum(np.sin(y) * y) + x[1] * x[-1]


def broadcast_ones(a, b, c):
    """Axes of length 1 broadcast (a (3, 1) by a (1, 4)), and a leading axis (c)."""
    return np.sum(np.sin(a * b + c) * a)


def broadcast_one(x, v):
    """A (1,) array broadcast against a (3,) one (the fuzzer's program)."""
    return np.sum(np.maximum(v, x) * x)


def along_axes(a, b):
    """Sums along an axis (a negative one too), of a 2-D and a 3-D array."""
    rows = np.sum(np.tanh(a), axis=0)
    cols = np.sum(a * a, axis=-1) / a.shape[1]
    return np.sum(rows * rows) + np.sum(cols * np.sum(b, axis=1)[0])


def tower(x, n):
    """Recursion whose inner cotangent depends on the inner value: sin(sin(...sin(x)...) * x) * x."""
    if n <= 0:
        return x
    inner = tower(x, n - 1)
    return math.sin(inner * x) * x + 0.1 * inner


def array_depth(a, n):
    """Recursion over an array: outside the target in reverse mode."""
    if n == 0:
        return np.sum(a * a)
    return array_depth(np.tanh(a), n - 1) * 2.0


def array_depth_written(a, n):
    """Recursion over an array the program also writes into: outside the target in reverse mode (the
    adjoint could not run the call again on what the array held then)."""
    if n == 0:
        return np.sum(a * a)
    b = np.tanh(a)
    b[0] = b[0] * 2.0
    return array_depth_written(b, n - 1) * 2.0


def steady_weights(a, w, v, n):
    """A recursion writing into the arrays it makes that hands ``w`` down as it is at every level (one
    object: it rides in the shared tapes), and ``v`` rebound before it is handed down (each level's
    own: in its frame); both are read by the adjoints."""
    if n == 0:
        return np.sum(a * w * v)
    b = np.tanh(a * w)
    b[0] = b[0] * v[1]
    v = v * 1.5
    return steady_weights(b, w, v, n - 1) * np.sum(w * v)


def swapped_weights(a, w, v, n):
    """As steady_weights, but each level hands its ``w`` and ``v`` down swapped: neither is one object."""
    if n == 0:
        return np.sum(a * w * v)
    b = np.tanh(a * w)
    b[0] = b[0] * v[1]
    return swapped_weights(b, v, w, n - 1) * np.sum(w * v)


det_of_minor, det_by_minors = _det.det_of_minor, _det.det  # GradBench's det: index lists sliced and joined


def masked_reads(x, A):
    """Reads at boolean masks of vectors and of matrices, C-ordered and not (the adjoint: g added at the
    true entries, in C order), and at an array of row indices, one repeated (the repeats accumulate)."""
    y = A @ x
    rows = A[np.array([2, 0, 2])]
    B = A.T
    kept = np.sum(np.sin(A[A > 0.2])) + np.sum(B[B < 0.0] * x[0])
    return np.sum(np.sin(x[x > 0.1]) * 1.5) + np.sum(y[y > 0.0] ** 2) + np.sum(np.tanh(rows) * x) + kept


def lines_and_kept_reductions(A, x):
    """numpy.cumsum and numpy.flip along an axis, of C-ordered and transposed arrays, and reductions of every
    axis kept (keepdims=True without an axis), none of which Numba's own take."""
    lines = np.sum(np.sin(np.cumsum(A, axis=1))) + np.sum(np.cumsum(A.T, axis=0) ** 2) + np.sum(np.flip(A, axis=-1) * A)
    kept = np.sum(np.tanh(x * np.sum(A, keepdims=True))) + np.sum(np.mean(A * A, keepdims=True) * A)
    return lines + kept + np.sum(np.cumsum(x, axis=0) * x) + np.sum(np.max(A, keepdims=True) * x[0])


def sums_of_products_along(A, B, x):
    """numpy.sum of a product along an axis (the Numba target's sum_product_along, no array of the products):
    rows of a matrix (GradBench gmm's squared lengths), columns of transposed views, the last axis of a 3-D
    array, kept, and a product that broadcasts (the products made); their adjoints multiply by the summed
    cotangent spread back along the axis (spread_along)."""
    z = A @ B
    rows = np.sum(z * z, axis=1)
    cols = np.sum(A.T * B, axis=0, keepdims=True)
    cube = np.stack((z, 2.0 * z), axis=1)
    last = np.sum(cube * np.sin(cube), axis=-1)
    broadcast = np.sum(z * x, axis=1)
    return np.sum(np.sin(rows) * broadcast) + np.sum(cols * cols) + np.sum(np.tanh(last))


def squeezed_and_flipped(A, v):
    """numpy.squeeze along an axis (Numba lacks squeeze), and reshapes of flipped views (Numba reshapes only
    arrays in C order): cumsum's adjoint flips, sums and reshapes."""
    a = np.squeeze(np.expand_dims(v, 1), axis=1)
    b = np.squeeze(A[:, 1:2], axis=-1)
    c = np.reshape(np.flip(A), (12,))
    return np.sum(np.sin(a) * b[:3]) + np.sum(c * np.cumsum(np.flip(c)))


def matmul_and_log_bases(A, x, p):
    """numpy.matmul (Numba has the operator @ only) and math.log with a base (Numba's takes one argument)."""
    y = np.matmul(A, x) + np.matmul(x, A.T @ A)[:3]
    return np.sum(np.tanh(y)) * math.log(1.0 + p * p, 2.0) + math.log(p + 2.0, p + 3.0)


def products_of_entries(A, x):
    """numpy.prod of all entries and along an axis, kept or not (its cotangent, prod_vjp, had no Numba form)."""
    kept = np.sum(np.prod(A, axis=0, keepdims=True) * A) + np.prod(A.T) * np.sum(np.prod(A, keepdims=True))
    return np.prod(x) + np.sum(np.prod(A, axis=1) * 2.0) + kept


def vandermonde(x, t):
    """numpy.vander increasing and not, square and not, of floats and of integers (the Numba target writes
    it a row at a time: GradBench's llsq)."""
    fitted = np.sum(np.vander(t, len(x), increasing=True) @ x) + np.sum(np.vander(t) * 0.5 * x[0])
    return fitted + np.sum(np.vander(np.arange(3), 4) * x[1]) + np.sum(np.vander(t, N=3) * x[2])


def copied_arrays(A, x, xs):
    """numpy.array of an array (a copy, written into; Numba's numpy.array takes lists and tuples only) and of
    a list argument."""
    u = np.array(A)
    u[0, 0] = 2.0 * u[0, 1]
    w = np.array(x)
    w[1] = 0.0
    return np.sum(u * A) + np.sum(np.array(xs) * x) + np.sum(w * x) + np.sum(A)


def traces(A, B):
    """numpy.trace of matrices, at offsets (its cotangent, trace_vjp, had no Numba form)."""
    return np.trace(A) * 2.0 + np.sin(np.trace(A @ B, 1)) + np.trace(B, -1)


def lower_filled(qk, lk):
    """A matrix filled below its diagonal at an index tuple of integer arrays (GradBench gmm's Q): the tuple has
    a shadow list nothing reads, which tidying drops."""
    Q = np.diag(np.exp(qk))
    cols, rows = np.triu_indices(len(qk), 1)
    Q[rows, cols] = lk
    return np.sum(Q * Q)


def inner_products(a, B, c):
    """numpy.inner (which Numba lacks) of a vector and a matrix, two matrices and two vectors."""
    return np.sum(np.sin(np.inner(a, B))) + np.sum(np.inner(B, B) * 0.5) + np.inner(a, c) * np.inner(c, 2.0)[0]


def doubled_length(cols):
    """Python's len(cols[1:] + cols[1:]); on the arrays lists are in compiled code, + would add."""
    return len(cols[1:] + cols[1:])


def read_at_joined_length(x, cols):
    """A call of a user function handed a list of ints, not differentiated: compiled code runs its
    generated code, not the function as written."""
    return x[doubled_length(cols) - 1] * x[0]


def slices_of_a_list(xs, x):
    """Slices of an active list: new lists with new shadows (summed back into xs's)."""
    head = xs[:2]
    tail = xs[1:]
    tail[0] = tail[0] * x
    return head[0] * tail[0] + sum(tail) * head[1] + xs[1]


def rows_sliced(rows, x):
    """A slice of a list of lists: its rows shared with rows in Python, copied by a 2-D array's slice."""
    tail = rows[1:]
    return tail[0][0] * x


def list_loop(xs, c):
    """A loop over a list of floats with a branch on its values (second order: tests/test_numba_hessian.py)."""
    s = 0.0
    for i in range(1, len(xs)):
        if xs[i] > xs[i - 1]:
            s = s + math.sin(xs[i] * xs[i - 1]) * c
        else:
            s = s + xs[i] * xs[i] * math.exp(-c * xs[i - 1])
    return s * c


def list_while(xs, a):
    """A data-dependent while loop carrying a list's values: damped until small."""
    e = 0.0
    for x in xs:
        e = e + x * x
    k = 0
    while e > 0.05 and k < 40:
        e = e * a / (1.0 + 0.1 * e)
        k = k + 1
    return e + xs[0] * a


def array_loop(w, x):
    """NumPy arrays through a loop with a branch on their values."""
    h = x
    for k in range(3):
        h = np.tanh(np.dot(w, h))
        if np.sum(h) > 0.0:
            h = h * 1.5
    return np.sum(h * h) + np.sum(np.exp(0.1 * w))


def relayer_appending(xs, n):
    """As relayer, but the argument's list is appended to through h: a copy would change the result."""
    h = xs
    for layer in range(n):
        h.append(0.5)
        z = []
        for i in range(len(h)):
            z.append(math.tanh(h[i]))
        h = z
    return h[0]


def leaky(v):
    if v > 0.0:
        return v
    return 0.1 * v


def network(layers, x):
    """Table 1's neural_check in shape, on lists: layers of (rows of weights, biases), h = x then h = z
    with z built by append, a stable softmax, outputs weighted by 1, 2, 3, ..."""
    h = x
    for l in range(len(layers)):
        W = layers[l][0]
        b = layers[l][1]
        z = []
        for i in range(len(W)):
            row = W[i]
            acc = b[i]
            for j in range(len(h)):
                acc = acc + row[j] * h[j]
            z.append(leaky(acc))
        h = z
    top = 0.0
    for v in h:
        if v > top:
            top = v
    weights = []
    total = 0.0
    for i in range(len(h)):
        e = math.exp(h[i] - top)
        weights.append(e)
        total = total + e
    s = 0.0
    for i in range(len(weights)):
        s = s + (i + 1.0) * weights[i] / total
    return s


def scaled_by_a_draw(v):
    r = np.random.rand()
    return (v[0] * r, v[1] * r + v[0])


def rotate_by_quaternion(v, q):
    ux, uy, uz, s = q[0], q[1], q[2], q[3]
    a = 2.0 * (ux * v[0] + uy * v[1] + uz * v[2])
    b = s * s - (ux * ux + uy * uy + uz * uz)
    c = 2.0 * s
    return (
        a * ux + b * v[0] + c * (uy * v[2] - uz * v[1]),
        a * uy + b * v[1] + c * (uz * v[0] - ux * v[2]),
        a * uz + b * v[2] + c * (ux * v[1] - uy * v[0]),
    )


def grows_in_a_loop(x0, w):
    x = x0
    for i in range(2):
        x = x * w
    return np.sum(x)


# ---- what GradBench's evals ask of the target: joins of tuples and lists, reductions along an axis ----


def nearest(points, centroids):
    """k-means' cost (GradBench's kmeans): the smallest squared distance of each point, along an axis."""
    diff = points[:, None, :] - centroids[None, :, :]
    dist2 = np.sum(diff * diff, axis=2)
    return np.sum(np.min(dist2, axis=1))


def along_kept(a):
    """max, min and mean along an axis (negative too), keepdims, and a vector's own axis (a number)."""
    top = np.max(a, axis=0, keepdims=True)
    low = np.min(a, axis=-1)
    mid = np.mean(a * a, axis=1)
    return np.sum(np.exp(top) * a) + np.sum(low * mid) + np.amax(a[0], axis=0)


def right_hand(x, y):
    """An ODE's right-hand side (GradBench's ode): slices of two arrays joined by a tuple."""
    return np.concatenate((x[:1], x[1:] * y[:-1]))


def gates(x, h, w, b):
    """An LSTM's gates (GradBench's lstm): a tuple of arrays joined, then tuples stacked along two axes."""
    g = np.concatenate((x, h, x, h)) * w + b
    n = len(x)
    s = np.stack((g[:n], g[n : 2 * n]), axis=1)
    return np.sum(np.tanh(s) * np.vstack([x, h]).T) + np.sum(np.hstack((x, g)) ** 2)


def stacked_list(x, w):
    """A list of arrays built by append, stacked and joined (GradBench's lstm's new state)."""
    xs = []
    for k in range(3):
        xs.append(np.sin(x * (k + 1.0)) * w)
    s = np.stack(xs)
    c = np.concatenate(xs)
    return np.sum(s * s) + np.sum(np.cos(c)) + np.sum(np.stack(xs, axis=1)[0])


def minors(A):
    """Lists of integers joined with + (GradBench's det names a minor's columns so): the indices of
    a 3 x 3 determinant's terms along its first row."""
    total = 0.0
    sign = 1.0
    for j in range(3):
        cols = [c for c in range(3) if c != j] + [j]
        total = total + sign * A[0, cols[2]] * (A[1, cols[0]] * A[2, cols[1]] - A[1, cols[1]] * A[2, cols[0]])
        sign = -sign
    return total


def summed_terms(x, w):
    """A generator of arrays summed with sum (a list of arrays to Numba, whose own sum takes numbers)."""
    return sum(np.sin(x * k) * w[k] for k in range(3)) + sum(x[i] * w[i] for i in range(2))


def overwritten_in_a_branch(x, w):
    """An array variable overwritten in one branch of a loop's body and not the other (particle's
    x = x_new): its adjoint is reset to zero in that branch only, so the reset must be an array too."""
    v = x * 1.0
    for k in range(4):
        trial = v * w + np.sin(v)
        if np.sum(trial) > -100.0 + k:
            v = trial
        else:
            break
    return np.sum(v * v)


def wishart_constant(q, m):
    """multigammaln and gammaln of numbers with no derivative (the shapes', an int argument's), times a
    function of q: SciPy's functions called as they are (in Numba's object mode under backend="numba")."""
    k, d = q.shape
    n = d + m + 1
    c = n * d * math.log(2.0) - multigammaln(0.5 * n, d) + gammaln(n)
    return k * c * np.sum(q * q) + np.sum(np.exp(q))


def lower_triangular(qk, lk, w):
    """GradBench gmm's Q: exp(qk) on the diagonal, lk below it column by column, written at arrays of
    coordinates (Q[rows, cols] = lk); then a function of Q."""
    d = len(qk)
    Q = np.diag(np.exp(qk))
    cols, rows = np.triu_indices(d, 1)
    Q[rows, cols] = lk
    return np.sum((Q @ Q.T) * w)


def written_twice(v, x):
    """Q[(rows, cols)] = v naming the place (0, 1) twice: NumPy keeps the last value, the first gets no
    cotangent; then a read at the same coordinates."""
    Q = np.zeros((2, 2)) + x
    at = (np.array([0, 0, 1]), np.array([1, 1, 0]))
    Q[at] = v * 2.0
    return np.sum(Q * Q) + np.sum(Q[at] * v)


def diagonal_of(M):
    """np.diag of a matrix: its diagonal's cotangent put back on the diagonal."""
    return np.sum(np.diag(M) ** 2) + np.sum(np.diag(M, 1))


def rows_weighted(w, X):
    """A loop reading w each time: its adjoint accumulates w's in the loop (in place under Numba)."""
    total = 0.0
    for i in range(X.shape[0]):
        total = total + np.sum(np.tanh(w * X[i]))
    return total


def arrays_of_named_lists(x, A):
    """numpy.array of a list the function makes and names (read twice, so kept), of an array (a copy), and of
    a list comprehension: Numba's numpy.array for the lists, array_of for the array."""
    e = [1.0, x[0]]
    a = np.array(e) * x[:2]
    b = np.array(e) + np.array([v * v for v in x[:2]])
    c = np.array(A)
    c[0, 0] = 0.0
    return np.sum(a * b) + np.sum(c * A)


def distances_by_products(P, C):
    """GradBench kmeans' cost through |p|^2 + |c|^2 - 2 p.c: the cotangent of P @ C.T is -2.0 times one."""
    dist2 = np.sum(P * P, axis=1)[:, None] + np.sum(C * C, axis=1)[None, :] - 2.0 * (P @ C.T)
    return np.sum(np.min(dist2, axis=1)) + np.sum(np.dot(P, C[0]) * -0.5)


def charged_field(x, w):
    """GradBench particle's force, its constants as it writes them: an array of numbers in arithmetic (a constant
    of the compiled module) and the negation of an array made of numbers (the numbers negated as it is made)."""
    d1 = x - np.array([10.0, 10.0 - w])
    d2 = x - np.array([10.0, 0.0])
    f = d1 / np.linalg.norm(d1) ** 3 + d2 / np.linalg.norm(d2) ** 3
    return np.sum(-np.array([f[0], f[1] * w]) * np.array([[1.0, -2.0], [0.5, 3.0]]))


def laplacian_form(x, A):
    """x^T L x for the graph Laplacian of an integer adjacency matrix: an integer matrix times a float vector."""
    L = np.diag(np.sum(A, axis=1)) - A
    return x @ (L @ x)


def rnn_of_two_dtypes(W, xs):
    """float32 weights and a float64 state: Numba's @ takes one dtype."""
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def tuples_of_array_and_number(x):
    """A list of (array, number) tuples: forward mode compiles, reverse mode's shadows would not."""
    out = []
    for t in range(x.shape[0]):
        h = np.ones(2) * x[t] ** 2
        out.append((h, x[t]))
    total = 0.0
    for h, v in out:
        total = total + np.sum(h * v)
    return total


def builtin_sum_scaled(x, c):
    """Python's sum of a vector, times a number: unreduce along the vector's one axis of a number."""
    d = x * c
    return sum(d) * 2.0


def mlp_of_a_weight_list(Ws, x):
    """An MLP whose weights are a list of matrices of one shape (a tuple of arrays in compiled code)."""
    h = x
    for W in Ws:
        h = np.tanh(W @ h)
    return np.sum(h * h)
