"""Programs with long loops for checkpointed reverse mode (tests/test_checkpoint.py)."""

import math
import pathlib
import sys

import adcompiler

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "samples"))
from long_pendulum import pendulum  # noqa: E402,F401  (samples/long_pendulum.py: every step's adjoint needs its state)


def branchy(x, y, n):
    """A branch inside the loop: its direction is taped, then recomputed per segment."""
    for i in range(1, n, 2):
        if x > y:
            x = x - 0.1 * math.tanh(y) * i / n
        else:
            y = y + 0.05 * x * x
        x, y = math.sin(y) + 0.5 * x, math.cos(x) * y
    return x + 2.0 * y


def orbits(ps, vs, n_steps):
    """Particles in a nonlinear field, a checkpointed loop inside a loop over particles."""
    dt = 0.05
    total = 0.0
    for k in range(len(ps)):
        px = ps[k][0]
        py = ps[k][1]
        vx = vs[k][0]
        vy = vs[k][1]
        for _ in range(n_steps):
            r = math.sqrt(px * px + py * py + 1.0)
            ax = -px / r - 0.2 * vx
            ay = -py / r - 0.2 * vy
            px = px + dt * vx
            py = py + dt * vy
            vx = vx + dt * ax
            vy = vy + dt * ay
        total = total + px * py
    return total


def stops_early(x, n):
    """A loop with a break: not checkpointed (taped as usual), still right."""
    s = x
    for i in range(n):
        s = math.sin(s) + x
        if s > 1.2:
            break
    return s


def appends(x, n):
    """A loop that changes a list: not checkpointed, still right."""
    xs = [x]
    for i in range(n):
        xs.append(math.sin(xs[i]) * x)
    return xs[n]


def state_set_in_branch(x, n):
    """A state variable first assigned in a branch before the loop: not checkpointed, still right."""
    if x > 0.0:
        y = x
    else:
        y = -x
    for i in range(n):
        y = math.cos(y) * x
    return y


def uses_helper(x, n):
    """A loop calling a user function on numbers."""
    for i in range(n):
        x = _step(x, 0.1)
    return x


def _step(x, h):
    return x + h * math.sin(x) * x


RUNS = [0]  # calls of _counted_sin: how many times a loop body ran


def _counted_sin(x):
    RUNS[0] += 1
    return math.sin(x)


adcompiler.defrule(_counted_sin, jvp=lambda x, t: math.cos(x) * t, vjp=lambda x, ct: (math.cos(x) * ct,))


def counted(x, n):
    """A loop whose body runs are counted: the primal sweep, the runs again and the taping runs."""
    for i in range(n):
        x = _counted_sin(x) * x + 0.5
    return x


def tuple_state(x, n):
    """A loop carrying a tuple (its checkpointed gradient was 0: the tuple's shadow was in no snapshot)."""
    st = (x, 1.0)
    for i in range(n):
        st = (st[0] * st[1] + 0.5 * st[0], st[1])
    return st[0]


def list_written_after(x, n):
    """A loop reading a list that is written after it (the recomputation read the changed list: 39 for 12)."""
    a = [x, 0.0]
    y = x
    for i in range(n):
        y = y * a[0]
    a[0] = 5.0
    return y + a[0]
