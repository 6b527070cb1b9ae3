"""Giving freed memory back to the operating system between the stages of a long scoring.

CPython frees objects into the C allocator; glibc keeps the pages of a freed region (an answer
index built from a million-line file, a shard's records) for reuse rather than returning them,
so a process's resident size stays at its highest point even when most of it is free. Between
shards `malloc_trim(0)` hands the free pages back (what Dask's workers do for the same reason).
Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable

__all__ = ["release_free_memory"]


def _trim_function() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


_TRIM = _trim_function()


def release_free_memory() -> None:
    """Return the allocator's free pages to the system (glibc; a no-op elsewhere)."""
    if _TRIM is not None:
        _TRIM(0)
