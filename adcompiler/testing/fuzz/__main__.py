"""``python -m adcompiler.testing.fuzz``: the fuzzer's command line (cli.main)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
