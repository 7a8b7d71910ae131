"""``python -m tuning``: the same as ``python -m tuning.match``."""

import sys

from tuning.match import main

sys.exit(main())
