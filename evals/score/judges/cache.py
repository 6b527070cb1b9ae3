"""A JSONL cache of LLM verdicts, kept in the folder the caller passes (the run folder), so
re-scoring a run costs nothing. Append-only: a killed run keeps every verdict already written;
a half-written last line is ignored. Only verdicts are cached, never failures, and never the
API key (it is not part of the key either).

Sized for production logs (365,000 answers × 5 claims is about 1.8 million verdicts, ~0.5 GB
of JSON): the entries are never all loaded. On the first lookup one pass over the file keeps,
per line, a 64-bit hash of its key and its byte offset (16 bytes a line, numpy arrays); a
lookup reads and checks just the line(s) with that hash, the later line winning as before.
Verdicts written by this process stay at hand in a bounded map (the latest RECENT of them).
Each verdict is appended in one `write` on a file opened with O_APPEND, so several scoring
processes can share one cache file without interleaving lines.
"""

from __future__ import annotations

import hashlib
import json
import re
from array import array
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from evals.errors import DataError
from evals.store.atomic import append_once
from evals.store.reading import decode_text, open_binary, parse_json

# verdicts written by this process kept in memory (a unit judged twice in one run is a cache hit)
RECENT = 65_536
_LEADING_KEY = re.compile(rb'\A\{"key":\s*"([^"\\]*)"')


def cache_key(model: str, prompt_version: str, claim: str, evidence: list[str], question: str | None) -> str:
    payload = json.dumps([model, prompt_version, claim, evidence, question], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _entry(line: bytes) -> dict[str, Any] | None:
    """A cache line as an entry, or None for one that is not: cut short by a kill, beyond the
    reading limits (a RecursionError for json.loads), or without a key — a miss, never a traceback."""
    try:
        entry = parse_json(decode_text(line, "judge_cache.jsonl"), "judge_cache.jsonl")
    except DataError:
        return None
    return entry if isinstance(entry, dict) and isinstance(entry.get("key"), str) else None


def verdict_of(entry: dict[str, Any]) -> tuple[str, float | None, str] | None:
    """(label, score, reason) of a cached verdict, None when the entry is not one (a hand-edited or
    foreign line: the unit is judged again rather than a bad label scored)."""
    value, score, reason = entry.get("value"), entry.get("score"), entry.get("reason")
    if value not in LABELS or not isinstance(reason, str):
        return None
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1):
        return None
    return value, score, reason


LABELS = ("supported", "partial", "unsupported", "cannot_judge")


class VerdictCache:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._hashes: np.ndarray | None = None  # sorted key hashes of the file's lines, built on first use
        self._offsets: np.ndarray = np.empty(0, dtype=np.int64)
        self._distinct = 0
        self._recent: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._reader: Any = None
        self._tail_checked = False

    def _index(self) -> np.ndarray:
        """One pass over the file: (hash of key, offset) per complete line, sorted by hash."""
        if self._hashes is not None:
            return self._hashes
        hashes: array[int] = array("q")
        offsets: array[int] = array("q")
        if self.path.exists():
            with open_binary(self.path) as handle:
                offset = 0
                for line in handle:
                    if line.endswith(b"\n"):
                        found = _LEADING_KEY.match(line)
                        key: str | None
                        if found is not None:
                            key = found.group(1).decode("utf-8", "replace")
                        else:
                            entry = _entry(line)
                            key = entry["key"] if entry is not None else None
                        if key is not None:
                            hashes.append(hash(key))
                            offsets.append(offset)
                    offset += len(line)
        h = np.frombuffer(hashes, dtype=np.int64) if hashes else np.empty(0, dtype=np.int64)
        order = np.argsort(h, kind="stable")  # equal hashes keep file order
        self._hashes, self._offsets = h[order], (np.frombuffer(offsets, dtype=np.int64)[order] if hashes else h)
        self._distinct = int(len(np.unique(self._hashes)))
        return self._hashes

    def __len__(self) -> int:
        """Distinct keys in the file when it was indexed, plus the verdicts written since."""
        self._index()
        return self._distinct + len(self._recent)

    def _read_at(self, offset: int) -> dict[str, Any] | None:
        if self._reader is None:
            self._reader = open_binary(self.path)
        self._reader.seek(offset)
        return _entry(self._reader.readline())

    def get(self, key: str) -> dict[str, Any] | None:
        hit = self._recent.get(key)
        if hit is not None:
            return hit
        hashes = self._index()
        wanted = hash(key)
        lo, hi = np.searchsorted(hashes, wanted, "left"), np.searchsorted(hashes, wanted, "right")
        for at in range(int(hi) - 1, int(lo) - 1, -1):  # the later line wins
            entry = self._read_at(int(self._offsets[at]))
            if entry is not None and entry["key"] == key:
                return entry
        return None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        record = {"key": key, **entry}
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        # one write: lines of concurrent scorers never interleave; a kill's torn last line must not
        # swallow the first verdict this process appends
        append_once(self.path, data, on_own_line=not self._tail_checked)
        self._tail_checked = True
        self._recent[key] = record
        self._recent.move_to_end(key)
        if len(self._recent) > RECENT:
            self._recent.popitem(last=False)

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def __getstate__(self) -> dict[str, Any]:
        """A copy sent to a worker process indexes the file itself."""
        return {"path": self.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]
