"""Plain user functions with control flow that test_control_flow.py differentiates.

They live in a real module because adcompiler reads source with
inspect.getsource. Only imports and plain function definitions belong here.
Integer parameters (n, start, stop, step, ...) are never differentiated.
"""

import math

# ------------------------------------------------------------ for loops


def pow_loop(x, n):
    y = 1.0
    k = 0
    for i in range(n):
        y = y * x
        k += 1
    return y


def double_loop(x, n):
    for i in range(n):
        x = x + x
    return x


def range_sum(x, start, stop, step):
    s = 0.0
    for i in range(start, stop, step):
        s = s + i * x * x
    return s


def range_mix(x, start, stop, step):
    y = x
    for i in range(start, stop, step):
        y = math.sin(y) + i * x
    return y


def horner_down(x, n):
    y = 0.0
    for i in range(n, 0, -1):
        y = y * x + i
    return y


def range_one_arg_stop_start(x, a, b):
    y = x
    for i in range(a, b):
        y = y * 0.5 + x
    return y


def overwrite_loop(x, n):
    y = x
    for i in range(n):
        y = math.sin(x) * (i + 1)
    return y


def nested_loops(x, n, m):
    s = 0.0
    for i in range(n):
        for j in range(m):
            s = s + x ** (i + 1) * (j + 1)
    return s


# ---------------------------------------------------------- while loops


def newton_sqrt(a):
    x = a
    for i in range(40):
        x = 0.5 * (x + a / x)
    return x


def newton_sqrt_while(a):
    x = a + 1.0
    k = 0
    while abs(x * x - a) > 1e-14 * a and k < 100:
        x = 0.5 * (x + a / x)
        k += 1
    return x


def halve_until_small(x):
    k = 0
    while x >= 1.0:
        x = x / 2
        k += 1
    return x


def pow_by_squaring(x, n):
    result = 1.0
    base = x
    while n > 0:
        if n % 2 == 1:
            result = result * base
        base = base * base
        n = n // 2
    return result


def while_break(x, t):
    k = 0
    while True:
        x = x * 0.9 + 0.05 * math.sin(x)
        k += 1
        if x < t:
            break
        if k >= 50:
            break
    return x * k


def while_return(x):
    y = x
    while True:
        y = y * y + 0.1
        if y > 3.0:
            return y * x
    return y


# ------------------------------------------------------- break, continue


def break_in_loop(x, n, lim):
    y = x
    for i in range(n):
        if y > lim:
            break
        y = y * 1.5 + 0.1
    return y


def inner_break(x, n, lim):
    s = 0.0
    for i in range(n):
        y = x
        for j in range(10):
            if y > lim:
                break
            y = y * 1.5
        s = s + y * (i + 1)
    return s


def continue_odd(x, n):
    y = 1.0
    for i in range(n):
        if i % 2 == 0:
            continue
        y = y * x
    return y


def continue_active(x, n, t):
    s = 0.0
    y = x
    for i in range(n):
        y = math.sin(y + i)
        if y < t:
            continue
        s = s + y * x
    return s


# ---------------------------------------------------------- early return


def early_return_nested(x, n, m, lim):
    y = x
    for i in range(n):
        for j in range(m):
            y = y * 1.1 + 0.1 * x
            if y > lim:
                return y * 2.0
    return y


def return_in_branch(x):
    if x < 0:
        return -x * 3.0
    y = x * x
    return y + 1.0


def return_in_for(x, n):
    y = x
    for i in range(n):
        y = y * x
        if i == 2:
            return y
    return -y


# ------------------------------------------------------------- branches


def threshold(x, t):
    if x > t:
        y = x * x
    else:
        y = 3.0 * math.sin(x)
    return y


def elif_chain(x, a, b, c):
    if x < a:
        y = math.exp(x)
    elif x < b:
        y = x * x * x
    elif x < c:
        y = math.cos(x) * 2.0
    else:
        y = -x
    return y + x


def ternary(x, t):
    y = x * x if x > t else -2.0 * x
    return y * math.exp(x)


