"""``python -m adcompiler`` is the ``adc`` command."""

import sys

from .cli import main

sys.exit(main())
