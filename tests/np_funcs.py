"""Plain NumPy functions for tests/test_numpy.py (adcompiler reads their source).

Each function is written once, against ``np``.  The tests build an autograd
twin of each one by re-binding its globals (``np`` -> ``autograd.numpy``, and
names imported with ``from numpy import ...`` -> the autograd function of the
same name), so the twin runs the very same code under autograd.
"""

import numpy as np
import numpy as numpy_alias
from numpy import exp, log, sin, tanh

# ------------------------------------------------------------ elementwise


def el_sin(x):
    return np.sin(x)


def el_cos(x):
    return np.cos(x)


def el_tan(x):
    return np.tan(x)


def el_arcsin(x):
    return np.arcsin(x)


def el_arccos(x):
    return np.arccos(x)


def el_arctan(x):
    return np.arctan(x)


def el_sinh(x):
    return np.sinh(x)


def el_cosh(x):
    return np.cosh(x)


def el_tanh(x):
    return np.tanh(x)


def el_exp(x):
    return np.exp(x)


def el_expm1(x):
    return np.expm1(x)


def el_log(x):
    return np.log(x)


def el_log1p(x):
    return np.log1p(x)


def el_log2(x):
    return np.log2(x)


def el_log10(x):
    return np.log10(x)


def el_sqrt(x):
    return np.sqrt(x)


def el_square(x):
    return np.square(x)


def el_abs(x):
    return np.abs(x)


def el_sign(x):
    # sign has derivative zero; multiplied by x it is |x|
    return np.sign(x) * x


def el_maximum(x, y):
    return np.maximum(x, y)


def el_minimum(x, y):
    return np.minimum(x, y)


def el_where(x, y):
    return np.where(x > y, x * y, x - y)


def el_clip(x):
    return np.clip(x, -0.5, 0.5) * x


def el_power(x, y):
    return np.power(x, y)


def el_power_int(x):
    return np.power(x, 3)


def el_hypot(x, y):
    return np.hypot(x, y)


def el_logaddexp(x, y):
    return np.logaddexp(x, y)


def el_arctan2(y, x):
    return np.arctan2(y, x)


def el_from_import(x):
    """`from numpy import sin, exp, log, tanh`: bare names."""
    return sin(x) * exp(-x) + log(1.0 + x * x) - tanh(x)


def el_alias(x):
    """`import numpy as numpy_alias`: any alias."""
    return numpy_alias.sin(x) + numpy_alias.sum(x * x)


# ------------------------------------------------------------ operators


def op_arith(x, y):
    return (x + y) * (x - y) / (1.0 + y * y) - x


def op_pow(x):
    return x**2 + x**0.5 + 2.0**x


def op_pow_arr(x, y):
    return x**y


def op_neg(x):
    return -x * 3.0 + 1.0


def op_matmul_mm(A, B):
    return A @ B


def op_matmul_mv(A, x):
    return A @ x


def op_matmul_vm(x, A):
    return x @ A


def op_matmul_vv(x, y):
    return x @ y


def op_float_mix(x, a):
    """Python float parameter `a` mixed into array arithmetic."""
    return a * x + x / a - a**2 * x * x + 1.0 - a


# ------------------------------------------------------------ broadcasting


def bc_col_row(a, b):
    """(3, 1) + (1, 4) -> (3, 4)."""
    return (a + b) * a - b * b


def bc_vec_mat(v, M):
    """(4,) + (3, 4) -> (3, 4)."""
    return (v + M) * v


def bc_scalar_array(s, x):
    """s a Python float (or 0-d), x an array."""
    return np.sum(s * x * x + s * s)


def bc_array_float_param(x, a):
    return np.sum(np.sin(x * a)) * a


def bc_3d(a, b):
    """(2, 1, 3) * (4, 1) -> (2, 4, 3)."""
    return np.sin(a * b)


# ------------------------------------------------------------ reductions


def red_sum_all(x):
    return np.sum(x * x)


def red_sum_axis0(x):
    return np.sum(x * x, axis=0)


def red_sum_axis1_keep(x):
    return np.sum(x * x, axis=1, keepdims=True) * x


def red_sum_negaxis(x):
    return np.sum(np.sin(x), -1)


def red_mean(x):
    return np.mean(x * x) + np.mean(x, axis=0) * 2.0


