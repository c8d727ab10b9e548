"""Projectile motion without air resistance.

A projectile is launched from height ``h0`` with speed ``speed`` at
``angle`` radians above the horizontal, under gravity ``g``.  The helper
functions split the launch velocity into components and compute the time of
flight; ``projectile_range`` and ``max_height`` build on them.

Derivatives answer design questions directly: d range / d angle is zero at
the optimal launch angle (45 degrees when launched from the ground), and
d range / d speed tells how much farther a slightly faster throw goes.

Straight-line float code using only ``math``.
"""

import math


def velocity_components(speed, angle):
    """Horizontal and vertical components of the launch velocity."""
    return speed * math.cos(angle), speed * math.sin(angle)


def flight_time(vy, h0, g):
    """Time until the projectile returns to height 0 (positive root of the
    quadratic h0 + vy t - g t^2 / 2 = 0)."""
    return (vy + math.sqrt(vy * vy + 2.0 * g * h0)) / g


def projectile_range(speed, angle, h0, g):
    """Horizontal distance travelled before hitting the ground."""
    vx, vy = velocity_components(speed, angle)
    t = flight_time(vy, h0, g)
    return vx * t


def max_height(speed, angle, h0, g):
    """Highest point of the trajectory."""
    vx, vy = velocity_components(speed, angle)
    return h0 + vy**2 / (2.0 * g)


def landing_state(speed, angle, h0, g):
    """Range, flight time and impact speed, as a 3-tuple."""
    vx, vy = velocity_components(speed, angle)
    t = flight_time(vy, h0, g)
    vy_end = vy - g * t
    impact_speed = math.sqrt(vx * vx + vy_end * vy_end)
    return vx * t, t, impact_speed


if __name__ == "__main__":
    args = (20.0, math.radians(40.0), 1.5, 9.81)
    print(f"range = {projectile_range(*args):.4f} m")
    print(f"max height = {max_height(*args):.4f} m")
    print("landing (range, time, speed) =", landing_state(*args))

    try:
        import adcompiler
    except ImportError:
        print("adcompiler is not installed; skipping the derivative demo")
    else:
        rng = adcompiler.differentiate(wrt=("speed", "angle"))(projectile_range)
        d_speed, d_angle = rng.grad(*args)
        print(f"d range / d speed = {d_speed:.4f}, d range / d angle = {d_angle:.4f}")
