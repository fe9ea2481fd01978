"""Client API at its documented path: the NumPy CDR codec of `grid_planner.nodes.wire.cdr`."""

from grid_planner.nodes.wire.cdr import (
    CdrError,
    ComputePathAnswer,
    PathArrays,
    decode_compute_path_answer,
    decode_path,
    encode_compute_path_answer,
    encode_path,
)

__all__ = [
    "CdrError",
    "ComputePathAnswer",
    "PathArrays",
    "decode_compute_path_answer",
    "decode_path",
    "encode_compute_path_answer",
    "encode_path",
]
