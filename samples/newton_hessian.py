"""Newton's method for minimising a smooth function of several variables.

Each step solves H(x) p = -g(x) and moves to x + p, with the gradient g from
reverse mode and the Hessian H from forward mode over the reverse-mode code
(``adcompiler.hessian``).  Near the minimum the error roughly squares at every
step (quadratic convergence): the number of correct digits doubles.

The objective is plain float code using only ``math``; NumPy and adcompiler
are used only by the demo.
"""

import math


def objective(xs):
    """A smooth convex function of a list of variables, minimised at xs = [1, ..., 1].

    sum_i (exp(x_i - 1) - x_i + (i + 1)/2 (x_i - 1)^2), plus a coupling
    1/4 (x_i - x_{i+1})^2 (1 + x_i^2 / 10) between neighbours that vanishes
    when all x_i are equal.  Not quadratic, so Newton needs several steps.
    """
    n = len(xs)
    total = 0.0
    for i in range(n):
        total += math.exp(xs[i] - 1.0) - xs[i] + 0.5 * (i + 1) * (xs[i] - 1.0) ** 2
    for i in range(n - 1):
        total += 0.25 * (xs[i] - xs[i + 1]) ** 2 * (1.0 + 0.1 * xs[i] ** 2)
    return total


def booth_like(x, y):
    """Booth's function plus cosh(x - 1): two variables, minimum at (1, 3)."""
    return (x + 2.0 * y - 7.0) ** 2 + (2.0 * x + y - 5.0) ** 2 + math.cosh(x - 1.0)


if __name__ == "__main__":
    import numpy as np

    import adcompiler

    def newton(f, x0, steps=8, tol=1e-14):
        d = adcompiler.differentiate(f)
        hess = adcompiler.hessian_matrix(d)
        x = np.array(x0, dtype=float)
        history = []
        for k in range(steps):
            g = np.array(d.grad(list(x)))
            gnorm = float(np.linalg.norm(g))
            history.append((k, f(list(x)), gnorm))
            print(f"  iter {k}: f = {f(list(x)):.15f}   |grad| = {gnorm:.3e}")
            if gnorm < tol:
                break
            p = np.linalg.solve(hess(list(x)), -g)
            x = x + p
        return x, history

    print("Newton's method on objective(xs), n = 5, from xs = [3, -2, 0.5, 2, -1]:")
    x, history = newton(objective, [3.0, -2.0, 0.5, 2.0, -1.0])
    print("  minimiser:", np.array2string(x, precision=12))
    norms = [h[2] for h in history if h[2] > 0]
    ratios = [math.log(b) / math.log(a) for a, b in zip(norms, norms[1:]) if 0 < a < 1 and 0 < b < 1 and b > 1e-15]
    if ratios:
        print("  log|g_{k+1}| / log|g_k| (about 2 = quadratic):", ", ".join(f"{r:.2f}" for r in ratios))

    print("Newton's method on booth_like(x, y), from (-4, 8):")
    d2 = adcompiler.differentiate(booth_like)
    h2 = adcompiler.hessian_matrix(d2)
    p = np.array([-4.0, 8.0])
    for k in range(7):
        g = np.array(d2.grad(*p))
        print(f"  iter {k}: (x, y) = ({p[0]:.15f}, {p[1]:.15f})   |grad| = {np.linalg.norm(g):.3e}")
        if np.linalg.norm(g) < 1e-14:
            break
        p = p + np.linalg.solve(h2(*p), -g)