def red_mean_keep(x):
    return x - np.mean(x, axis=1, keepdims=True)


def red_max(x):
    return np.max(x) * np.min(x)


def red_max_axis(x):
    return np.max(x, axis=0) + np.min(x, axis=1, keepdims=True)


def red_max_axis_keep(x):
    return x - np.max(x, axis=1, keepdims=True)


def red_norm(x):
    return np.linalg.norm(x) * 2.0


def red_dot_vv(x, y):
    return np.dot(x, y)


def red_dot_mv(A, x):
    return np.dot(A, x)


def red_dot_mm(A, B):
    return np.dot(A, B)


def red_matmul(A, B):
    return np.matmul(A, B)


def red_outer(x, y):
    return np.outer(x, y)


def red_inner(x, y):
    return np.inner(x, y)


def red_inner_mm(A, B):
    """np.inner of two matrices: contracts the last axes, (2, 3) x (4, 3) -> (2, 4)."""
    return np.inner(A, B)


def red_inner_mv(A, x):
    return np.inner(A, x)


def red_trace(A):
    return np.trace(A * A)


def red_diag_extract(A):
    return np.diag(A) * 2.0


def red_diag_build(x):
    return np.diag(x * x)


def red_cumsum(x):
    return np.cumsum(x * x)


# ------------------------------------------------------------ shapes


def sh_reshape(x):
    return np.reshape(x, (3, 2)) @ np.ones(2)


def sh_reshape_method(x):
    return x.reshape(2, 3) * np.arange(3.0)


def sh_reshape_tuple_method(x):
    return x.reshape((3, 2)) * x.reshape((3, 2))


def sh_transpose(A):
    return np.transpose(A) @ A


def sh_T(A):
    return A.T * 2.0 + A.T @ A.T.T


def sh_swapaxes(a):
    return np.swapaxes(a, 0, 2) * 3.0


def sh_expand_dims(x):
    return np.expand_dims(x, 0) * np.expand_dims(x, 1)


def sh_squeeze(x):
    return np.squeeze(x) * 2.0


def sh_squeeze_axis(x):
    return np.squeeze(x, axis=1) * 2.0


def sh_ravel(A):
    return np.ravel(A) * np.arange(6.0)


def sh_ravel_method(A):
    return A.ravel() * A.ravel()


def sh_broadcast_to(x):
    w = np.reshape(np.arange(12.0), (3, 4))
    return np.broadcast_to(x, (3, 4)) * w


def sh_chained_method(x):
    """A method called on the result of a call: np.arange(6.0).reshape(2, 3)."""
    return np.sum(x * np.arange(6.0).reshape(2, 3))


# ------------------------------------------------------------ constructors


def ctor_all(x):
    """Constructors are constants: zeros, ones, *_like, full, arange, eye, linspace."""
    z = np.zeros(3) + np.ones(3) * 2.0
    f = np.full(3, 0.5)
    a = np.arange(3.0)
    e = np.eye(3)
    s = np.linspace(0.0, 1.0, 3)
    return np.sum(e @ (x * z + f * a + s)) + np.sum(np.zeros_like(x) + np.ones_like(x) * x)


# ------------------------------------------------------------ indexing


def ix_int(x):
    return x[1] * x[0] + x[-1]


def ix_slice(x):
    return x[1:4] * x[::2][:3] + x[-3:]


def ix_step(x):
    return x[::-1] * x[1::2].sum()


def ix_row_col(A):
    return A[:, 0] * A[1, :3]


def ix_row(A, i):
    return A[i, :] * A[i]


def ix_2d_elem(A):
    return A[1, 2] * A[0, 0] - A[-1, -1]


def ix_newaxis(x):
    return x[:, None] * x[None, :]


def ix_bool_mask(x):
    return np.sum(x[x > 0.0] ** 2)


def ix_bool_mask_param(x, mask):
    return x[mask] * 2.0


def ix_int_array(x):
    """repeated indices accumulate."""
    idx = np.array([0, 2, 2, 1, 0, 0])
    return x[idx] * np.arange(6.0)


def ix_int_array_param(x, idx):
    return np.sum(x[idx] ** 2)


# ------------------------------------------------------------ methods


