"""Where the installed launch, config and map files of grid_planner live."""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGE = "grid_planner"


def share_dir() -> Path:
    """The package's share folder: the ament index, else this environment, else the checkout.

    `ament_index_python` raises OSError when AMENT_PREFIX_PATH is unset, as in a plain virtual
    environment; the fallbacks keep `bringup` working there and in a source checkout.
    """
    try:
        from ament_index_python.packages import (
            PackageNotFoundError,
            get_package_share_directory,
        )

        try:
            return Path(get_package_share_directory(PACKAGE))
        except (PackageNotFoundError, OSError, ValueError):
            pass
    except ImportError:
        pass
    prefix_share = Path(sys.prefix) / "share" / PACKAGE
    if (prefix_share / "config").is_dir():
        return prefix_share
    return Path(__file__).resolve().parents[2]


def config_file(name: str) -> Path:
    """A file under the package's config folder, e.g. `planner.yaml` or `maps/demo_map.yaml`."""
    return share_dir() / "config" / name
