"""`python -m grid_planner.cli`: the `grid-planner` command line."""

import sys

from grid_planner.cli import main

sys.exit(main())
