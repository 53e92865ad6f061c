"""``python -m replay.cli``: the ``prizecheck`` command."""

import sys

from replay.cli import main

sys.exit(main())
