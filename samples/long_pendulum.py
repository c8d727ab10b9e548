"""A long simulation differentiated in reverse mode with checkpointing.

``pendulum(theta, omega, n)`` runs ``n`` explicit-Euler steps of a damped,
nonlinear pendulum and returns ``theta * omega`` at the end.  Every step's
adjoint needs that step's state, so plain reverse mode tapes all ``n`` states;
``differentiate(pendulum, checkpoint=True)`` keeps one snapshot every
``isqrt(n)`` steps and re-runs one segment at a time in the adjoint sweep, so
the tape holds about ``2 * sqrt(n)`` states (see adcompiler/checkpoint.py).

    python samples/long_pendulum.py            # gradients and peak memory, both ways
    adc compile samples/long_pendulum.py --checkpoint sqrt -o pendulum_ad.py
"""

import math


def pendulum(theta, omega, n):
    """theta * omega after n steps of theta'' = -sin(theta) - 0.1 omega |omega| (dt = 0.01)."""
    dt = 0.01
    for i in range(n):
        acc = -math.sin(theta) - 0.1 * omega * abs(omega)
        theta = theta + dt * omega
        omega = omega + dt * acc
    return theta * omega


if __name__ == "__main__":
    import tracemalloc

    n = 20000
    print(f"pendulum(0.3, 0.2, {n}) =", pendulum(0.3, 0.2, n))
    try:
        import adcompiler
    except ImportError:
        print("adcompiler is not installed; skipping the derivative demo")
    else:
        h = 1e-6
        fd = (pendulum(0.3 + h, 0.2, n) - pendulum(0.3 - h, 0.2, n)) / (2 * h)
        for checkpoint in (None, True):
            f = adcompiler.differentiate(pendulum, wrt=("theta", "omega"), checkpoint=checkpoint)
            f.grad(0.3, 0.2, n)  # generate and load the code first
            tracemalloc.start()
            d_theta, d_omega = f.grad(0.3, 0.2, n)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(
                f"checkpoint={checkpoint!s:5}  d/dtheta = {d_theta:.10f}  d/domega = {d_omega:.10f}  peak {peak / 1e6:.2f} MB"
            )
            assert abs(d_theta - fd) <= 1e-5 * max(1.0, abs(fd)), (d_theta, fd)
        print(f"central difference d/dtheta = {fd:.10f}")
