"""Where the installed launch, config and map files of grid_planner live; which install runs."""

from __future__ import annotations

import os
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


def install_source() -> str:
    """Which installation of the package this process runs, for the nodes' ready lines.

    Names the prefix the code was imported from and its kind (venv, colcon workspace, other
    install, source checkout) and every other prefix on AMENT_PREFIX_PATH that also holds the
    package, so a venv and a sourced workspace never shadow each other silently. ament resolves
    launch and config files to the first such prefix; when that is not this code's prefix,
    the line says so.
    """
    prefix = _code_prefix()
    indexed = _indexed_prefixes()
    if prefix is None:
        text = f"{PACKAGE} from source checkout {Path(__file__).resolve().parents[2]}"
    else:
        text = f"{PACKAGE} from {_prefix_kind(prefix)} {prefix}"
    others = [str(p) for p in indexed if p != prefix]
    if indexed and indexed[0] != prefix:
        text += f"; ament index resolves its share files to {indexed[0]} first"
    if others:
        text += f"; also installed in {', '.join(others)}"
    return text


def _code_prefix() -> Path | None:
    """The install prefix holding this code (`<prefix>/lib/pythonX.Y/site-packages/...`)."""
    package_dir = Path(__file__).resolve().parents[1]
    site, lib = package_dir.parents[0], package_dir.parents[2]
    if site.name in ("site-packages", "dist-packages") and lib.name == "lib":
        return package_dir.parents[3]
    return None


def _indexed_prefixes() -> list[Path]:
    """The AMENT_PREFIX_PATH entries, in order and once each, whose ament index registers
    the package."""
    marker = Path("share", "ament_index", "resource_index", "packages", PACKAGE)
    entries = [e for e in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if e]
    found = [Path(e).resolve() for e in entries if (Path(e) / marker).is_file()]
    return list(dict.fromkeys(found))


def _prefix_kind(prefix: Path) -> str:
    """venv, colcon workspace or install, for the ready line."""
    if prefix == Path(sys.prefix).resolve() and sys.prefix != sys.base_prefix:
        return "venv"
    if (prefix / "share" / "colcon-core" / "packages" / PACKAGE).is_file():
        return "colcon workspace"
    return "install"