def me_all(A):
    """.sum() .mean() .max() .min() .reshape() .dot() .T .ravel() (.copy() in me_copy)."""
    s = A.sum() + A.mean() * A.max() - A.min()
    v = A.reshape(6)
    w = A.ravel()
    return s * v.dot(w) + A.T.sum(axis=0).dot(A.sum(1)[:2]) + A.sum(axis=1).max()


def me_copy(A):
    B = A.copy()
    return B * A + np.copy(B)


def me_query(x):
    """.shape .ndim .size len() are not differentiated."""
    n = x.shape[0]
    m = len(x)
    return np.sum(x * x) / (n + m + x.ndim + x.size)


# ------------------------------------------------------------ loops


def loop_euler(x, v):
    dt = 0.1
    for _ in range(5):
        x = x + dt * v
        v = v - dt * np.sin(x)
    return np.sum(x * x) + np.sum(v)


def loop_accumulate(x):
    acc = np.zeros_like(x)
    for k in range(4):
        acc = acc + x ** (k + 1) / (k + 1.0)
    return acc


def loop_zero_adjoint(p, v):
    """v's adjoint is still zero in the last iteration of the adjoint loop (p does not feed v)."""
    for _ in range(3):
        p = p + 0.1 * v
        v = v * 0.5
    return np.sum(p * p)


def loop_rows(A):
    total = 0.0
    for i in range(A.shape[0]):
        total = total + np.sum(np.exp(A[i]) * (i + 1.0))
    return total


# ------------------------------------------------------------ realistic programs


def logistic_loss(w, X, y, lam):
    """mean_i log(1 + exp(-y_i x_i . w)) + lam |w|^2."""
    margins = -y * (X @ w)
    return np.mean(np.log(1.0 + np.exp(margins))) + lam * np.sum(w * w)


def softmax_xent(W, b, X, Y):
    """Cross-entropy of softmax(X W + b) against one-hot Y, with a stable log-sum-exp."""
    logits = X @ W + b
    m = np.max(logits, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * (logits - lse), axis=1))


def mlp_loss(W1, b1, W2, b2, X, y):
    """Two-layer tanh network, squared error."""
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def gmm_loglik(means, log_sigmas, weight_logits, x):
    """Log-likelihood of 1-D data x under a K-component Gaussian mixture."""
    wm = np.max(weight_logits)
    log_w = weight_logits - (wm + np.log(np.sum(np.exp(weight_logits - wm))))
    sigmas = np.exp(log_sigmas)
    z = (x[:, None] - means[None, :]) / sigmas
    comp = log_w - 0.5 * z * z - log_sigmas - 0.5 * np.log(2.0 * np.pi)
    cm = np.max(comp, axis=1, keepdims=True)
    ll = cm[:, 0] + np.log(np.sum(np.exp(comp - cm), axis=1))
    return np.sum(ll)


def particles(p, v, n_steps):
    """The paper's particles on (n, 2) arrays: explicit Euler, sum of x*y of final positions."""
    dt = 0.05
    mass = 1.0
    for _ in range(n_steps):
        a = (-0.5 * p - 0.2 * v) / mass
        p = p + dt * v
        v = v + dt * a
    return np.sum(p[:, 0] * p[:, 1])


# ------------------------------------------------------------ jacobian / hessian


def jac_small(x):
    return np.sin(x) * x[0] + np.cumsum(x)


def hess_small(x):
    return np.sum(np.exp(x) * x) + np.sum(x) ** 2 + np.dot(x, np.sin(x))


def hess_two(x, y):
    return np.sum(x * x * y) + np.sum(np.tanh(y)) * np.sum(x)


# ------------------------------------------------------------ dtype


def dtype_fn(x):
    return np.sum(np.sin(x) * x)


# ------------------------------------------------------------ errors


def uses_eig(A):
    return np.sum(np.linalg.eig(A)[0])


def uses_fft(x):
    y = np.fft.fft(x)
    return np.sum(np.abs(y))


def simple_sum_sq(x):
    return np.sum(x * x)


def dense_layers(layers, x):
    """Dense tanh layers: ``layers`` a list of (w, b) pairs, of arrays or of nested lists of floats."""
    h = x
    for w, b in layers:
        h = np.tanh(np.dot(w, h) + b)
    return np.sum(h)
