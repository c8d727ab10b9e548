"""scipy.optimize.minimize on the n-dimensional Rosenbrock function, with and
without adcompiler's gradient.

Without ``jac``, SciPy's BFGS estimates the gradient by forward differences:
n + 1 function evaluations per gradient, and only about half the digits.
With ``jac`` from reverse mode, one gradient costs a small constant times one
function evaluation, whatever n is.  The demo prints the evaluation counts
(nfev, njev), the wall time and the accuracy reached for both.

The functions are plain float code on a list (no imports at all); SciPy,
NumPy and adcompiler are used only by the demo.
"""


def rosenbrock(xs):
    """sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2; minimum 0 at xs = [1, ..., 1]."""
    total = 0.0
    for i in range(len(xs) - 1):
        total += 100.0 * (xs[i + 1] - xs[i] * xs[i]) ** 2 + (1.0 - xs[i]) ** 2
    return total


def rosenbrock_grad_by_hand(xs):
    """The gradient written out by hand, as a reference for the demo."""
    n = len(xs)
    g = [0.0] * n
    for i in range(n - 1):
        r = xs[i + 1] - xs[i] * xs[i]
        g[i] += -400.0 * xs[i] * r - 2.0 * (1.0 - xs[i])
        g[i + 1] += 200.0 * r
    return g


if __name__ == "__main__":
    import time

    import numpy as np
    from scipy.optimize import minimize, rosen_der

    import adcompiler

    d = adcompiler.differentiate(rosenbrock)

    def f(x):
        return rosenbrock(x.tolist())

    def grad(x):
        return np.array(d.grad(x.tolist()))

    x_check = np.linspace(-1.2, 1.3, 7)
    err = np.max(np.abs(grad(x_check) - rosen_der(x_check)))
    print(f"max |adcompiler grad - scipy.optimize.rosen_der| at a test point: {err:.1e}")
    hand = np.array(rosenbrock_grad_by_hand(x_check.tolist()))
    print(f"max |adcompiler grad - hand-written gradient|: {np.max(np.abs(grad(x_check) - hand)):.1e}")
    print(f"check_grad: {adcompiler.check_grad(rosenbrock, x_check.tolist()):.1e}")

    xs = [0.5] * 50
    t0 = time.perf_counter()
    for _ in range(200):
        rosenbrock(xs)
    t_f = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(200):
        d.grad(xs)
    t_g = time.perf_counter() - t0
    print(f"n = 50: one gradient costs {t_g / t_f:.1f} function evaluations (finite differences: 51)")

    for n in (10, 50):
        x0 = np.zeros(n)
        print(f"\nn = {n}, BFGS from x0 = [0, ..., 0]")
        print(f"  {'gradient':<22}{'nit':>6}{'nfev':>8}{'njev':>7}{'time [s]':>10}{'max|x - 1|':>13}{'f(x)':>11}")
        for label, jac in (("finite differences", None), ("adcompiler (reverse)", grad)):
            grad(x0)  # build the derivative code before timing
            t0 = time.perf_counter()
            res = minimize(f, x0, jac=jac, method="BFGS", options={"gtol": 1e-6, "maxiter": 20000})
            elapsed = time.perf_counter() - t0
            print(
                f"  {label:<22}{res.nit:>6}{res.nfev:>8}{res.njev:>7}{elapsed:>10.3f}"
                f"{np.max(np.abs(res.x - 1.0)):>13.1e}{res.fun:>11.1e}"
            )
