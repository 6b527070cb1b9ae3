"""The base of the hand-built JSON documents' models (agreement.json, probe.json, quotes.json).

Those documents were dicts before they had models, and their readers (people, outside checks,
diffs in review) see the keys in the order a stage puts them and an optional key only when it
was set. `OrderedRecord` keeps that form: it writes back the keys it was given — when built by a
stage or read from a file — in the order given, then any field set later, and never a field left
at its default. So a model built where the dict was built writes the same bytes, and a file read
and written back keeps its shape, unknown keys included (DESIGN: "add fields freely").
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

__all__ = ["OrderedRecord", "RateEntry"]


class OrderedRecord(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    _given_order: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _remember_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        record = handler(data)
        if isinstance(data, dict) and isinstance(record, OrderedRecord):
            record._given_order = tuple(data)
        return record

    @model_serializer(mode="wrap")
    def _as_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        given = self.model_fields_set | set(self.model_extra or ())
        first = [key for key in self._given_order if key in given and key in data]
        later = [key for key in data if key in given and key not in first]
        return {key: data[key] for key in [*first, *later]}

    def to_json(self) -> dict[str, Any]:
        """The document as written to disk (and printed by --format json)."""
        return self.model_dump(mode="json")


class RateEntry(OrderedRecord):
    """A share with its 95 % bootstrap interval, `{value, ci: [lo, hi], n}`; value null with the
    reason when nothing could be counted, ci null with ci_reason when no interval could be formed."""

    value: float | None = None
    ci: tuple[float, float] | None = None
    n: int = 0
    reason: str | None = None
    ci_reason: str | None = None
