"""``python -m mase.cli``: the ``mase`` command."""

import sys

from mase.cli import main

if __name__ == "__main__":
    sys.exit(main())
