"""Point the ROS wheels' exported CMake files at this interpreter's Python and NumPy headers.

The PyPI ROS 2 wheels were built in a manylinux image, and the CMake export files they ship
(`$VIRTUAL_ENV/share/*/cmake/*.cmake`) name `/opt/python/cp311-cp311/...` include directories
that do not exist here; `rosidl_generate_interfaces` then fails to configure. Idempotent.
"""

from __future__ import annotations

import re
import sys
import sysconfig
from pathlib import Path

import numpy

BUILD_PREFIX = re.compile(r"/opt/python/cp3\d+-cp3\d+")


def replacements() -> dict[str, str]:
    """Map each build-machine include directory to this interpreter's one."""
    python_include = sysconfig.get_paths()["include"]
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return {
        f"/include/{version}": python_include,
        f"/lib/{version}/site-packages/numpy/_core/include": numpy.get_include(),
        f"/lib/{version}/site-packages/numpy/core/include": numpy.get_include(),
    }


def fix_file(path: Path, table: dict[str, str]) -> bool:
    """Rewrite one CMake file in place; True when it changed."""
    text = path.read_text()
    if not BUILD_PREFIX.search(text):
        return False

    def substitute(match: re.Match[str]) -> str:
        suffix = match.group(1)
        return table.get(suffix, match.group(0))

    fixed = re.sub(r"/opt/python/cp3\d+-cp3\d+(/[^;\"\s)]*)", substitute, text)
    path.write_text(fixed)
    return fixed != text


def main() -> int:
    """Fix every exported CMake file under the environment's share/ folder."""
    share = Path(sys.prefix) / "share"
    table = replacements()
    changed = [p for p in share.glob("*/cmake/*.cmake") if fix_file(p, table)]
    leftover = [p for p in share.glob("*/cmake/*.cmake") if BUILD_PREFIX.search(p.read_text())]
    print(f"fixed {len(changed)} CMake export files under {share}")
    if leftover:
        print("unrecognised build-machine paths remain in:", *leftover, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
