"""``python -m helpers``: the terminal walkthrough (see helpers.cli)."""

import sys

from helpers.cli import main

sys.exit(main())
