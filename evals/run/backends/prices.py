"""Token prices (USD per million tokens) by model, so replayed Anthropic answers carry cost_usd.

A table ships as package data (prices.json); a file of the same shape overrides or extends
it model by model (`--prices` or `CITEVAL_PRICES=path` for a run, recorded in its manifest;
`--prices` for `data import anthropic`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.errors import DataError
from evals.run.settings import PRICES_ENV
from evals.store.reading import read_file_text

PRICE_FIELDS = ("input", "output", "cache_write", "cache_read")
SHIPPED_PRICES = Path(__file__).with_name("prices.json")  # package data (pyproject)


@dataclass(frozen=True)
class ModelPrice:
    """USD per million tokens: plain input, output, cache writes and cache reads."""

    input: float
    output: float
    cache_write: float
    cache_read: float


def _parse(obj: Any, source: str) -> dict[str, ModelPrice]:
    models = obj.get("models", obj) if isinstance(obj, dict) else None
    if not isinstance(models, dict):
        raise DataError(source, None, "expected an object {model: {input, output, cache_write, cache_read}}")
    table: dict[str, ModelPrice] = {}
    for model, entry in models.items():
        if not isinstance(entry, dict):
            raise DataError(source, None, f"price of {model!r} must be an object", field=f"models.{model}")
        values: dict[str, float] = {}
        for name in PRICE_FIELDS:
            value = entry.get(name)
            if name.startswith("cache") and value is None:
                # a model without caching prices: cached tokens cost as plain input (never free)
                value = entry.get("input")
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise DataError(source, None, f"{name} must be a number ≥ 0, got {value!r}", field=f"models.{model}")
            values[name] = float(value)
        table[model] = ModelPrice(**values)
    return table


class PriceTable:
    """Prices by model id; a dated id finds the longest key it starts with."""

    def __init__(self, prices: dict[str, ModelPrice]) -> None:
        self.prices = dict(prices)
        self._found: dict[str, ModelPrice | None] = {}

    @classmethod
    def load(cls, override: Path | str | None = None) -> PriceTable:
        """The shipped table, with the models of `override` (a JSON file) replacing or adding entries."""
        shipped = read_file_text(SHIPPED_PRICES)
        table = _parse(json.loads(shipped), "evals/run/backends/prices.json")
        if override is not None:
            path = Path(override)
            try:
                obj = json.loads(read_file_text(path, missing="price file not found"))
            except json.JSONDecodeError as exc:
                raise DataError(path, exc.lineno, f"invalid JSON: {exc.msg}") from None
            table.update(_parse(obj, str(path)))
        return cls(table)

    @classmethod
    def from_env(cls) -> PriceTable:
        """The shipped table, overridden by the file named in CITEVAL_PRICES when set."""
        return cls.load(os.environ.get(PRICES_ENV) or None)

    def price(self, model: str | None) -> ModelPrice | None:
        if not model:
            return None
        if model not in self._found:
            keys = self._keys_of(model)
            if not keys and "claude-" in model:
                # a cloud id names the model after a prefix ("us.anthropic.claude-sonnet-4-5-…-v1:0" on Bedrock)
                keys = self._keys_of(model[model.index("claude-"):])
            self._found[model] = self.prices[max(keys, key=len)] if keys else None
        return self._found[model]

    def _keys_of(self, model: str) -> list[str]:
        return [k for k in self.prices if model == k or model.startswith((k + "-", k + "@"))]

    def cost(
        self,
        model: str | None,
        input_tokens: int | None,
        output_tokens: int | None,
        cache_creation_input_tokens: int | None = None,
        cache_read_input_tokens: int | None = None,
    ) -> float | None:
        """USD for one call; None when the model has no price or the token counts are unknown."""
        price = self.price(model)
        if price is None or input_tokens is None or output_tokens is None:
            return None
        total = (
            input_tokens * price.input
            + output_tokens * price.output
            + (cache_creation_input_tokens or 0) * price.cache_write
            + (cache_read_input_tokens or 0) * price.cache_read
        )
        return round(total / 1_000_000, 10)
