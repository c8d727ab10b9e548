"""Functions with JAX-style rules for tests/test_custom_rules.py (adcompiler reads source, so they live
in a file).  ``safe_norm``'s rule says its derivative at the origin is 0 (its body divides by zero
there), so a test can tell the rule was used; ``scaled_sin`` and ``cube`` take their vjp from
residuals ``fwd`` returns; ``softplus`` and ``cube`` work on arrays."""

import math

import numpy as np
from scipy import special

import adcompiler


@adcompiler.custom_jvp
def safe_norm(x, y):
    return math.sqrt(x * x + y * y)


@safe_norm.defjvp
def safe_norm_jvp(primals, tangents):
    x, y = primals
    dx, dy = tangents
    r = safe_norm(x, y)
    if r == 0.0:
        return r, 0.0
    return r, (x * dx + y * dy) / r


def uses_safe_norm(x, y):
    return safe_norm(x * y, y) + math.sin(x)


@adcompiler.custom_vjp
def scaled_sin(x, a):
    return a * math.sin(x)


def scaled_sin_fwd(x, a):
    s = math.sin(x)
    return a * s, (math.cos(x), s, a)


def scaled_sin_bwd(res, g):
    c, s, a = res
    return (g * a * c, g * s)


scaled_sin.defvjp(scaled_sin_fwd, scaled_sin_bwd)


def uses_scaled_sin(x, y):
    return scaled_sin(x * x, y) * y


@adcompiler.custom_jvp
def softplus(x):
    return np.logaddexp(0.0, x)


@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,) = primals
    (t,) = tangents
    return softplus(x), t / (1.0 + np.exp(-x))


def uses_softplus(w, x):
    return np.sum(softplus(w * x) ** 2)


@adcompiler.custom_vjp
def cube(x):
    return x * x * x


def cube_fwd(x):
    return x * x * x, x


def cube_bwd(x, g):
    return (3.0 * x * x * g,)


cube.defvjp(cube_fwd, cube_bwd)


def uses_cube(a, b):
    return np.sum(cube(a * b) + a)


def power(x, n=3):
    return x**n


def power_jvp(x, n, t, dn):
    return n * x ** (n - 1) * t


def power_vjp(x, n, g):
    return (n * x ** (n - 1) * g, 0.0)


adcompiler.defrule(power, jvp=power_jvp, vjp=power_vjp)


def erf_jvp(x, t):
    """scipy.special.erf's tangent, written with NumPy (arrays, and second order)."""
    return 2.0 / np.sqrt(np.pi) * np.exp(-x * x) * t


def erf_vjp(x, g):
    return (2.0 / np.sqrt(np.pi) * np.exp(-x * x) * g,)


def erf_loss(w, x):
    return np.sum(special.erf(w * x) ** 2)
