"""Giving freed memory back to the operating system between the stages of a long scoring.

CPython frees objects into the C allocator; glibc keeps the pages of a freed region (an answer
index built from a million-line file, a shard's records) for reuse rather than returning them,
so a process's resident size stays at its highest point even when most of it is free. Between
shards `malloc_trim(0)` hands the free pages back (what Dask's workers do for the same reason).
Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable

__all__ = ["release_free_memory"]


@functools.cache
def _trim_function() -> Callable[[int], int] | None:
    """glibc's malloc_trim from the symbols already loaded in this process (no library search,
    no subprocess), looked up on first use, not at import."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


def release_free_memory() -> None:
    """Return the allocator's free pages to the system (glibc; a no-op elsewhere)."""
    trim = _trim_function()
    if trim is not None:
        trim(0)
