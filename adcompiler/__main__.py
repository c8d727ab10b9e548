"""``python -m adcompiler`` is the ``adc`` command."""

import sys

from .cli.main import main

sys.exit(main())
