"""Plain user functions that the end-to-end tests differentiate.

They live in a real module because adcompiler reads source with
inspect.getsource. Only imports and plain function definitions belong here.
"""

import math

# ------------------------------------------------------------- operators


def op_add(x, y):
    return x + y


def op_sub(x, y):
    return x - y


def op_mul(x, y):
    return x * y


def op_div(x, y):
    return x / y


def op_neg(x):
    return -x


def op_pos(x):
    return +x


def op_unary_mix(x, y):
    return -(x * y) + -x - +y


def identity(x):
    return x


def poly(x, y):
    return 3.0 * x * x * y - 2.0 * x * y * y + x / y - 7.0


def rational(x, y, z):
    return (x * y - z) / (1.0 + x * x + y * y) - z / (x + 3.0)


def int_literals(x):
    return 3 * x + 2 - x / 4


def sci_literals(x):
    return 1e-3 * x + 2.5e2 / x - 0.5e1


# -------------------------------------------------------------- exponents


def pow_sq(x):
    return x**2


def pow_cube(x):
    return x**3


def pow_neg_int(x):
    return x**-2


def pow_zero(x):
    return x**0


def pow_one(x):
    return x**1


def pow_half(x):
    return x**0.5


def pow_float(x):
    return x**2.5


def pow_const_base(x):
    return 2.0**x


def pow_int_base(x):
    return 3**x


def pow_active(x, y):
    return x**y


def pow_nested(x, y):
    return (x * y) ** 2 + (x + 1.0) ** (y / 2.0)


def pow_param_exponent(x, n):
    return x**n


# ---------------------------------------------------------- math functions


def m_sin(x):
    return math.sin(x)


def m_cos(x):
    return math.cos(x)


def m_tan(x):
    return math.tan(x)


def m_asin(x):
    return math.asin(x)


def m_acos(x):
    return math.acos(x)


def m_atan(x):
    return math.atan(x)


def m_sinh(x):
    return math.sinh(x)


def m_cosh(x):
    return math.cosh(x)


def m_tanh(x):
    return math.tanh(x)


def m_asinh(x):
    return math.asinh(x)


def m_acosh(x):
    return math.acosh(x)


def m_atanh(x):
    return math.atanh(x)


def m_exp(x):
    return math.exp(x)


def m_expm1(x):
    return math.expm1(x)


def m_log(x):
    return math.log(x)


def m_log1p(x):
    return math.log1p(x)


def m_log2(x):
    return math.log2(x)


def m_log10(x):
    return math.log10(x)


def m_sqrt(x):
    return math.sqrt(x)


def m_fabs(x):
    return math.fabs(x)


def m_erf(x):
    return math.erf(x)


def m_erfc(x):
    return math.erfc(x)


def m_atan2(y, x):
    return math.atan2(y, x)


def m_log_base(x, b):
    return math.log(x, b)


def m_log_const_base(x):
    return math.log(x, 10.0)


def m_log_const_arg(b):
    return math.log(8.0, b)


def m_pow(x, y):
    return math.pow(x, y)


def m_pow_const(x):
    return math.pow(x, 3.0)


def m_hypot(x, y):
    return math.hypot(x, y)


def m_hypot3(x, y, z):
    return math.hypot(x, y, z)


def m_composite(x, y):
    return math.exp(math.sin(x) * y) / (1.0 + math.sqrt(x * x + y * y))


def m_composite2(x, y, z):
    a = math.log(1.0 + x * x) * math.tanh(y - z)
    b = math.atan2(y, x) + math.hypot(z, x) * math.cos(y)
    return a * b - math.erf(z / 3.0)


# ---------------------------------------------------------------- builtins


def b_abs(x):
    return abs(x)


def b_abs_expr(x, y):
    return abs(x - y) * y


def b_min(x, y):
    return min(x, y)


def b_max(x, y):
    return max(x, y)


def b_min3(x, y, z):
    return min(x, y, z)


def b_max3(x, y, z):
    return max(x, y, z)


def b_max_const(x):
    return max(x, 2.0)


def b_max_const_first(x):
    return max(2.0, x)


def b_min_expr(x, y):
    return min(x * y, x + y, 1.0) * x


def b_pow(x, y):
    return pow(x, y)


def b_pow_int(x):
    return pow(x, 3)


# ------------------------------------------------------ piecewise constant


def pc_floor_only(x):
    return 2.0 * math.floor(x)


def pc_floor(x):
    return math.floor(x) * x


def pc_ceil(x):
    return math.ceil(x) * x


def pc_trunc(x):
    return math.trunc(x) + x


def pc_round(x):
    return round(x) * x


def pc_int(x, y):
    return int(x) * y + x


def pc_mix(x, y):
    return (math.floor(x) + math.ceil(y)) * x * y - round(y) - int(x * y)


# --------------------------------------------------------------- constants


def const_pi(x):
    return math.pi * x**2


def const_e(x):
    return math.e**x


def const_tau(x):
    return x / math.tau + math.e


def const_inf(x):
    return min(x, math.inf) + max(x, -math.inf)


def const_only(x):
    return 4.0


# ------------------------------------------------------------- statements


def aug_assign(x, y):
    z = x
    z += y
    z -= 0.5 * x
    z *= y
    z /= x + 2.0
    z **= 2
    return z


def aug_param(x, y):
    x += y
    x *= x
    y -= x
    y /= 3.0
    return x * y


def aug_pow_active(x, y):
    z = x + 1.0
    z **= y
    return z


