"""Functions whose parameters, locals or results are records: dicts of parameters as JAX users pass them,
dicts built in the function, NamedTuples and dataclasses (tests/test_records.py)."""

import numpy as np
from typing import NamedTuple
from dataclasses import dataclass


def mlp(params, x):
    h = np.tanh(params["W1"] @ x + params["b1"])
    return np.sum(params["W2"] @ h + params["b2"])


def reg(params, x):
    total = 0.0
    for w in params.values():
        total = total + np.sum(w * w)
    return total + mlp(params, x)


def gen(params, x):
    return sum(np.sum(w**2) for w in params.values()) * x


def helper(p):
    return p["a"] * p["b"]


def calls(p, x):
    return helper(p) * x + helper({"a": x, "b": 2.0})


def literal(x, y):
    d = {"u": x * y, "v": np.sin(x)}
    d["w"] = d["u"] + d["v"]
    return d["w"] * d["u"]


def items(x):
    d = {"a": x, "b": 2.0 * x}
    s = 0.0
    for k, v in d.items():
        s = s + v * v
    return s


def returns_dict(x):
    return {"sq": x * x, "cube": x * x * x}


def scalars(p):
    return p["a"] ** 2 * p["b"] + np.sin(p["c"])


def nested(p):
    return p["layer"]["w"] * p["scale"] + p["layers"][0] * p["layers"][1]


class Point(NamedTuple):
    x: float
    y: float


def nt(p):
    return p.x * p.x * p.y


def nt_iter(p):
    s = 0.0
    for v in p:
        s = s + v * v
    return s + p[0] * p[1]


@dataclass
class Params:
    w: np.ndarray
    b: float


def dc(p, x):
    return np.sum(np.tanh(p.w * x + p.b))


def get_default(x):
    d = dict(a=x, b=3.0)
    return d.get("a") * d.get("c", 2.0) + d["b"] * x


def list_of_dicts(layers, x):
    h = x
    for layer in layers:
        h = np.tanh(layer["W"] @ h + layer["b"])
    return np.sum(h)


def shapes(p):
    """Arrays of shapes (), (1,), 3-D and a float32 leaf in one dict."""
    return np.sum(p["cube"] * p["cube"]) * p["one"][0] + p["zero_d"] * np.sum(p["cube"]) + p["s"]


def twice(p, q):
    """The same dict may be passed as both arguments."""
    return p["a"] * q["a"] + p["b"] * q["b"] * q["a"]


def dict_out_arrays(p, x):
    """A dict output holding arrays and a float."""
    h = np.tanh(p["W"] @ x)
    return {"h": h, "norm": np.sum(h * h), "first": h[0]}


def make_layer(W, b):
    return {"W": W, "b": b}


def apply_layer(layer, x):
    return np.tanh(layer["W"] @ x + layer["b"])


def builds_and_applies(W, b, x):
    """A helper returns a dict that another reads."""
    layer = make_layer(W, b)
    return np.sum(apply_layer(layer, x) ** 2)


def branches(p, x):
    if p["gate"] > 0.0:
        return p["w"] * x
    return p["w"] * x * x


def while_loop(p, x):
    """A data-dependent while loop over dict items."""
    y = x
    k = 0
    while y < p["limit"] and k < 50:
        y = y * p["rate"] + 0.1
        k += 1
    return y


class Scale(NamedTuple):
    mean: float
    std: float


def nested_records(p, xs):
    """A NamedTuple and a list of dicts inside a dict."""
    s = p["scale"]
    total = 0.0
    for item in p["items"]:
        total = total + item["w"] * (xs[0] - s.mean) / s.std
    return total


@dataclass(frozen=True)
class Frozen:
    a: float
    w: np.ndarray


def frozen(p):
    return p.a * np.sum(np.sin(p.w))


def many_keys(p):
    """More keys than a tuple keeps item by item (16): a record keeps every one."""
    return sum(v * (i + 1) for i, v in enumerate(p.values())) + p["k19"] * p["k0"]


