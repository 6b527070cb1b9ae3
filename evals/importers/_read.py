"""Typed field access shared by the peer importers, naming the record's place in the file."""

from __future__ import annotations

from typing import Any

from evals.errors import DataError


def text_field(item: dict[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    value = item.get(key)
    if value is None:
        if required:
            raise DataError(where, None, f"{key!r} is missing")
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key.endswith("id"):
        return str(value)
    if not isinstance(value, str):
        raise DataError(where, None, f"{key!r} must be a string, got {type(value).__name__}")
    return value


def list_field(item: dict[str, Any], key: str, where: str) -> list[Any]:
    value = item.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise DataError(where, None, f"{key!r} must be a list, got {type(value).__name__}")
    return value
