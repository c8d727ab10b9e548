"""Abstract values of more NumPy primitives (the split family's pieces, pads, casts; the
primitives written as records state theirs): ``infer_numpy`` adds these rules to its table.  Each maps the arguments' abstract values and
the static arguments to the result's ndim and dtype; unknown (None) where NumPy's answer depends on
data the analysis does not have."""

from __future__ import annotations

from . import values as V
from .numpy_values import array_of, ndim_of, result_dtype

RULES = {
    "numpy.split/part": lambda ins, static: array_of(ndim_of(ins[0]), result_dtype(ins[:1])),
    "numpy.pad": lambda ins, static: array_of(ndim_of(ins[0]), result_dtype(ins[:1])),
    "numpy.array/dtype": lambda ins, static: array_of(ndim_of(ins[0]), static[1]),
    "numpy.asarray/dtype": lambda ins, static: array_of(ndim_of(ins[0]), static[1]),
    **{
        f"numpy.{kind}": (lambda ins, static: V.STATIC)
        for kind in ("split", "array_split", "hsplit", "vsplit", "dsplit")
    },
}
