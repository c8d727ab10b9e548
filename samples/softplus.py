"""Numerically stable log-sum-exp, softplus and a 3-way softmax cross-entropy.

``logsumexp3(a, b, c) = log(exp(a) + exp(b) + exp(c))`` overflows for large
inputs if written naively; subtracting the maximum first keeps every ``exp``
argument <= 0.  Its gradient is the softmax of the inputs.

Straight-line float code using only ``math`` (``max`` and ``abs`` are the
builtins).
"""

import math


def logsumexp3(a, b, c):
    """log(exp(a) + exp(b) + exp(c)), computed without overflow."""
    m = max(a, max(b, c))
    return m + math.log(math.exp(a - m) + math.exp(b - m) + math.exp(c - m))


def softplus(x):
    """log(1 + exp(x)) computed stably as max(x, 0) + log1p(exp(-|x|))."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def cross_entropy3(za, zb, zc, ya, yb, yc):
    """Cross-entropy between softmax(za, zb, zc) and the target probabilities
    (ya, yb, yc): -sum_i y_i log softmax(z)_i."""
    lse = logsumexp3(za, zb, zc)
    return -(ya * (za - lse) + yb * (zb - lse) + yc * (zc - lse))


if __name__ == "__main__":
    print(f"logsumexp3(1000, 1001, 1002) = {logsumexp3(1000.0, 1001.0, 1002.0):.6f}")
    print(f"softplus(-800) = {softplus(-800.0):.3e}, softplus(800) = {softplus(800.0)}")

    try:
        import adcompiler
    except ImportError:
        print("adcompiler is not installed; skipping the derivative demo")
    else:
        lse = adcompiler.differentiate(logsumexp3)
        # The gradient of log-sum-exp is the softmax: it sums to 1.
        grad = lse.grad(1000.0, 1001.0, 1002.0)
        print("softmax via gradient:", grad, "sum =", sum(grad))
        ce = adcompiler.differentiate(wrt=("za", "zb", "zc"))(cross_entropy3)
        print("d cross-entropy / d logits:", ce.grad(0.5, -1.0, 2.0, 0.0, 0.0, 1.0))
