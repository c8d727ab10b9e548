"""The evals GradBench's PyTorch tool lacks (det, llsq, ode, particle, saddle), and lse and kmeans,
in PyTorch (CPU, float64): the PyTorch peer for them.  Written here from each eval's README;
``peer_tool.py`` uses GradBench's own PyTorch code for ba, gmm, ht, kmeans, lse and lstm when given
a GradBench checkout.  Derivatives by ``torch.autograd`` (reverse) and ``torch.func`` (``grad``,
``jvp``, nested for particle and saddle).
"""

from __future__ import annotations

import numpy as np
import torch
from protocol import Function


def tensor(x, grad=False):
    return torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=grad)


def T(x):
    """A float64 tensor of constants (torch's default dtype is float32)."""
    return torch.tensor(x, dtype=torch.float64)


def tolist(t):
    return t.detach().numpy().tolist() if isinstance(t, torch.Tensor) else np.asarray(t).tolist()


def backward_grad(f, *args):
    """The gradient of ``f(*args)`` with respect to its first argument (a leaf needing grad)."""
    x = args[0]
    x.grad = None
    f(*args).backward()
    return x.grad


def no_grad(f):
    def run(*args):
        with torch.no_grad():
            return f(*args)

    return run


# ------------------------------------------------------------------------------------------------ lse


def logsumexp(x):
    a = torch.max(x)
    return a + torch.log(torch.sum(torch.exp(x - a)))


def lse():
    prepare = lambda raw: (tensor(raw["x"], grad=True),)  # noqa: E731
    return {
        "primal": Function(prepare, no_grad(logsumexp), float),
        "gradient": Function(prepare, lambda x: backward_grad(logsumexp, x), tolist),
    }


# ------------------------------------------------------------------------------------------------ det


def det_of_minor(A, rows, cols):
    if len(rows) == 1:
        return A[rows[0], cols[0]]
    total = 0.0
    sign = 1.0
    for j in range(len(cols)):
        total = total + sign * A[rows[0], cols[j]] * det_of_minor(A, rows[1:], cols[:j] + cols[j + 1 :])
        sign = -sign
    return total


def det_by_minors(A):
    ell = A.shape[0]
    return det_of_minor(A, list(range(ell)), list(range(ell)))


def det():
    prepare = lambda raw: (tensor(np.reshape(raw["A"], (raw["ell"], raw["ell"])), grad=True),)  # noqa: E731
    return {
        "primal": Function(prepare, no_grad(det_by_minors), float),
        "gradient": Function(prepare, lambda A: backward_grad(det_by_minors, A), lambda g: tolist(g.reshape(-1))),
    }


# ----------------------------------------------------------------------------------------------- llsq


def llsq_objective(x, n):
    t = -1.0 + torch.arange(n, dtype=torch.float64) * 2.0 / (n - 1)
    powers = torch.vander(t, x.shape[0], increasing=True)
    r = torch.sign(t) - powers @ x
    return 0.5 * torch.sum(r * r)


def llsq():
    prepare = lambda raw: (tensor(raw["x"], grad=True), int(raw["n"]))  # noqa: E731
    return {
        "primal": Function(prepare, no_grad(llsq_objective), float),
        "gradient": Function(prepare, lambda x, n: backward_grad(llsq_objective, x, n), tolist),
    }


# ------------------------------------------------------------------------------------------------ ode


def ode_fun(x, y):
    return torch.cat((x[:1], x[1:] * y[:-1]))


