"""Test-time additions to the project's venv, from the shared folder beside the checkout.

The ROS 2 wheels lack the command line (`ros2`, launch, launch_ros), Nav2's interfaces
(`nav2_msgs`, `map_msgs`, `bond`) and `bondpy`. The tests drive the nodes with those, so this
installs each one into the venv only when importing it fails (a real ROS installation wins):
interface packages are built with cmake like `grid_planner_interfaces`, Python packages are
pip-installed offline from temporary copies (the shared folder is never written to), and the
command line comes from the shared folder's own installer. A stamp in the venv, keyed on the
inputs, makes a second run a no-op. Without the shared folder it says so and changes nothing:
the tests that need these parts then skip (fail under CI=true). The product never needs any
of this; only `make test` runs it.

    python tools/test_env.py VENV SHARED
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
# Interface package -> the import that proves it is there, in build order.
INTERFACES = {
    "bond": "bond.msg",
    "map_msgs": "map_msgs.msg",
    "nav2_msgs": "nav2_msgs.action, nav2_msgs.msg, nav2_msgs.srv",
}
# Pure-Python package -> its import, in install order (bondpy needs smclib and bond).
PYTHON_PACKAGES = {"smclib": "smclib.statemap", "bondpy": "bondpy.bondpy"}
ROS_CLI_IMPORT = "ros2cli, ros2launch.api, launch_ros.actions, rosidl_runtime_py"


def build_output(name: str) -> bool:
    """Whether a file or folder name is build output left in a source folder, not source."""
    return name in {"build", "__pycache__"} or name.endswith(".egg-info")


def say(message: str) -> None:
    """One progress line, flushed so make shows it in order."""
    print(f"test_env: {message}", flush=True)


def importable(venv: Path, modules: str) -> bool:
    """Whether the venv's Python imports `modules` (checked from /, so no folder of the
    checkout, such as the project's launch/, can pass for an installed package)."""
    env = dict(os.environ, AMENT_PREFIX_PATH=ament_prefix_path(venv))
    result = subprocess.run(
        [str(venv / "bin" / "python"), "-c", f"import {modules}"],
        cwd="/", env=env, capture_output=True,
    )
    return result.returncode == 0


def ament_prefix_path(venv: Path) -> str:
    """AMENT_PREFIX_PATH naming the venv first, then whatever the caller had."""
    existing = os.environ.get("AMENT_PREFIX_PATH")
    return f"{venv}:{existing}" if existing else str(venv)


def inputs_key(shared: Path) -> str:
    """A digest of everything this set-up installs from and of the tools that install it."""
    digest = hashlib.sha256()
    files = [Path(__file__), TOOLS / "build_interface.sh", shared / "ros_cli_install.sh"]
    folders = [shared / "interfaces" / name for name in INTERFACES]
    folders += [shared / "python" / name for name in PYTHON_PACKAGES]
    for folder in folders:
        files += sorted(
            p for p in folder.rglob("*")
            if p.is_file() and not any(build_output(part) for part in p.relative_to(folder).parts)
        )
    for path in files:
        digest.update(str(path.relative_to(path.anchor)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def run(command: list[str], what: str) -> None:
    """Run a set-up step; stop with its output when it fails."""
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"test_env: {what} failed")


def install_ros_cli(venv: Path, shared: Path) -> None:
    """The real `ros2` command line and launch, unless they import already."""
    if importable(venv, ROS_CLI_IMPORT):
        say("ros2 command line and launch_ros already importable")
        return
    run([str(shared / "ros_cli_install.sh"), str(venv)], "ros_cli_install.sh")
    say("installed the ros2 command line and launch_ros")


def build_interfaces(venv: Path, shared: Path, build_root: Path) -> None:
    """Build each interface package whose import fails into the venv."""
    for name, modules in INTERFACES.items():
        if importable(venv, modules):
            say(f"{name} already importable")
            continue
        started = time.monotonic()
        run(
            [str(TOOLS / "build_interface.sh"), str(shared / "interfaces" / name), str(venv),
             str(build_root / name)],
            f"building {name}",
        )
        if not importable(venv, modules):
            raise SystemExit(f"test_env: {name} was built but `import {modules}` fails")
        say(f"built {name} into {venv} ({time.monotonic() - started:.0f} s)")


def install_python_packages(venv: Path, shared: Path) -> None:
    """pip-install each shared Python package whose import fails, from a temporary copy."""
    for name, module in PYTHON_PACKAGES.items():
        if importable(venv, module):
            say(f"{name} already importable")
            continue
        with tempfile.TemporaryDirectory(prefix=f"test_env_{name}_") as work:
            copy = Path(work) / name
            shutil.copytree(
                shared / "python" / name, copy,
                ignore=lambda _folder, names: {n for n in names if build_output(n)},
            )
            run(
                [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                 "--disable-pip-version-check", "--no-deps", "--no-build-isolation",
                 "--no-index", str(copy)],
                f"pip install of {name}",
            )
        if not importable(venv, module):
            raise SystemExit(f"test_env: {name} was installed but `import {module}` fails")
        say(f"installed {name}")


def main(argv: list[str] | None = None) -> int:
    """Install what the tests need from SHARED into VENV, once per change of the inputs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("venv", type=Path)
    parser.add_argument("shared", type=Path)
    options = parser.parse_args(argv)
    venv, shared = options.venv.resolve(), options.shared.resolve()
    if not (shared / "interfaces").is_dir():
        say(f"{shared}/interfaces not found: the ros2 command-line and Nav2 interface tests "
            "will skip (and fail under CI=true); set GRID_PLANNER_SHARED to use another folder")
        return 0
    stamp = venv / ".stamp-test-env"
    key = inputs_key(shared)
    if stamp.is_file() and stamp.read_text().strip() == key:
        say(f"up to date (stamp {stamp})")
        return 0
    started = time.monotonic()
    # The command line (mostly pip, one core) installs while the interfaces build (make -j2):
    # neither needs anything the other installs.
    with ThreadPoolExecutor(max_workers=1) as pool:
        cli = pool.submit(install_ros_cli, venv, shared)
        build_interfaces(venv, shared, Path("build") / "venv" / "test_env")
        cli.result()  # re-raises its failure
    install_python_packages(venv, shared)
    stamp.write_text(key + "\n")
    say(f"ready in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
