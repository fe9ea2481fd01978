"""Big answers handed to rclpy as prebuilt CDR instead of thousands of Python objects.

rclpy turns a Python message into its C struct by calling the function in the class's
`_CONVERT_FROM_PY` capsule, which reads every field of every nested message through Python
attribute lookups (~45 ms for a 4,000-pose Path). A subclass of the generated response type
whose `_CONVERT_FROM_PY` hands bytes from `grid_planner.nodes.wire.cdr` to the middleware's own
`rmw_deserialize` fills the same C struct in ~1 ms; the service then sends it as usual.
Topics need no trick: `Publisher.publish` takes serialized bytes.

The reverse direction (`raw_response_type`) lets a Python client take a response as its
serialized bytes, skipping rclpy's ~40 us per pose of Python object construction.

This leans on rclpy internals that have been stable since Dashing (the capsule attributes) and on
the middleware's CDR layout, so `probe()` checks both once per process with a sample answer
and the node falls back to ordinary messages, saying why, when anything differs. The callbacks
run inside rclpy's C++ code, where a Python exception cannot travel: each one catches every
fault and answers with a defined value.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import sys
import threading
from dataclasses import dataclass

import numpy as np
from grid_planner_interfaces.srv import ComputePath
from nav_msgs.msg import Path
from nav_msgs.srv import GetPlan
from rclpy.serialization import deserialize_message, serialize_message
from rclpy.type_support import check_for_type_support
from rclpy.utilities import get_rmw_implementation_identifier

from grid_planner.nodes.conversions import compute_path_response, path_message
from grid_planner.nodes.wire.cdr import (
    CdrError,
    ComputePathAnswer,
    PathArrays,
    encode_compute_path_answer,
    encode_path,
)

RMW_RET_OK = 0


class _Allocator(ctypes.Structure):
    _fields_ = [(name, ctypes.c_void_p) for name in
                ("allocate", "deallocate", "reallocate", "zero_allocate", "state")]


class _SerializedMessage(ctypes.Structure):
    """rmw_serialized_message_t (rcutils_uint8_array_t)."""

    _fields_ = [("buffer", ctypes.c_void_p), ("buffer_length", ctypes.c_size_t),
                ("buffer_capacity", ctypes.c_size_t), ("allocator", _Allocator)]


# Callbacks that rclpy calls (ctypes takes the GIL for them), and the generated converter we call
# back, which uses the Python C API and so must be called with the GIL held (PYFUNCTYPE).
_CONVERT_FROM_PY = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.py_object, ctypes.c_void_p)
_CONVERT_TO_PY = ctypes.CFUNCTYPE(ctypes.py_object, ctypes.c_void_p)
_GENERATED_CONVERT_FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_bool, ctypes.py_object, ctypes.c_void_p)


class PrebuiltUnavailableError(RuntimeError):
    """Why prebuilt CDR cannot be used in this process."""


class _Native:
    """The C functions this module calls, from libraries the process has loaded already."""

    def __init__(self) -> None:
        if not sys.platform.startswith("linux"):
            raise PrebuiltUnavailableError(f"only set up for Linux, not {sys.platform}")
        self.rmw = _loaded_library(
            "librmw_implementation.so", f"lib{get_rmw_implementation_identifier()}.so"
        )
        rcutils = _loaded_library("librcutils.so")
        rcutils.rcutils_get_default_allocator.restype = _Allocator
        self.allocator = rcutils.rcutils_get_default_allocator()
        self.array_init = rcutils.rcutils_uint8_array_init
        self.array_init.argtypes = [ctypes.POINTER(_SerializedMessage), ctypes.c_size_t,
                                    ctypes.POINTER(_Allocator)]
        self.array_fini = rcutils.rcutils_uint8_array_fini
        self.array_fini.argtypes = [ctypes.POINTER(_SerializedMessage)]
        self.deserialize = self.rmw.rmw_deserialize
        self.deserialize.argtypes = [ctypes.POINTER(_SerializedMessage), ctypes.c_void_p,
                                     ctypes.c_void_p]
        self.serialize = self.rmw.rmw_serialize
        self.serialize.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                   ctypes.POINTER(_SerializedMessage)]
        self.reset_error = rcutils.rcutils_reset_error
        api = ctypes.PyDLL(None)  # its own function objects: ctypes.pythonapi's stay untouched
        api.PyCapsule_GetName.restype = ctypes.c_char_p
        api.PyCapsule_GetName.argtypes = [ctypes.py_object]
        api.PyCapsule_GetPointer.restype = ctypes.c_void_p
        api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        api.PyCapsule_New.restype = ctypes.py_object
        api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        self._api = api

    def capsule_pointer(self, capsule: object) -> int:
        """The pointer a PyCapsule holds."""
        return self._api.PyCapsule_GetPointer(capsule, self._api.PyCapsule_GetName(capsule))

    def capsule(self, function: ctypes._CFuncPtr) -> object:
        """A PyCapsule holding the address of a ctypes callback."""
        return self._api.PyCapsule_New(ctypes.cast(function, ctypes.c_void_p), None, None)

    def struct_functions(self, message_type: type) -> tuple[ctypes._CFuncPtr, ctypes._CFuncPtr]:
        """The generated C `__fini` and `__init` of `message_type`'s struct."""
        package, kind = message_type.__module__.split(".")[:2]
        library = _loaded_library(f"lib{package}__rosidl_generator_c.so")
        prefix = f"{package}__{kind}__{message_type.__name__}"
        fini, init = getattr(library, f"{prefix}__fini"), getattr(library, f"{prefix}__init")
        fini.argtypes, init.argtypes = [ctypes.c_void_p], [ctypes.c_void_p]
        init.restype = ctypes.c_bool
        return fini, init


