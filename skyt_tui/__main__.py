"""Allow `python -m skyt_tui`."""

import sys

from skyt_tui.cli import main

sys.exit(main())
