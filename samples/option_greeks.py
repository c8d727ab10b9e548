"""Black-Scholes Greeks from adcompiler: jacobian, grad and hessian versus
the closed-form formulas.

The Greeks of an option are the derivatives of its price: delta = dC/dS,
vega = dC/dsigma, rho = dC/dr, theta = -dC/dT (first order, one reverse pass
or one forward pass with n directions), and gamma = d2C/dS2, vanna =
d2C/dS dsigma, volga = d2C/dsigma2 (second order, forward over reverse).

The pricing functions use only ``math``; NumPy and adcompiler are used only
by the demo.
"""

import math


def norm_cdf(x):
    """Standard normal cumulative distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def call_price(spot, strike, rate, vol, t):
    """Black-Scholes price of a European call (no dividends).

    The normal CDF is written inline rather than by calling ``norm_cdf``:
    adcompiler's hessian does not yet handle functions that call other user
    functions.
    """
    sqrt_t = math.sqrt(t)
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol * vol) * t) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    n1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    n2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    return spot * n1 - strike * math.exp(-rate * t) * n2


if __name__ == "__main__":
    import numpy as np

    import adcompiler

    def closed_form(spot, strike, rate, vol, t):
        """The textbook Greeks of a call."""
        sqrt_t = math.sqrt(t)
        d1 = (math.log(spot / strike) + (rate + 0.5 * vol * vol) * t) / (vol * sqrt_t)
        d2 = d1 - vol * sqrt_t
        pdf = math.exp(-0.5 * d1 * d1) / math.sqrt(2.0 * math.pi)
        vega = spot * pdf * sqrt_t
        return {
            "delta": norm_cdf(d1),
            "vega": vega,
            "rho": strike * t * math.exp(-rate * t) * norm_cdf(d2),
            "theta": -spot * pdf * vol / (2.0 * sqrt_t) - rate * strike * math.exp(-rate * t) * norm_cdf(d2),
            "gamma": pdf / (spot * vol * sqrt_t),
            "vanna": -pdf * d2 / vol,
            "volga": vega * d1 * d2 / vol,
        }

    spot, strike, rate, vol, t = 100.0, 105.0, 0.03, 0.2, 0.75
    print(
        f"call price C(S={spot}, K={strike}, r={rate}, sigma={vol}, T={t}) = {call_price(spot, strike, rate, vol, t):.10f}"
    )
    exact = closed_form(spot, strike, rate, vol, t)

    # first order: all five partial derivatives in one reverse pass
    d = adcompiler.differentiate(call_price)
    g = d.grad(spot, strike, rate, vol, t)
    # and delta, vega, rho as a 1 x 3 Jacobian, forward mode (3 directions in one pass)
    J = adcompiler.jacobian(call_price, wrt=("spot", "vol", "rate"), mode="forward")(spot, strike, rate, vol, t)
    ad = {"delta": J[0, 0], "vega": J[0, 1], "rho": J[0, 2], "theta": -g[4]}
    assert abs(J[0, 0] - g[0]) < 1e-14 and abs(J[0, 1] - g[3]) < 1e-13 and abs(J[0, 2] - g[2]) < 1e-13

    # second order: the Hessian in (spot, vol)
    H = adcompiler.hessian_matrix(call_price, wrt=("spot", "vol"))(spot, strike, rate, vol, t)
    ad.update(gamma=H[0, 0], vanna=H[0, 1], volga=H[1, 1])
    assert abs(H[0, 1] - H[1, 0]) < 1e-12

    print(f"{'greek':>6} {'adcompiler':>22} {'closed form':>22} {'rel. diff':>10}")
    for name in ("delta", "vega", "rho", "theta", "gamma", "vanna", "volga"):
        a, c = float(ad[name]), exact[name]
        print(f"{name:>6} {a:22.15g} {c:22.15g} {abs(a - c) / max(abs(c), 1e-300):10.1e}")
    print(f"check_grad(call_price): {adcompiler.check_grad(call_price, spot, strike, rate, vol, t):.1e}")
    print("full Hessian in (S, K, r, sigma, T):")
    print(np.array2string(adcompiler.hessian_matrix(d)(spot, strike, rate, vol, t), precision=6, suppress_small=True))