def tuple_unpack(x, y):
    a, b = x * y, x - y
    a, b = b, a
    return a * b - b


def tuple_unpack_paren(x, y, z):
    a, b, c = (z, x * 2.0, y)
    return a * b + c * a


def with_default(x, y=2.0, z=0.5):
    return x * y + z * x**2


def unused_param(x, y):
    return x * x + 1.0


def dead_code(x, y):
    t = y * y
    u = math.sin(t)
    return 3.0 * x


def many_uses(x):
    return x * x * x + x / x + x - x + math.sin(x) * x + x**x


def reassign(x):
    x = x * x
    x = x * x
    return x


def reassign2(x, y):
    y = x * y
    x = y + x
    y = math.sin(x) * y
    return x * y


def long_chain(x):
    a = x + 1.0
    b = a * a
    c = math.sin(b) + a
    d = c * b - x
    e = d / (1.0 + c * c)
    f = math.exp(-e) * d
    return f + a * b * c * d * e


# ----------------------------------------------------- generated-name clash


def clash_params(dx, d_x, dup, ct, d_dx, _t0, t1, tape):
    t0 = dx * d_x
    _t1 = dup + ct * d_dx
    tape = tape * t0 + _t0
    d_t0 = t1 * _t1
    return tape + d_t0 + t0 * _t1 + dx / ct


def clash_locals(x, y):
    dx = x * y
    d_x = dx + x
    dup = d_x * d_x
    ct = dup - y
    d_dx = ct / x
    _t0 = d_dx * dx
    t1 = _t0 + dup
    tape = t1 * ct
    x_dot = tape + x
    x_bar = x_dot * y
    tx = x_bar - dx
    ct_x = tx * ct
    x_ct = ct_x + d_x
    _ct = x_ct * 0.5
    _d0 = _ct + _t0
    v0 = _d0 * x
    _v0 = v0 - y
    tmp = _v0 + t1
    _tmp0 = tmp * tmp
    adj = _tmp0 / (1.0 + x * x)
    grad = adj + x
    value = grad * y
    result = value - tape
    out = result + 1.0
    return out


def clash_params_dup(dup, d_dup, dup_1, x_1, x):
    return dup * d_dup + dup_1 * x_1 + dup * x + dup * dup


def clash_more(x, dx, ddx, x_1, t1, t2, d_x_1, residuals):
    t3 = x * dx + ddx * x_1
    x_1 = t3 * t1
    dx = math.sin(x_1) * t2 + d_x_1 * residuals
    return dx * x, x_1 + residuals


# --------------------------------------------------------------- helpers


def h_square(u):
    return u * u


def h_affine(u, v):
    return 2.0 * u + v


def h_nested(u, v):
    return h_square(h_affine(u, v)) + h_square(v)


def h_polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


def h_default(u, scale=3.0):
    return scale * u


def h_const(u):
    return 5.0


def h_mutate(u):
    u = u * 2.0
    u += 1.0
    return u


def h_clash(dx, ct):
    return dx * ct + dx


def h_level3(u):
    return math.sin(u) * u


def h_level2(u, v):
    return h_level3(u * v) + h_level3(v)


def h_level1(u, v):
    return h_level2(u, v) * h_level2(v, u)


def h_cross(ax, ay, az, bx, by, bz):
    return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx


def norm_cdf(z):
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def call_simple(x):
    return h_square(x) + x


def call_nested(x, y):
    return h_nested(x, y) * y


def call_twice(x, y):
    return h_square(x) + h_square(y) + h_square(x * y)


def call_tuple(r, theta):
    a, b = h_polar(r, theta)
    return a * b + a


def call_tuple_out(r, theta):
    a, b = h_polar(r, theta)
    return b, a


def call_tuple_passthrough(r, theta):
    return h_polar(r, theta)


def call_default(x):
    return h_default(x) + h_default(x, 0.5) + h_default(x, 2)


def call_const(x, y):
    return h_const(x) * y


def call_in_expr(x):
    return math.sin(h_square(x)) / h_affine(x, 1.0)


def call_deep(x, y):
    return h_level1(x, y) + h_level3(x)


def call_mutate(x):
    y = h_mutate(x)
    return x * y


def call_clash(dx, ct):
    return h_clash(dx, ct) * h_clash(ct, dx)


def call_const_args(x):
    return h_affine(3.0, x) + h_affine(x, 4)


def call_same_var(x):
    return h_affine(x, x) * h_square(x)


# ---------------------------------------------------------- vector outputs


def tuple_out_mixed(x, y):
    return x, 2.0, x * y, y


def spherical(r, theta, phi):
    st = math.sin(theta)
    return r * st * math.cos(phi), r * st * math.sin(phi), r * math.cos(theta)


def rotate_vec_by_quat(w, x, y, z, vx, vy, vz):
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w = w / n
    x = x / n
    y = y / n
    z = z / n
    tx, ty, tz = h_cross(x, y, z, vx, vy, vz)
    tx = 2.0 * tx
    ty = 2.0 * ty
    tz = 2.0 * tz
    cx, cy, cz = h_cross(x, y, z, tx, ty, tz)
    return vx + w * tx + cx, vy + w * ty + cy, vz + w * tz + cz


def bs_call(S, K, T, r, sigma):
    sqrt_t = math.sqrt(T)
    d1 = (math.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * sqrt_t)
    d2 = d1 - sigma * sqrt_t
    return S * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)
