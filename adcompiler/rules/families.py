"""Every family module of primitive records (``rules.primitive``), imported so that each has registered
its primitives: the tables built from the records (the views) import ``REGISTRY`` from here."""

from __future__ import annotations

# (each registers its records)
from . import constructors, joins, linalg, movement, orders, products, reductions, ufuncs  # noqa: F401
from .primitive import REGISTRY, Helper, Primitive, family, helper_forms, helpers

__all__ = ["REGISTRY", "Helper", "Primitive", "family", "helper_forms", "helpers"]
