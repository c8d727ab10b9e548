"""The Numba target (``backend="numba"``): the subset it takes (``subset``), the driver that builds
for it (``backend``), the translation of emitted modules to code ``numba.njit`` compiles
(``translate``, with ``arrays``, ``empty``, ``lists``, ``loops``, ``values``) and its runtime helpers
(``runtime``)."""
