"""``python -m engine.cli``: the ``stepwise`` command."""

import sys

from engine.cli.command import main

if __name__ == "__main__":
    sys.exit(main())