def ode_solve(x, s):
    h = 2.0 / s
    y = torch.zeros_like(x)
    for _ in range(s):
        k1 = ode_fun(x, y)
        k2 = ode_fun(x, y + h / 2 * k1)
        k3 = ode_fun(x, y + h / 2 * k2)
        k4 = ode_fun(x, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def ode():
    prepare = lambda raw: (tensor(raw["x"], grad=True), int(raw["s"]))  # noqa: E731
    return {
        "primal": Function(prepare, no_grad(ode_solve), tolist),
        "gradient": Function(prepare, lambda x, s: backward_grad(lambda x, s: ode_solve(x, s)[-1], x, s), tolist),
    }


# --------------------------------------------------------------------------------------------- kmeans


def kmeans_cost(points, centroids):
    dist2 = (points * points).sum(1)[:, None] + (centroids * centroids).sum(1)[None, :] - 2.0 * points @ centroids.T
    return torch.min(dist2, dim=1).values.sum()


def kmeans():
    prepare = lambda raw: (tensor(raw["points"]), tensor(raw["centroids"]))  # noqa: E731

    def direction(points, centroids):
        gradient = torch.func.grad(kmeans_cost, argnums=1)
        g, h = torch.func.jvp(lambda c: gradient(points, c), (centroids,), (torch.ones_like(centroids),))
        return g / h

    return {
        "cost": Function(prepare, no_grad(kmeans_cost), float),
        "dir": Function(prepare, direction, tolist),
    }


# ------------------------------------------------------------------------------------------- particle


def potential(x, w):
    c1 = torch.stack((T(10.0), 10.0 - w))
    c2 = T([10.0, 0.0])
    return 1.0 / torch.linalg.norm(x - c1) + 1.0 / torch.linalg.norm(x - c2)


def force(x, w, forward):
    if forward:
        _, dx = torch.func.jvp(lambda x: potential(x, w), (x,), (T([1.0, 0.0]),))
        _, dy = torch.func.jvp(lambda x: potential(x, w), (x,), (T([0.0, 1.0]),))
        return -torch.stack((dx, dy))
    return -torch.func.grad(potential)(x, w)


def naive_euler(w, inner_forward):
    x = T([0.0, 8.0])
    xdot = T([0.75, 0.0])
    dt = 0.1
    while True:
        xddot = force(x, w, inner_forward)
        x_new = x + dt * xdot
        if x_new[1] > 0.0:
            x, xdot = x_new, xdot + dt * xddot
        else:
            break
    delta_t_f = -x[1] / xdot[1]
    x_t_f = x + delta_t_f * xdot
    return x_t_f[0] * x_t_f[0]


def argmin(f, g, x):
    """GradBench's multivariate_argmin, on NumPy values."""
    fx, gx = f(x), g(x)
    eta, i = 1e-5, 0
    while np.linalg.norm(gx) > 1e-5:
        if i == 10:
            eta, i = 2.0 * eta, 0
            continue
        x_prime = x - eta * gx
        if np.linalg.norm(x - x_prime) <= 1e-5:
            break
        fx_prime = f(x_prime)
        if fx_prime < fx:
            x, fx, gx = x_prime, fx_prime, g(x_prime)
            i += 1
        else:
            eta, i = eta / 2.0, 0
    return x


def particle_solve(w0, outer_forward, inner_forward):
    f = lambda w: naive_euler(w, inner_forward)  # noqa: E731

    def gradient(w):
        w = T(float(w[0]))
        if outer_forward:
            _, dw = torch.func.jvp(f, (w,), (T(1.0),))
        else:
            dw = torch.func.grad(f)(w)
        return np.array([float(dw)])

    objective = lambda w: float(f(T(float(w[0]))))  # noqa: E731
    return float(argmin(objective, gradient, np.array([w0]))[0])


def particle():
    prepare = lambda raw: (float(raw["w"]),)  # noqa: E731
    modes = {"rr": (False, False), "rf": (False, True), "fr": (True, False), "ff": (True, True)}
    return {
        name: Function(prepare, lambda w, o=o, i=i: particle_solve(w, o, i), float) for name, (o, i) in modes.items()
    }


# --------------------------------------------------------------------------------------------- saddle


def saddle_f(x, y):
    return (x[0] * x[0] + x[1] * x[1]) - (y[0] * y[0] + y[1] * y[1])


def gradient2(f, x, forward):
    """The gradient of ``f`` at the 2-vector ``x``."""
    if forward:
        _, d0 = torch.func.jvp(f, (x,), (T([1.0, 0.0]),))
        _, d1 = torch.func.jvp(f, (x,), (T([0.0, 1.0]),))
        return torch.stack((d0, d1))
    return torch.func.grad(f)(x)


def inner_max(x, start, inner_forward):
    y = start
    fy = -saddle_f(x, y)
    gy = -gradient2(lambda y: saddle_f(x, y), y, inner_forward)
    eta, i = 1e-5, 0
    while torch.linalg.norm(gy) > 1e-5:
        if i == 10:
            eta, i = 2.0 * eta, 0
            continue
        y_prime = y - eta * gy
        if torch.linalg.norm(y - y_prime) <= 1e-5:
            break
        fy_prime = -saddle_f(x, y_prime)
        if fy_prime < fy:
            y, fy = y_prime, fy_prime
            gy = -gradient2(lambda y: saddle_f(x, y), y, inner_forward)
            i += 1
        else:
            eta, i = eta / 2.0, 0
    return saddle_f(x, y)


def saddle_solve(start, outer_forward, inner_forward):
    s = T(np.asarray(start, dtype=np.float64))
    cost = lambda x: inner_max(x, s, inner_forward)  # noqa: E731
    x = argmin(
        lambda x: float(cost(T(x))),
        lambda x: gradient2(cost, T(x), outer_forward).detach().numpy(),
        np.asarray(start, dtype=np.float64),
    )
    xt = T(x)
    minus_f = lambda y: -saddle_f(xt, y)  # noqa: E731
    y = argmin(
        lambda y: float(minus_f(T(y))),
        lambda y: gradient2(minus_f, T(y), outer_forward).detach().numpy(),
        np.asarray(start, dtype=np.float64),
    )
    return np.concatenate((x, y))


def saddle():
    prepare = lambda raw: (np.asarray(raw["start"], dtype=np.float64),)  # noqa: E731
    modes = {"rr": (False, False), "rf": (False, True), "fr": (True, False), "ff": (True, True)}
    return {
        name: Function(prepare, lambda s, o=o, i=i: saddle_solve(s, o, i), tolist) for name, (o, i) in modes.items()
    }


MAKERS = {
    "det": det,
    "kmeans": kmeans,
    "llsq": llsq,
    "lse": lse,
    "ode": ode,
    "particle": particle,
    "saddle": saddle,
}


def functions(eval_name: str) -> dict[str, Function]:
    if eval_name not in MAKERS:
        raise KeyError(f"no PyTorch port of {eval_name}: GradBench's PyTorch tool has it (give --gradbench)")
    return MAKERS[eval_name]()
