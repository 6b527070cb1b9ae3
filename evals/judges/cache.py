"""A JSONL cache of LLM verdicts, kept in the folder the caller passes (the run folder), so
re-scoring a run costs nothing. Append-only: a killed run keeps every verdict already written;
a half-written last line is ignored on load. Only verdicts are cached, never failures, and
never the API key (it is not part of the key either)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any


def cache_key(model: str, prompt_version: str, claim: str, evidence: list[str], question: str | None) -> str:
    payload = json.dumps([model, prompt_version, claim, evidence, question], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class VerdictCache:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._entries: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            with open(self.path, encoding="utf-8") as handle:
                for line in handle:
                    try:
                        entry = json.loads(line)
                    except json.JSONDecodeError:
                        continue  # a line cut short by a kill
                    if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                        self._entries[entry["key"]] = entry

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> dict[str, Any] | None:
        return self._entries.get(key)

    def put(self, key: str, entry: dict[str, Any]) -> None:
        record = {"key": key, **entry}
        self._entries[key] = record
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