def chained_cmp(x, y):
    if 0.0 < x < 1.0:
        z = x * y
    elif -1.0 <= x <= 0.0 or y > 2.0:
        z = x + y * y
    else:
        z = math.sin(x * y)
    return z


def bool_ops(x, y, t):
    if x > t and not (y > t) or (x < -t and y < -t):
        z = x * y
    else:
        z = x - y
    return z


def one_arm_assign(x, t):
    if x > t:
        z = math.exp(x)
    w = x * 2.0
    if x > t:
        w = w + z
    return w


def const_or_active(x, t):
    if x > t:
        y = 2.0
    else:
        y = x * x
    return y * x


def branch_in_loop(x, n, t):
    y = x
    for i in range(n):
        if y > t:
            y = y * 0.5
        else:
            y = y * y + 1.0
    return y


def tuple_branches(x, y):
    if x > y:
        a = x * y
        b = x - y
    else:
        a = y * y
        b = math.sin(x)
    return a, b


def tuple_return_in_branch(x, y):
    if x * y > 1.0:
        return x + y, x * y
    return x * x, x - y


# --------------------------------------------------------------- helpers


def helper_pow(x, n):
    y = 1.0
    for i in range(n):
        y = y * x
    return y


def helper_clip(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def calls_helper_in_loop(x, m):
    s = 0.0
    for i in range(m):
        s = s + helper_pow(x, i)
    return s


def calls_helper_in_loop_from_one(x, m):
    s = 0.0
    for i in range(m):
        s = s + helper_pow(x, i + 1)
    return s


def calls_helper_zero_trip(x):
    return helper_pow(x, 0) * x


def calls_clip_in_loop(x, n):
    y = x
    for i in range(n):
        y = helper_clip(y * 1.7, -2.0, 2.0) + 0.1 * x
    return y


def while_true_only_returns(x):
    while True:
        x = x * 1.3
        if x > 2.0:
            return x * x
        if x < -2.0:
            return -x


def while_continue(x):
    k = 0
    s = 0.0
    while k < 6:
        k += 1
        x = math.sin(x) + 0.5
        if x < 0.9:
            continue
        s += x * k
    return s


def while_nested_break(x):
    i = 0
    s = 0.0
    while i < 3:
        j = 0
        while True:
            j += 1
            s = s + x * j
            if j >= i + 1:
                break
        i += 1
    return s


def break_while_in_for(x, n):
    s = 0.0
    for i in range(n):
        y = x
        while True:
            y = y * 1.2
            if y > 1.0 + i:
                break
        s += y
    return s


def tuple_early_in_loop(x, y, n):
    for i in range(n):
        x = x * y
        if x > 5.0:
            return x, y * i
    return y, x


def int_condition(x, n):
    if n % 2 == 0:
        y = x * x
    else:
        y = x * 3.0
    return y


def aug_in_branch_loop(x, n):
    y = x
    for i in range(n):
        if y > 1.0:
            y -= 0.3 * x
        else:
            y *= 1.7
    return y


def nested_ternary(x, y):
    return (x if x > 0 else -x) * (y if y > x else x)


def not_condition(x):
    if not x > 1.0:
        return x * 2.0
    return x**3


def defined_in_loop(x, n):
    for i in range(n):
        z = x * (i + 1)
    return z * x


# ------------------------------------------------- integer bookkeeping


def counter_bookkeeping(x, n):
    k = 0
    m = n
    y = x
    while m > 1:
        if m % 2 == 0:
            m = m // 2
        else:
            m = 3 * m + 1
        k += 1
        y = y * 1.01
    return y * k


# ------------------------------------------------- once unsupported (loop ... else, a loop over a str)


def uses_while_else(x):
    while x > 1.0:
        x = x / 2
    else:
        x = x + 1.0
    return x


def uses_for_else(x):
    for i in range(3):
        x = x * 2.0
    else:
        x = x + 1.0
    return x


def uses_for_over_str(x):
    for c in "abc":
        x = x * 2.0
    return x


def uses_for_over_reversed(x):
    for i in reversed(range(3)):
        x = x * 2.0
    return x


def uses_try_loop(x):
    for i in range(3):
        try:
            x = x * 2.0
        except ValueError:
            x = x
    return x
