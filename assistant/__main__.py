"""``python -m assistant`` runs the same command line as the ``assistant`` script."""

import sys

from .cli import main

sys.exit(main())
