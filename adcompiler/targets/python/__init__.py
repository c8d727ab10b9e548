"""The python target: the runtime helpers generated code calls, as source text (``runtime``; NumPy's
in ``runtime_numpy``, ``runtime_arrays``; the primitives' own in their records, ``rules/``)."""
