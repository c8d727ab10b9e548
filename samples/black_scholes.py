"""Black-Scholes price of a European call option, and its "Greeks".

The sensitivities of an option price to its inputs (delta = d/d spot,
vega = d/d volatility, rho = d/d rate, theta = -d/d time) are exactly the
gradient of the pricing function, which makes this a classic use of reverse
mode AD: one reverse pass gives all the Greeks at once.

All functions are straight-line float code that only uses ``math``; the
price function calls the helper ``norm_cdf``.
"""

import math


def norm_cdf(x):
    """Cumulative distribution function of the standard normal distribution."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def d1_d2(spot, strike, rate, vol, t):
    """The two standardised log-moneyness terms of the Black-Scholes formula."""
    vol_sqrt_t = vol * math.sqrt(t)
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol**2) * t) / vol_sqrt_t
    d2 = d1 - vol_sqrt_t
    return d1, d2


def call_price(spot, strike, rate, vol, t):
    """Price of a European call option.

    spot: current price of the underlying, strike: strike price,
    rate: continuously compounded risk-free rate, vol: volatility (per year),
    t: time to expiry in years.
    """
    d1, d2 = d1_d2(spot, strike, rate, vol, t)
    discount = math.exp(-rate * t)
    return spot * norm_cdf(d1) - strike * discount * norm_cdf(d2)


def put_price(spot, strike, rate, vol, t):
    """Price of a European put option, from put-call parity."""
    call = call_price(spot, strike, rate, vol, t)
    return call - spot + strike * math.exp(-rate * t)


if __name__ == "__main__":
    args = (100.0, 105.0, 0.03, 0.2, 0.75)
    print(f"call price: {call_price(*args):.6f}")
    print(f"put price:  {put_price(*args):.6f}")

    try:
        import adcompiler
    except ImportError:
        print("adcompiler is not installed; skipping the derivative demo")
    else:
        price = adcompiler.differentiate(call_price)
        value, greeks = price.value_and_grad(*args)
        delta, d_strike, rho, vega, d_t = greeks
        print(f"price={value:.6f} delta={delta:.6f} vega={vega:.6f} rho={rho:.6f}")
        print(f"theta (per year) = {-d_t:.6f}")

        # Only delta, by forward mode: one tangent per parameter.
        _, delta_fwd = price.jvp(args, (1.0, 0.0, 0.0, 0.0, 0.0))
        print(f"delta by forward mode = {delta_fwd:.6f}")