def _loaded_library(*names: str) -> ctypes.CDLL:
    """The first of `names` this process has loaded already (never loads a new one)."""
    for name in names:
        try:
            return ctypes.CDLL(name, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        except OSError:
            continue
    raise PrebuiltUnavailableError(f"none of {', '.join(names)} is loaded")


def _type_support(native: _Native, message_type: type) -> int:
    return native.capsule_pointer(message_type._TYPE_SUPPORT)


@functools.cache
def _native() -> _Native:
    return _Native()


_logger = logging.getLogger(__name__)
_fallbacks = 0
_fallback_lock = threading.Lock()


def fallback_count() -> int:
    """How many prebuilt answers this process has had to send the slow way (normally 0)."""
    return _fallbacks


def _fill_from_prebuilt(message: object, ros_message: int) -> bool:
    """`_CONVERT_FROM_PY` of the prebuilt classes: the message's CDR into the C struct.

    Runs inside rclpy's send, so it must not fail: on any fault, or when the middleware reports
    an error, the struct is reset and the ordinary message is converted the slow way (counted,
    and logged the first time). The bytes come only from `grid_planner.nodes.wire.cdr`, whose output
    `probe()` has checked: the middleware does not validate them fully (a sequence longer than
    the buffer is reported on stderr, yet the call returns success with the sequence empty).
    Returns False only when the slow way fails too; rclpy then raises, as it does for any
    message it cannot convert.
    """
    try:
        if _deserialize_prebuilt(message, ros_message):
            return True
    except BaseException:  # nothing may escape into rclpy's C++ code
        _logger.debug("prebuilt CDR refused", exc_info=True)
    try:
        return _send_the_slow_way(message, ros_message)
    except BaseException:  # as above
        _logger.exception("a prebuilt answer could not be converted at all")
        return False


def _send_the_slow_way(message: object, ros_message: int) -> bool:
    global _fallbacks
    with _fallback_lock:
        _fallbacks += 1
        first = _fallbacks == 1
    if first:
        _logger.warning("a prebuilt answer went out the slow way (ordinary conversion)")
    cls = type(message)
    _native().reset_error()
    fini, init = cls._struct_functions
    fini(ros_message)
    if not init(ros_message):
        raise MemoryError("the message struct could not be initialised again")
    return cls._ordinary_convert(message._ordinary(), ros_message)


def _deserialize_prebuilt(message: object, ros_message: int) -> bool:
    native = _native()
    cdr = message._prebuilt_cdr
    serialized = _SerializedMessage(ctypes.cast(ctypes.c_char_p(cdr), ctypes.c_void_p),
                                    len(cdr), len(cdr), native.allocator)
    return native.deserialize(ctypes.byref(serialized), type(message)._prebuilt_type_support,
                              ros_message) == RMW_RET_OK


_FILL_FROM_PREBUILT = _CONVERT_FROM_PY(_fill_from_prebuilt)  # kept alive for the process


def _serialized_bytes(ros_message: int, type_support: int) -> bytes:
    """The CDR of a C message struct."""
    native = _native()
    serialized = _SerializedMessage()
    if native.array_init(ctypes.byref(serialized), 0, ctypes.byref(native.allocator)):
        raise MemoryError("rcutils_uint8_array_init failed")
    try:
        if native.serialize(ros_message, type_support, ctypes.byref(serialized)) != RMW_RET_OK:
            native.reset_error()
            raise RuntimeError("rmw_serialize failed")
        return ctypes.string_at(serialized.buffer, serialized.buffer_length)
    finally:
        native.array_fini(ctypes.byref(serialized))


def _prebuilt_class(base: type) -> type:
    """A subclass of the generated message `base` that rclpy fills from `_prebuilt_cdr`."""
    native = _native()
    check_for_type_support(base)
    return type(base)(f"Prebuilt{base.__name__}", (base,), {
        "__doc__": f"{base.__name__} sent from prebuilt CDR (grid_planner.nodes.prebuilt).",
        "_CONVERT_FROM_PY": native.capsule(_FILL_FROM_PREBUILT),
        "_prebuilt_type_support": _type_support(native, base),
        "_ordinary_convert": _GENERATED_CONVERT_FROM_PY(
            native.capsule_pointer(base._CONVERT_FROM_PY)),
        "_struct_functions": native.struct_functions(base),
    })


def raw_response_type(service_type: type) -> type:
    """A stand-in for `service_type` whose responses reach a client as their CDR bytes.

    `node.create_client(raw_response_type(GetPlan), "plan_path")` gives futures whose result is
    `bytes`; `grid_planner.nodes.cdr.decode_path` reads a GetPlan answer from them. Should the
    middleware fail to serialize a received answer (never seen), the result is a CdrError
    instance saying so, as an exception cannot leave the conversion.
    """
    native = _native()
    check_for_type_support(service_type)
    response = service_type.Response
    type_support = _type_support(native, response)

    def to_bytes(ros_message: int) -> bytes | CdrError:
        try:
            return _serialized_bytes(ros_message, type_support)
        except BaseException as error:  # nothing may escape into rclpy's C++ code
            return CdrError(f"the received {response.__name__} could not be serialized: {error}")

    to_py = _CONVERT_TO_PY(to_bytes)
    raw_meta = type(type(response))(f"RawMeta{response.__name__}", (type(response),), {
        "_CONVERT_TO_PY": native.capsule(to_py), "_to_py_callback": to_py,
    })
    raw = raw_meta(f"Raw{response.__name__}", (response,), {})
    return type(service_type)(f"Raw{service_type.__name__}", (service_type,),
                              {"Response": raw})


@dataclass(frozen=True)
class _Prebuilt:
    get_plan: type
    compute_path: type


class MessageWire:
    """How planner answers leave the node: prebuilt CDR when `probe()` passed, else messages."""

    def __init__(self, prebuilt: _Prebuilt | None, description: str) -> None:
        self._prebuilt = prebuilt
        self.description = description

    @property
    def prebuilt(self) -> bool:
        """Whether answers go out as prebuilt CDR."""
        return self._prebuilt is not None

    def plan(self, path: PathArrays) -> Path | bytes:
        """What to publish on `plan`: serialized bytes, or the ordinary message."""
        return encode_path(path) if self._prebuilt is not None else path_message(path)

    def get_plan_response(self, path: PathArrays) -> GetPlan.Response:
        """A GetPlan response carrying `path`."""
        if self._prebuilt is None:
            return GetPlan.Response(plan=path_message(path))
        response = self._prebuilt.get_plan()
        response._prebuilt_cdr = encode_path(path)
        response._ordinary = lambda: GetPlan.Response(plan=path_message(path))
        return response

    def compute_path_response(self, answer: ComputePathAnswer) -> ComputePath.Response:
        """A ComputePath response with the fields of `answer`."""
        if self._prebuilt is None:
            return compute_path_response(answer)
        response = self._prebuilt.compute_path()
        response._prebuilt_cdr = encode_compute_path_answer(answer)
        response._ordinary = lambda: compute_path_response(answer)
        return response


@functools.cache
def probe() -> MessageWire:
    """The wire for this process, after checking the prebuilt route with a sample answer."""
    try:
        prebuilt = _Prebuilt(_prebuilt_class(GetPlan.Response),
                             _prebuilt_class(ComputePath.Response))
        _check(MessageWire(prebuilt, ""))
    except Exception as error:  # any fault here only means: send ordinary messages
        return MessageWire(None, f"ordinary messages (prebuilt CDR unavailable: {error})")
    return MessageWire(prebuilt, "prebuilt CDR")


def _check(wire: MessageWire) -> None:
    """Raise ValueError unless prebuilt bytes and responses read back as the ordinary ones, by
    the prebuilt route itself (a silent fallback would hide a broken route)."""
    sample = _sample_path()
    if deserialize_message(encode_path(sample), Path) != path_message(sample):
        raise ValueError("the middleware reads the Path bytes differently")
    answer = ComputePathAnswer(sample, 0, "sample ünïcode", 1.25, 3, 0, 7)
    pairs = (
        (wire.get_plan_response(sample), GetPlan.Response(plan=path_message(sample))),
        (wire.compute_path_response(answer), compute_path_response(answer)),
    )
    before = fallback_count()
    for prebuilt, ordinary in pairs:
        if deserialize_message(serialize_message(prebuilt), type(ordinary)) != ordinary:
            raise ValueError(f"a prebuilt {type(ordinary).__name__} reads back differently")
    if fallback_count() != before:
        raise ValueError("the middleware refused the prebuilt bytes")


def _sample_path() -> PathArrays:
    """Three poses with awkward values (negative stamp, odd-length frame, every field set)."""
    positions = np.array([[0.5, -1.25, 0.0], [1.5, 2.0, 0.125], [-3.0, 1e-9, 4.0]])
    orientations = np.array([[0.0, 0.0, 0.0, 1.0], [0.1, 0.2, 0.3, 0.9], [0.0, 0.0, 1.0, 0.0]])
    return PathArrays("odd_frame", -5, 999_999_999, positions, orientations)
