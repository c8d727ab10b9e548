"""The array-API target (``arrays="any"``): the driver (``backend``), the translation of NumPy calls to
the namespace of the arguments (``translate``) and the runtime helpers written for it (``runtime``)."""
