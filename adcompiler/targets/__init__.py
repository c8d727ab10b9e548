"""Where generated code runs: plain Python with NumPy (``python``: the runtime helpers every target
starts from), Numba's ``njit`` (``numba``) and any array library of the array API standard
(``array_api``).  Only this package names a target."""
