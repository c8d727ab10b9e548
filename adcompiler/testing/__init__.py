"""Testing tools, never imported by adcompiler itself: independent oracles for derivatives of
structured values (``oracle``) and a fuzzer of programs over lists and tuples of arrays
(``structures``).  The scalar and NumPy program fuzzer is ``adcompiler.testing.fuzz``."""
