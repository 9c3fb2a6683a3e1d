"""The shared library, loaded with ctypes, and the checks of what goes in.

Every C function returns an int64: 0 or more on success, or a negative
error code whose message ``ds_error_message`` hands over; ``check`` turns
it into a :class:`DeathStacksError`. Arrays are ours (numpy); the library
writes into them during a call and keeps no pointer afterwards.
"""

from __future__ import annotations

import ctypes
import json
import numbers
import os
import threading

import numpy as np

__all__ = ["DeathStacksError", "ClosedError", "Handle", "lib", "check", "text", "INFO"]


class DeathStacksError(ValueError):
    """Bad input or a failure reported by the library, with its message."""


class ClosedError(DeathStacksError):
    """A call on an environment, player or network after close()."""


_I64 = ctypes.c_int64
_U64 = ctypes.c_uint64
_P = ctypes.c_void_p
_S = ctypes.c_char_p

# name: argument types; every function returns int64.
_SIGNATURES = {
    "ds_error_message": [_I64, _P, _I64],
    "ds_info": [_P, _I64],
    "ds_close": [_I64],
    "ds_legal_moves": [_S, _I64, _P, _I64],
    "ds_render_fen": [_S, _P, _I64],
    "ds_action_of": [_S],
    "ds_move_of": [_I64, _P, _I64],
    "ds_env_new": [_I64, _I64, _I64, _I64],
    "ds_env_reset": [_I64, _U64, _S, _I64, _P, _I64, _P, _I64],
    "ds_env_step": [_I64, _I64, _P, _I64, _P, _I64, _P],
    "ds_env_observe": [_I64, _P, _I64, _P, _I64],
    "ds_env_state": [_I64, _P, _I64],
    "ds_env_legal": [_I64, _P, _I64],
    "ds_env_text": [_I64, _I64, _P, _I64],
    "ds_vec_new": [_I64, _I64, _I64, _I64, _I64, _S, _I64],
    "ds_vec_reset": [_I64, _U64, _I64, _P, _P, _P],
    "ds_vec_step": [_I64, _I64, _P, _P, _P, _P, _P, _P, _P],
    "ds_vec_sample": [_I64, _I64, _P],
    "ds_vec_fen": [_I64, _I64, _P, _I64],
    "ds_player_new": [_S, _U64],
    "ds_player_choose": [_I64, _S, _S, _I64, _I64, _I64, _P, _I64],
    "ds_player_last": [_I64, _P, _I64],
    "ds_network_new": [_S],
    "ds_network_predict": [_I64, _I64, _P, _P, _P],
    "ds_server_stats": [_S, _P],
    "ds_network_weights_index": [_I64, _P, _I64],
    "ds_network_weights": [_I64, _P, _I64],
    "ds_search_new": [_S, _U64, _I64, _I64, _I64],
    "ds_search_start": [_I64, _S],
    "ds_search_results": [_I64, _I64, _P, _P, _P, _P],
    "ds_search_lines": [_I64, _P, _I64],
    "ds_selfplay_new": [_S],
    "ds_selfplay_start": [_I64, _I64, _U64],
    "ds_selfplay_size": [_I64],
    "ds_selfplay_samples": [_I64, _I64, _P, _P, _P, _P, _P, _P],
    "ds_selfplay_targets": [_I64, _I64, _P, _P, _P, _P],
    "ds_selfplay_games": [_I64, _I64, _P, _P, _P],
    "ds_selfplay_moves": [_I64, _P, _I64],
    "ds_symmetries": [_P, _P],
    "ds_batch_size": [_I64],
    "ds_batch_next": [_I64, _I64, _P, _P],
    "ds_batch_feed": [_I64, _I64, _P, _P],
    "ds_batch_round": [_I64, _I64, _P, _P, _I64, _P, _P],
    "ds_batch_abort": [_I64],
}


class Handle:
    """An object that lives in the library under a handle: close()
    releases it (as garbage collection does, and the end of a ``with``
    block), and calls after it raise ClosedError."""

    _h = None
    _what = "object"

    def _handle(self) -> int:
        if self._h is None:
            raise ClosedError(f"the {self._what} is closed")
        return self._h

    def close(self, **kwargs) -> None:
        """Releases the object in the library; closing twice is fine."""
        if self._h is not None:
            lib.ds_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _library_path() -> str:
    path = os.environ.get("DEATHSTACKS_LIB")
    if path:
        return path
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libdeathstacks.so")


def _load() -> ctypes.CDLL:
    path = _library_path()
    try:
        cdll = ctypes.CDLL(path)
    except OSError as err:
        raise ImportError(
            f"deathstacks: cannot load the shared library {path} ({err}); "
            "install the package with pip (a wheel holds the library; "
            "building from source runs the Go build), "
            "or set DEATHSTACKS_LIB to a libdeathstacks.so built with "
            "go build -buildmode=c-shared ./cmd/libdeathstacks"
        ) from None
    for name, args in _SIGNATURES.items():
        fn = getattr(cdll, name)
        fn.argtypes = args
        fn.restype = _I64
    return cdll


lib = _load()

_local = threading.local()


def _buffer(size: int):
    """A text buffer of at least size bytes, reused per thread."""
    buf = getattr(_local, "buf", None)
    if buf is None or len(buf) < size:
        buf = ctypes.create_string_buffer(size)
        _local.buf = buf
    return buf


def _message(code: int) -> str:
    buf = ctypes.create_string_buffer(1 << 16)
    lib.ds_error_message(code, buf, len(buf))
    return buf.value.decode("utf-8", "replace")


def check(code: int) -> int:
    """Returns a successful result, or raises the error of a negative code."""
    if code < 0:
        msg = _message(code)
        if "closed or never opened" in msg:
            raise ClosedError(msg)
        raise DeathStacksError(msg)
    return code


def text(fn, *args) -> str:
    """Calls a function writing text into (buf, cap), growing the buffer."""
    size = 4096
    while True:
        buf = _buffer(size)
        n = check(fn(*args, buf, len(buf)))
        if n < len(buf):
            return buf.value.decode("utf-8")
        size = n + 1


def cstr(value, what: str) -> bytes:
    """A Python string as a C string, refusing what C cannot take."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise DeathStacksError(f"{what} {value!r} contains a NUL character")
    return value.encode("utf-8")


def integer(value, what: str, lo: int = -(2**63), hi: int = 2**63 - 1) -> int:
    """An integer argument (int or numpy integer, not bool), range-checked."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
    value = int(value)
    if not lo <= value <= hi:
        raise DeathStacksError(f"{what} {value} is out of range [{lo}, {hi}]")
    return value


def seed_of(seed, what: str = "seed") -> int:
    return integer(seed, what, 0, 2**64 - 1)


def flag(value, what: str) -> int:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be True or False, not {type(value).__name__}")
    return 1 if value else 0


def array(value, dtype, shape: tuple, what: str) -> np.ndarray:
    """Checks that value is a C-contiguous, writable numpy array of dtype
    and shape, as the library writes into or reads from it."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{what} must be a numpy array, not {type(value).__name__}")
    if value.dtype != np.dtype(dtype):
        raise DeathStacksError(f"{what} has dtype {value.dtype}, want {np.dtype(dtype)}")
    if value.shape != tuple(shape):
        raise DeathStacksError(f"{what} has shape {value.shape}, want {tuple(shape)}")
    if not value.flags.c_contiguous or not value.flags.writeable:
        raise DeathStacksError(f"{what} must be C-contiguous and writable")
    return value


def ptr(a: np.ndarray | None):
    return None if a is None else a.ctypes.data


INFO = json.loads(text(lib.ds_info))
