"""The on-disk cache of pattern databases: file format, integrity checks and build locking.

A database file holds one flat uint8 payload behind a header that says exactly what it is:

    magic    8 bytes  b"GPLNPDB\\n"
    length   4 bytes  little-endian size of the header that follows
    header   JSON     {"format_version", "kind", "side", "goal", "groups", "table_sizes", ...}
    payload  bytes    the tables, concatenated in group order
    digest  32 bytes  SHA-256 of everything above

A file is used only when it is a regular file (a FIFO or a device is never opened for
reading, so it cannot hang a solve) of a plausible size, and its magic, version, identifying
header fields (`expected`), total size and digest all check out; where the caller knows the
table's contents in advance (`payload_digest`, the built-in databases) the payload must match
that too, so a file edited and re-checksummed is not trusted either. Anything else (a
truncated write, a flipped bit, a file of an older format, a table for another goal) is
reported as `UnusableFileError` and the caller rebuilds.

`load_or_build` serialises builders across processes with a lock file next to the database
(filelock): the first process builds and writes atomically (temporary file + `os.replace`), a
second one waits for the lock (calling the caller's `check` while it waits, so a cancelled or
timed-out build stops waiting) and then loads what the first wrote. Within one process the
callers serialise on their own lock (see `pdb`). `build_count` says how many tables this
process built, so a caller (and the tests) can tell a cache hit from a build.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
from filelock import FileLock, Timeout

_log = logging.getLogger(__name__)

MAGIC = b"GPLNPDB\n"
FORMAT_VERSION = 1
CACHE_ENV = "GRID_PLANNER_CACHE_DIR"
# How long a process waits for another one to finish building the same database.
LOCK_WAIT_S = 600.0
# How often a process waiting for another one's lock checks whether it should stop waiting.
LOCK_POLL_S = 0.1
_LENGTH_BYTES = 4
_DIGEST_BYTES = 32
# A header is a few hundred bytes; a file larger than its payload plus this is refused unread.
_HEADER_ROOM = 1 << 16


_builds: Counter[str] = Counter()


def count_build(kind: str) -> None:
    """Record that this process built one table of `kind` ('table' or 'pdb')."""
    _builds[kind] += 1


def build_count(kind: str | None = None) -> int:
    """How many tables this process has built ('table', 'pdb', or None for both)."""
    return sum(_builds.values()) if kind is None else _builds[kind]


class UnusableFileError(ValueError):
    """A cache file exists but must not be trusted; `str(error)` says why."""


def cache_dir() -> Path:
    """Where databases are cached: $GRID_PLANNER_CACHE_DIR, else the user cache directory."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("grid_planner"))


def write_database(path: Path, header: dict, payload: np.ndarray) -> None:
    """Write `payload` (uint8) under `header` to `path` atomically (temporary file + rename)."""
    data = np.ascontiguousarray(payload, dtype=np.uint8)
    header = {**header, "format_version": FORMAT_VERSION, "payload_bytes": int(data.size)}
    header_bytes = json.dumps(header, sort_keys=True).encode()
    digest = hashlib.sha256()
    prefix = MAGIC + len(header_bytes).to_bytes(_LENGTH_BYTES, "little") + header_bytes
    digest.update(prefix)
    digest.update(memoryview(data))
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as stream:
            stream.write(prefix)
            stream.write(memoryview(data))
            stream.write(digest.digest())
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


