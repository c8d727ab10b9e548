"""An ODE solution by Runge-Kutta (GradBench eval ``ode``, cmpad's ``an_ode``).

y_0' = x_0, y_i' = x_i y_{i-1} for i > 0, y(0) = 0, integrated to t = 2 with ``s`` RK4 steps.
The derivative asked for is the gradient of the last entry of y(2) with respect to x.
"""

import numpy as np


def ode_fun(x, y):
    """The right-hand side: (x_0, x_1 y_0, x_2 y_1, ...)."""
    return np.concatenate((x[:1], x[1:] * y[:-1]))


def solve(x, s):
    """y(2) by ``s`` steps of the classical fourth-order Runge-Kutta method."""
    tf = 2.0
    h = tf / s
    y = np.zeros(len(x))
    for _ in range(s):
        k1 = ode_fun(x, y)
        k2 = ode_fun(x, y + h / 2 * k1)
        k3 = ode_fun(x, y + h / 2 * k2)
        k4 = ode_fun(x, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def last(x, s):
    """The last entry of the solution: the function whose gradient the eval asks for."""
    return solve(x, s)[-1]
