"""A module written from source text and imported (adcompiler reads a function's source from its file): what the
generated-program tests build their functions with."""

import importlib.util

NUMPY = "import numpy as np\n\n\n"


def module_of(directory, name: str, text: str, head: str = NUMPY):
    """The module ``name`` written into ``directory`` (a ``pathlib.Path``) as ``head + text``, imported."""
    path = directory / f"{name}.py"
    path.write_text(head + text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
