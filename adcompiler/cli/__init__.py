"""The command line: ``adc compile`` (``main``, many files at once in ``many``), ``adc check``
(``check``), reading the user's files (``inputs``), writing modules (``written``) and writing them
safely to the outputs asked for (``outputs``)."""
