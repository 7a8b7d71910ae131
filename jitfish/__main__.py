"""``python -m jitfish``: the same as the ``jitfish`` command."""

import sys

from jitfish.cli import main

sys.exit(main())
