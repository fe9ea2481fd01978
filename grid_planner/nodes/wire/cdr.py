"""CDR bytes of the path messages this node sends in bulk, built with NumPy.

rclpy converts a message between Python and C one attribute at a time: ~11 us per PoseStamped
to send and ~40 us to receive, so a 4,000-pose Path costs ~45 ms before it leaves the node and
~160 ms in a Python client. The same bytes built here cost ~1 ms. The encoding is plain CDR
(XCDR1) little endian, what the ROS 2 DDS middlewares write for these types: a 4-byte
encapsulation header, then each primitive aligned to its own size counted from the end of that
header, strings as a uint32 length that counts the closing NUL, sequences as a uint32 count.
Padding bytes are zero here (the middleware leaves them undefined). `prebuilt`
checks at start-up that the middleware in use reads these bytes back as the same messages
before any of them goes on the wire.

No rclpy here: `PathArrays` is the plain value a planned path is kept as until it is sent.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

ENCAPSULATION = b"\x00\x01\x00\x00"  # CDR, little endian, no options
_POSE_DOUBLES = 7  # position x, y, z + orientation x, y, z, w


@dataclass(frozen=True, eq=False)
class PathArrays:
    """A nav_msgs/Path whose poses all share the path's header, as arrays.

    `positions` is (n, 3) and `orientations` (n, 4, quaternion x, y, z, w), float64.
    """

    frame_id: str
    stamp_sec: int
    stamp_nanosec: int
    positions: np.ndarray
    orientations: np.ndarray

    @property
    def pose_count(self) -> int:
        """How many poses the path has."""
        return len(self.positions)


@dataclass(frozen=True, eq=False)
class ComputePathAnswer:
    """The fields of a grid_planner_interfaces/srv/ComputePath response."""

    path: PathArrays
    error_code: int
    error_msg: str
    path_length: float
    nodes_expanded: int
    planning_time_sec: int
    planning_time_nanosec: int


class CdrWriter:
    """Appends CDR primitives with their alignment; `getvalue()` adds the encapsulation."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._offset = 0

    def _put(self, data: bytes, alignment: int) -> None:
        padding = -self._offset % alignment
        if padding:
            self._parts.append(bytes(padding))
        self._parts.append(data)
        self._offset += padding + len(data)

    def uint16(self, value: int) -> None:
        self._put(struct.pack("<H", value), 2)

    def int32(self, value: int) -> None:
        self._put(struct.pack("<i", value), 4)

    def uint32(self, value: int) -> None:
        self._put(struct.pack("<I", value), 4)

    def uint64(self, value: int) -> None:
        self._put(struct.pack("<Q", value), 8)

    def float64(self, value: float) -> None:
        self._put(struct.pack("<d", value), 8)

    def string(self, value: str) -> None:
        stored = _stored(value)
        self.uint32(len(stored))
        self._put(stored, 1)

    def block(self, data: bytes, alignment: int) -> None:
        """Already encoded bytes, placed at `alignment`."""
        self._put(data, alignment)

    def getvalue(self) -> bytes:
        return ENCAPSULATION + b"".join(self._parts)


def encode_path(path: PathArrays) -> bytes:
    """The serialized nav_msgs/Path of `path`."""
    writer = CdrWriter()
    _write_path(writer, path)
    return writer.getvalue()


def encode_compute_path_answer(answer: ComputePathAnswer) -> bytes:
    """The serialized ComputePath response of `answer`."""
    writer = CdrWriter()
    _write_path(writer, answer.path)
    writer.uint16(answer.error_code)
    writer.string(answer.error_msg)
    writer.float64(answer.path_length)
    writer.uint64(answer.nodes_expanded)
    writer.int32(answer.planning_time_sec)
    writer.uint32(answer.planning_time_nanosec)
    return writer.getvalue()


def _write_path(writer: CdrWriter, path: PathArrays) -> None:
    """Append a Path: header, pose count, then every pose with the same header."""
    header = _header_bytes(path.stamp_sec, path.stamp_nanosec, _stored(path.frame_id))
    writer.block(header, 4)  # stamp and frame_id length are 4-byte types
    count = path.pose_count
    writer.uint32(count)
    if count == 0:
        return
    doubles = np.empty((count, _POSE_DOUBLES), dtype="<f8")
    doubles[:, :3] = path.positions
    doubles[:, 3:] = path.orientations
    writer.block(header, 4)
    writer.block(doubles[0].tobytes(), 8)
    if count > 1:
        # After the first pose's doubles the offset is a multiple of 8, so every further pose
        # has the same layout: one NumPy record each.
        records = np.zeros(count - 1, dtype=_record_dtype(len(header)))
        records["header"] = np.void(header)
        records["doubles"] = doubles[1:]
        writer.block(records.tobytes(), 8)


