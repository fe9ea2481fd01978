"""Give a virtual environment holding grid_planner the layout `ros2 run` and `ros2 launch` expect.

A wheel install (`pip install .`) puts the console scripts in `<venv>/bin` and ignores setup.cfg's
`install_scripts`, while launch_ros and ros2run look for a package's executables only in
`<prefix>/lib/<package>/` (colcon's ament_python layout). This links each console script of the
installed distribution there (relative links, so the scripts keep the venv's own interpreter)
and checks that the wheel registered the package in the venv's ament index with its share files.
Idempotent; links for scripts the package no longer declares are removed.

    python tools/venv_ament_layout.py [VENV]      (default: the running interpreter's prefix)
"""

from __future__ import annotations

import argparse
import sys
from importlib import metadata
from pathlib import Path

PACKAGE = "grid_planner"
SHARE_FILES = ("package.xml", "launch", "config")


def console_scripts(distribution: str = PACKAGE) -> list[str]:
    """The console-script names the installed distribution declares."""
    return sorted(
        entry.name for entry in metadata.distribution(distribution).entry_points
        if entry.group == "console_scripts"
    )


def check_ament_index(prefix: Path) -> None:
    """Fail unless `prefix` registers the package in its ament index with its share files."""
    marker = prefix / "share" / "ament_index" / "resource_index" / "packages" / PACKAGE
    share = prefix / "share" / PACKAGE
    missing = [str(p) for p in (marker, *(share / name for name in SHARE_FILES)) if not p.exists()]
    if missing:
        raise SystemExit(f"venv_ament_layout: {PACKAGE} is not installed as a wheel in {prefix} "
                         f"(missing: {', '.join(missing)}); run `make setup`")


def link_executables(prefix: Path, scripts: list[str]) -> list[str]:
    """Link `<prefix>/lib/<package>/<script>` to `<prefix>/bin/<script>`; the names linked."""
    libexec = prefix / "lib" / PACKAGE
    libexec.mkdir(parents=True, exist_ok=True)
    for stale in libexec.iterdir():
        if stale.is_symlink() and stale.name not in scripts:
            stale.unlink()
    for name in scripts:
        target = prefix / "bin" / name
        if not target.is_file():
            raise SystemExit(f"venv_ament_layout: console script {target} not found")
        link = libexec / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(Path("..", "..", "bin", name))
    return scripts


def main(argv: list[str] | None = None) -> int:
    """Check the index entry and link the executables of the venv named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("venv", nargs="?", type=Path, default=Path(sys.prefix))
    prefix = parser.parse_args(argv).venv.resolve()
    check_ament_index(prefix)
    linked = link_executables(prefix, console_scripts())
    print(f"venv_ament_layout: {prefix}/lib/{PACKAGE}: {' '.join(linked)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