def computed_key_argument(p):
    return sum(p[f"k{i}"] for i in range(3))


def literal_items_arrays(W, b):
    d = {"W": W, "b": b}
    s = 0.0
    for name, value in d.items():
        s = s + np.sum(value * value)
    return s


def copies(x):
    d = {"a": x}
    e = dict(d, b=2.0 * x)
    f = e.copy()
    f["c"] = x * x
    return f["a"] * f["b"] + f["c"] + len(f)


# ---- refused, each with its location -------------------------------------------------------------


def iterate_dict(p):
    s = 0.0
    for k in p:
        s = s + k
    return s


def keys_of_argument(p):
    return sum(p[k] for k in p.keys())


def attribute_of_dict(p):
    return p.a * 2.0


def string_index_namedtuple(p):
    return p["x"] * 2.0


def change_in_loop(x):
    d = {"a": x}
    for i in range(3):
        d["a"] = d["a"] * x
    return d["a"]


def change_after_alias(x):
    d = {"a": x}
    e = d
    d["a"] = 2.0 * x
    return e["a"]


def change_after_stored(x):
    d = {"a": x}
    box = [d]
    d["a"] = 2.0 * x
    return box[0]["a"]


def change_argument(p):
    p["a"] = p["a"] * 2.0
    return p["a"]


def missing_key(x):
    d = {"a": x}
    return d["b"]


def missing_argument_key(p):
    return p["nope"] * 2.0


def attribute_of_float(x):
    return x.value * 2.0


def unpack_dict(x):
    a, b = {"a": x, "b": 2.0}
    return a


def computed_key(x, name):
    d = {"a": x, "b": 2.0}
    return d[name]


# ---- optional arguments: tests for None the arguments decide -------------------------------------


def optional_bias(w, x, bias=None):
    y = w * x
    if bias is not None:
        y = y + bias
    return y


def optional_default(x, scale=None):
    s = 2.0 if scale is None else scale
    return x * s


def optional_branches(x, w=None):
    y = np.sin(x)
    if w is None:
        s = 2.0
    else:
        s = w * w
    if not (w is None):
        y = y * w
    return np.sum(y) * s


def optional_in_dict(p, x):
    h = p["W"] @ x
    if p["b"] is not None:
        h = h + p["b"]
    return np.sum(np.tanh(h))


def optional_reassigned(x, scale=None):
    if scale is None:
        scale = 2.0
    return x * scale


def least_squares(p, A, y):
    r = A @ p["w"] + p["c"] - y
    return 0.5 * np.sum(r * r)


# ---- loops and comprehensions over constant keys ---------------------------------------------------------

NAMES = ("first", "second")


def layers_by_key(params, x):
    h = x
    for k in ["first", "second"]:  # each key a constant: params[k] an item read by key
        h = np.tanh(params[k]["W"] @ h + params[k]["b"])
    return np.sum(h * h)


def layers_by_module_keys(params, x):
    h = x
    for k in NAMES:
        h = np.sin(params[k]["W"] @ h)
    scaled = {k: params[k]["b"] * h[0] for k in NAMES}  # a dict comprehension over the same keys
    return np.sum(h) + np.sum(scaled["first"] * scaled["second"])


def dict_built_by_key(params, x):
    grown = {}
    for name in ("first", "second"):
        grown[name] = params[name]["W"] * x[1]
    squares = {k: v * v for k, v in grown.items()}
    total = 0.0
    for k in squares:
        total = total + np.sum(squares[k] @ grown[k])
    return total + k.count("s")  # k: the last key, after the loop


def comprehension_over_argument(p):
    return sum({k: v * 2.0 for k, v in p.items()}.values())


def jump_in_a_key_loop(x):
    s = 0.0
    for k in ("a", "b"):
        if x > 1.0:
            break
        s = s + x
    return s
