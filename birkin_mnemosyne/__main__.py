"""``python -m birkin_mnemosyne`` runs the ``mnemosyne`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