def read_database(
    path: Path, expected: dict, payload_digest: str | None = None
) -> tuple[np.ndarray, dict]:
    """The payload (writable uint8 array) and header of `path`, checked against `expected`.

    `payload_digest`, when given, is the SHA-256 (hex) the payload must have. Raises
    FileNotFoundError when there is no file and UnusableFileError when there is one that fails
    any check.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the open
    with open(descriptor, "rb") as stream:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise UnusableFileError("not a regular file")
        size = status.st_size
        largest = sum(expected.get("table_sizes", ())) + _HEADER_ROOM
        if "table_sizes" in expected and size > largest:
            raise UnusableFileError(f"{size} bytes, more than a table of this kind can take")
        buffer = bytearray(size)
        view = memoryview(buffer)
        got = 0
        while got < size:
            count = stream.readinto(view[got:])
            if not count:
                break
            got += count
    if got != size:
        raise UnusableFileError(f"read {got} of {size} bytes")
    head = len(MAGIC) + _LENGTH_BYTES
    if size < head + _DIGEST_BYTES or bytes(buffer[: len(MAGIC)]) != MAGIC:
        raise UnusableFileError("not a grid_planner pattern database (bad magic or too short)")
    header_length = int.from_bytes(buffer[len(MAGIC) : head], "little")
    if head + header_length + _DIGEST_BYTES > size:
        raise UnusableFileError(f"truncated: {size} bytes cannot hold its header")
    try:
        header = json.loads(bytes(buffer[head : head + header_length]))
    except (UnicodeDecodeError, ValueError) as error:
        raise UnusableFileError(f"unreadable header ({error})") from None
    if not isinstance(header, dict):
        raise UnusableFileError("unreadable header (not an object)")
    if header.get("format_version") != FORMAT_VERSION:
        raise UnusableFileError(
            f"format version {header.get('format_version')!r}, this code reads {FORMAT_VERSION}"
        )
    for key, value in expected.items():
        if header.get(key) != value:
            raise UnusableFileError(f"header {key} is {header.get(key)!r}, expected {value!r}")
    payload_bytes = header.get("payload_bytes")
    start = head + header_length
    if not isinstance(payload_bytes, int) or start + payload_bytes + _DIGEST_BYTES != size:
        raise UnusableFileError(
            f"truncated or padded: {size} bytes, the header announces "
            f"{start + (payload_bytes or 0) + _DIGEST_BYTES}"
        )
    digest = hashlib.sha256(view[: size - _DIGEST_BYTES]).digest()
    if digest != bytes(buffer[size - _DIGEST_BYTES :]):
        raise UnusableFileError("checksum mismatch (the file is corrupt)")
    payload = np.frombuffer(buffer, dtype=np.uint8, count=payload_bytes, offset=start)
    if payload_digest is not None and hashlib.sha256(payload).hexdigest() != payload_digest:
        raise UnusableFileError(
            "its tables differ from the known contents of this database (edited and "
            "re-checksummed?)"
        )
    return payload, header


def _acquire(lock: FileLock, check: Callable[[], None]) -> None:
    """Take `lock`, waiting at most LOCK_WAIT_S and calling `check()` every LOCK_POLL_S."""
    try:
        lock.acquire(timeout=0)
        return
    except Timeout:
        _log.info("waiting for another process to finish building %s", Path(lock.lock_file).name)
    waited_until = time.monotonic() + LOCK_WAIT_S
    while True:
        check()
        try:
            lock.acquire(timeout=LOCK_POLL_S)
            return
        except Timeout:
            if time.monotonic() > waited_until:
                raise


def nothing_to_check() -> None:
    """The `check` of a caller that never stops a build early."""


def load_or_build(
    path: Path,
    expected: dict,
    build: Callable[[], tuple[np.ndarray, dict]],
    check: Callable[[], None] = nothing_to_check,
    payload_digest: str | None = None,
) -> tuple[np.ndarray, str]:
    """The payload of `path` if it is valid, else `build()`'s, stored for the next time.

    `build` returns the payload and extra header fields (merged over `expected`). Returns the
    payload and its origin, "loaded" or "built". A file that fails its checks (`read_database`,
    with `payload_digest`) is rebuilt with a warning; a cache folder that cannot be written
    only costs the store (also a warning). `check()` is called while waiting for another
    process's lock; whatever it raises ends the wait.
    """
    try:
        return read_database(path, expected, payload_digest)[0], "loaded"
    except (FileNotFoundError, UnusableFileError):
        pass  # decided under the lock: another process may be writing it right now
    except OSError as error:
        _log.warning("cannot read %s (%s)", path, error)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(f"{path}.lock")
        _acquire(lock, check)
    except (OSError, Timeout) as error:
        _log.warning("cannot lock %s (%s): building without storing it", path, error)
        return build()[0], "built"
    try:
        try:
            return read_database(path, expected, payload_digest)[0], "loaded"
        except FileNotFoundError:
            pass
        except (UnusableFileError, OSError) as error:
            _log.warning("pattern database %s is unusable (%s): rebuilding it", path, error)
        payload, extra = build()
        try:
            write_database(path, {**expected, **extra}, payload)
            _log.info("stored %s (%.1f MB)", path, payload.size / 1e6)
        except OSError as error:
            _log.warning("cannot store %s (%s): it stays in memory only", path, error)
        return payload, "built"
    finally:
        lock.release()
