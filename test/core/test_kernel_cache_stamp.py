"""`tools/compile_kernels.py` empties a copy's numba cache when the sources its kernels are
made of changed: numba itself only notices a change to a kernel's own file."""

from __future__ import annotations

from pathlib import Path

from compile_kernels import SOURCES_STAMP, clear_stale_cache


def cached_files(package: Path) -> list[str]:
    return sorted(str(p.relative_to(package)) for p in package.rglob("*.nb[ic]"))


def fake_package(root: Path) -> Path:
    """A package with a kernel file, a helper it inlines, a node module and their caches."""
    package = root / "grid_planner"
    for name, text in (("grid/kernel.py", "from .helper import rule\n"),
                       ("grid/helper.py", "def rule(): return 1\n"),
                       ("nodes/node.py", "NAME = 'node'\n")):
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    return package


def fill_cache(package: Path) -> None:
    cache = package / "grid" / "__pycache__"
    cache.mkdir(exist_ok=True)
    (cache / "kernel.run-1.py311.nbi").write_bytes(b"index")
    (cache / "kernel.run-1.py311.1.nbc").write_bytes(b"code")


def test_a_cache_without_a_stamp_is_emptied_and_then_stamped(tmp_path: Path) -> None:
    package = fake_package(tmp_path)
    fill_cache(package)
    assert clear_stale_cache(package) == 2
    assert cached_files(package) == []
    assert (package / "__pycache__" / SOURCES_STAMP).is_file()


def test_the_cache_stays_while_the_sources_stay_and_goes_when_a_helper_changes(
    tmp_path: Path,
) -> None:
    package = fake_package(tmp_path)
    assert clear_stale_cache(package) == 0  # nothing cached yet: only the stamp is written
    fill_cache(package)
    assert clear_stale_cache(package) == 0
    assert len(cached_files(package)) == 2
    (package / "nodes" / "node.py").write_text("NAME = 'renamed'\n")  # holds no kernel
    assert clear_stale_cache(package) == 0
    (package / "grid" / "helper.py").write_text("def rule(): return 2\n")
    assert clear_stale_cache(package) == 2
    assert cached_files(package) == []
    fill_cache(package)
    assert clear_stale_cache(package) == 0
