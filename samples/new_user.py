"""Five programs as a new user writes them first (issue 37's new-user pass), each differentiated as
written: logistic regression with dict parameters fitted by ``scipy.optimize``, an MLP on a list of
``(W, b)`` trained by SGD, an RK4 integrator whose state is unpacked each step, a model class with
layer objects whose loss returns a dict of metrics (``has_aux``), and an N-body simulation (with
``backend="numba"`` where Numba is installed).  The sixth, a Gaussian-process likelihood through
``scipy.linalg.cho_factor``, is in tests/test_scipy_linalg_stats.py.

Run it: ``python samples/new_user.py``.
"""

from __future__ import annotations

import numpy as np

import adcompiler

# ---- logistic regression, parameters in a dict ----------------------------------------------------


def logistic_loss(params, X, y):
    """Mean logistic loss of a linear model with parameters ``{"w": w, "b": b}``."""
    z = X @ params["w"] + params["b"]
    return np.mean(np.logaddexp(0.0, z) - y * z) + 0.01 * np.sum(params["w"] ** 2)


def logistic_loss_arrays(w, b, X, y):
    """The same loss of ``w`` and ``b`` as arrays (the benchmark's reference)."""
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z) + 0.01 * np.sum(w**2)


def fit_logistic(X, y):
    """Fit with ``scipy.optimize.minimize`` (L-BFGS), the dict ravelled to a vector and back."""
    from scipy.optimize import minimize

    params = {"w": np.zeros(X.shape[1]), "b": np.array(0.0)}
    x0, unravel = adcompiler.ravel(params)
    value_and_grad = adcompiler.value_and_grad(logistic_loss)

    def fun(x):
        value, g = value_and_grad(unravel(x), X, y)
        return value, adcompiler.ravel(g)[0]

    fit = minimize(fun, x0, jac=True, method="L-BFGS-B")
    return unravel(fit.x), fit


# ---- an MLP on a list of (W, b), trained by SGD ---------------------------------------------------


def mlp(layers, x):
    h = x
    for W, b in layers[:-1]:
        h = np.tanh(W @ h + b)
    W, b = layers[-1]
    return W @ h + b


def mlp_loss(layers, x):
    return np.sum(mlp(layers, x) ** 2)


def batch_loss(layers, xs, ys):
    total = 0.0
    for x, y in zip(xs, ys):
        total = total + np.sum((mlp(layers, x) - y) ** 2)
    return total / len(xs)


def sgd(layers, xs, ys, steps=50, rate=0.05):
    """Plain gradient descent: the gradient is a list of (dW, db) tuples, as the parameters are."""
    grad = adcompiler.grad(batch_loss)
    for _ in range(steps):
        g = grad(layers, xs, ys)
        layers = [(W - rate * dW, b - rate * db) for (W, b), (dW, db) in zip(layers, g)]
    return layers


# ---- RK4 -----------------------------------------------------------------------------------------


def lotka_volterra(y, theta):
    """Two predator-prey pairs; the state is unpacked as a user writes it."""
    a, b, c, d = y
    alpha, beta = theta
    return np.array([alpha * a - a * b, a * b - beta * b, alpha * c - c * d, c * d - beta * d])


def rk4(y, theta, dt, steps):
    for _ in range(steps):
        k1 = lotka_volterra(y, theta)
        k2 = lotka_volterra(y + 0.5 * dt * k1, theta)
        k3 = lotka_volterra(y + 0.5 * dt * k2, theta)
        k4 = lotka_volterra(y + dt * k3, theta)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y


def rk4_loss(y0, theta):
    y = rk4(y0, theta, 0.01, 100)
    return np.sum(y**2)


# ---- an N-body simulation --------------------------------------------------------------------------


def nbody_kinetic_energy(pos, vel, masses, dt, steps):
    """Kinetic energy after ``steps`` explicit Euler steps of softened gravity between the bodies."""
    n = pos.shape[0]
    for step in range(steps):
        acc = np.zeros_like(pos)
        for i in range(n):
            for j in range(n):
                if i != j:
                    d = pos[j] - pos[i]
                    r = np.sqrt(np.sum(d * d) + 1e-3)
                    acc[i] = acc[i] + masses[j] * d / r**3
        vel = vel + dt * acc
        pos = pos + dt * vel
    return 0.5 * np.sum(masses[:, None] * vel * vel)


# ---- a model class with layer objects and a dict of metrics -------------------------------------


class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, h):
        return np.tanh(self.W @ h + self.b)


class Model:
    def __init__(self, layers):
        self.layers = layers

    def forward(self, x):
        h = x
        for layer in self.layers:
            h = layer(h)
        return h

    def loss(self, x):
        return np.sum(self.forward(x) ** 2)

    def loss_and_metrics(self, x, target):
        pred = self.forward(x)
        mse = np.mean((pred - target) ** 2)
        return mse, {"mse": mse, "max_error": np.max(np.abs(pred - target))}


def main() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((100, 3))
    y = (X @ np.array([1.5, -2.0, 0.5]) + 0.3 > 0).astype(float)
    params, fit = fit_logistic(X, y)
    print("logistic regression:", fit.success, np.round(params["w"], 3), np.round(float(params["b"]), 3))

    layers = [(rng.standard_normal((4, 2)) * 0.5, np.zeros(4)), (rng.standard_normal((1, 4)) * 0.5, np.zeros(1))]
    xs = [rng.standard_normal(2) for _ in range(16)]
    ys = [np.array([np.sin(x[0]) * x[1]]) for x in xs]
    print("MLP loss before and after SGD:", batch_loss(layers, xs, ys), batch_loss(sgd(layers, xs, ys), xs, ys))

    y0, theta = np.array([1.0, 0.5, 0.8, 0.3]), np.array([1.1, 0.4])
    g_y0, g_theta = adcompiler.grad(rk4_loss, argnums=(0, 1))(y0, theta)
    print("RK4 gradient:", np.round(g_y0, 4), np.round(g_theta, 4))

    pos, vel, masses = rng.standard_normal((4, 3)), 0.1 * rng.standard_normal((4, 3)), np.ones(4)
    nbody = adcompiler.differentiate(nbody_kinetic_energy, wrt=("pos", "vel", "masses"))
    print("N-body gradient in the first body's position:", np.round(nbody.grad(pos, vel, masses, 0.01, 5)[0][0], 4))

    model = Model([Dense(rng.standard_normal((5, 3)), np.zeros(5)), Dense(rng.standard_normal((2, 5)), np.zeros(2))])
    g, metrics = adcompiler.grad(Model.loss_and_metrics, has_aux=True)(model, rng.standard_normal(3), np.ones(2))
    print("model gradient:", type(g).__name__, [type(layer).__name__ for layer in g.layers], g.layers[0].W.shape)
    print("metrics:", {k: round(float(v), 4) for k, v in metrics.items()})


if __name__ == "__main__":
    main()