def _stored(value: str) -> bytes:
    """A string's bytes as rclpy's C conversion stores them: up to the first NUL, closed by one."""
    return value.encode().split(b"\0", 1)[0] + b"\0"


def _header_bytes(sec: int, nanosec: int, frame: bytes) -> bytes:
    """A std_msgs/Header: stamp, then the stored frame_id bytes with their length."""
    return struct.pack("<iII", sec, nanosec, len(frame)) + frame


def _record_dtype(header_size: int) -> np.dtype:
    """One PoseStamped that starts 8-aligned: header bytes, padding, seven doubles."""
    doubles_at = header_size + (-header_size % 8)
    return np.dtype({
        "names": ["header", "doubles"],
        "formats": [f"V{header_size}", ("<f8", (_POSE_DOUBLES,))],
        "offsets": [0, doubles_at],
        "itemsize": doubles_at + 8 * _POSE_DOUBLES,
    })


class CdrError(ValueError):
    """Bytes that are not the message they were read as."""


class CdrReader:
    """Reads CDR primitives with their alignment from serialized bytes."""

    def __init__(self, data: bytes) -> None:
        if data[:2] != ENCAPSULATION[:2]:
            raise CdrError(f"not little-endian CDR: encapsulation {data[:4].hex()}")
        self._data = memoryview(data)[4:]
        self._offset = 0

    def _take(self, size: int, alignment: int) -> memoryview:
        self._offset += -self._offset % alignment
        end = self._offset + size
        if end > len(self._data):
            raise CdrError(f"truncated: needs {end} bytes, has {len(self._data)}")
        chunk = self._data[self._offset:end]
        self._offset = end
        return chunk

    def _unpack(self, code: str, size: int) -> int | float:
        return struct.unpack("<" + code, self._take(size, size))[0]

    def uint16(self) -> int:
        return self._unpack("H", 2)

    def int32(self) -> int:
        return self._unpack("i", 4)

    def uint32(self) -> int:
        return self._unpack("I", 4)

    def uint64(self) -> int:
        return self._unpack("Q", 8)

    def float64(self) -> float:
        return self._unpack("d", 8)

    def raw_string(self) -> bytes:
        """A string's bytes as stored, closing NUL included."""
        length = self.uint32()
        raw = bytes(self._take(length, 1))
        if not raw.endswith(b"\0"):
            raise CdrError("a string without its closing NUL")
        return raw

    def string(self) -> str:
        """A string as rclpy reads it."""
        return _text(self.raw_string())

    def block(self, size: int, alignment: int) -> memoryview:
        """The next `size` raw bytes, from `alignment`."""
        return self._take(size, alignment)


def _text(raw: bytes) -> str:
    """Stored string bytes as rclpy reads them: up to the first NUL, bad UTF-8 replaced."""
    return raw.split(b"\0", 1)[0].decode(errors="replace")


def decode_path(data: bytes) -> PathArrays:
    """The Path in serialized `data` (raises CdrError unless its poses share its header)."""
    return _read_path(CdrReader(data))


def decode_compute_path_answer(data: bytes) -> ComputePathAnswer:
    """The ComputePath response in serialized `data`."""
    reader = CdrReader(data)
    path = _read_path(reader)
    error_code = reader.uint16()
    error_msg = reader.string()
    path_length = reader.float64()
    nodes_expanded = reader.uint64()
    sec, nanosec = reader.int32(), reader.uint32()
    return ComputePathAnswer(path, error_code, error_msg, path_length, nodes_expanded, sec,
                             nanosec)


def _read_path(reader: CdrReader) -> PathArrays:
    """Read a Path whose poses all carry the path's own header."""
    sec, nanosec, frame = reader.int32(), reader.uint32(), reader.raw_string()
    header = _header_bytes(sec, nanosec, frame)
    frame_id = _text(frame)
    count = reader.uint32()
    doubles = np.empty((count, _POSE_DOUBLES))
    if count:
        if bytes(reader.block(len(header), 4)) != header:
            raise CdrError("pose 0 has a header of its own; only shared headers are read")
        doubles[0] = np.frombuffer(reader.block(8 * _POSE_DOUBLES, 8), dtype="<f8")
    if count > 1:
        dtype = _record_dtype(len(header))
        records = np.frombuffer(reader.block(dtype.itemsize * (count - 1), 8), dtype=dtype)
        if np.any(records["header"] != np.void(header)):
            raise CdrError("a pose has a header of its own; only shared headers are read")
        doubles[1:] = records["doubles"]
    return PathArrays(frame_id, sec, nanosec, doubles[:, :3], doubles[:, 3:])
