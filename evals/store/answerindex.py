"""Where each question's answer stands in answers.jsonl, without holding the answers.

A run of 365,000 answers is 1–2 GB of JSON; parsed into records it is several times that. The
scoring stage streams instead: one pass over the file notes, per line, a hash of its
question_id, its byte offset, length and line number (24 bytes a line, in numpy arrays); a
worker later reads and parses just the lines of its shard (`read_lines`, then
`evals.store.answers.answer_from_line`). The lines that count are the ones every reader of
answers.jsonl counts (`evals.store.answers.iter_answer_lines`: blank lines skipped, a torn last
line left out), and a resumed run's later line for a question wins.

The question_id is read from the line's start when the line is in the runner's own shape
(`{"question_id": "…", …`), else from the parsed line. Hash collisions between different ids
are resolved exactly by re-reading the few colliding lines.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from evals.store.answers import iter_answer_lines, question_id_of_line
from evals.store.reading import open_binary

__all__ = ["AnswerIndex", "read_lines"]


class AnswerIndex:
    """Byte offsets of the answer lines of answers.jsonl that count (the last per question)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        hashes: array[int] = array("q")
        offsets: array[int] = array("q")
        lengths: array[int] = array("i")  # a line is at most the reading layer's limit
        linenos: array[int] = array("i")
        self.end = 0  # bytes up to the end of the last answer line read: what a score marker hashes
        for lineno, offset, line in iter_answer_lines(self.path):  # blank lines and a torn last one left out
            self.end = offset + len(line)
            hashes.append(self._key(question_id_of_line(self.path, lineno, line)))
            offsets.append(offset)
            lengths.append(len(line))
            linenos.append(lineno)
        self.lines = len(hashes)  # answer lines read (a resumed run may have several per question)
        h = _int64(hashes)
        order = np.argsort(h, kind="stable")  # equal hashes keep file order: the last one wins
        h = h[order]
        last = np.ones(len(h), dtype=bool)
        last[:-1] = h[1:] != h[:-1]
        rows = order[last]
        self._hash = h[last]
        columns = (_int64(offsets), _int32(lengths), _int32(linenos))
        self._location = tuple(column[rows] for column in columns)  # offset, length, line number
        superseded = order[~last]  # earlier lines of a question answered again
        self._superseded = np.stack([column[superseded].astype(np.int64) for column in columns], axis=1)
        self._used = np.zeros(len(self._hash), dtype=bool)
        # ids whose hash another id shares: looked up by id, apart from the sorted hashes
        self._collided: dict[str, tuple[int, int, int]] = {}
        self._collided_hashes: set[int] = set()
        self._collided_used: set[str] = set()
        if not last.all():
            self._resolve_repeats(h, order, offsets, lengths, linenos)
        self.count = len(self._hash) - len(self._collided_hashes) + len(self._collided)

    def _resolve_repeats(
        self, h: np.ndarray, order: np.ndarray, offsets: Sequence[int], lengths: Sequence[int], linenos: Sequence[int]
    ) -> None:
        """A hash seen on several lines is mostly one question answered again (a resumed run);
        when the lines hold different ids (a collision), keep the last line of each id apart."""
        starts = np.flatnonzero(np.r_[True, h[1:] != h[:-1]])
        ends = np.r_[starts[1:], len(h)]
        with open_binary(self.path) as handle:
            for start, end in zip(starts, ends, strict=True):
                if end - start < 2:
                    continue
                by_id: dict[str, tuple[int, int, int]] = {}
                for k in order[start:end]:
                    handle.seek(offsets[k])
                    line = handle.read(lengths[k])
                    by_id[question_id_of_line(self.path, linenos[k], line)] = (offsets[k], lengths[k], linenos[k])
                if len(by_id) > 1:
                    self._collided.update(by_id)
                    self._collided_hashes.add(int(h[start]))

    @staticmethod
    def _key(question_id: str) -> int:
        """The 64-bit hash the index sorts by (Python's own: the index lives in one process)."""
        return hash(question_id)

    def __len__(self) -> int:
        """Questions with an answer."""
        return self.count

    def locate(self, question_ids: Sequence[str]) -> list[tuple[int, int, int] | None]:
        """(byte offset, length, line number) of each question's answer line, None when it has
        none; a batch of ids at once."""
        if not question_ids:
            return []
        wanted = np.fromiter((self._key(q) for q in question_ids), dtype=np.int64, count=len(question_ids))
        at = np.minimum(np.searchsorted(self._hash, wanted), max(len(self._hash) - 1, 0))
        found = self._hash[at] == wanted if len(self._hash) else np.zeros(len(wanted), dtype=bool)
        out: list[tuple[int, int, int] | None] = []
        for qid, key, hit, row in zip(question_ids, wanted.tolist(), found.tolist(), at.tolist(), strict=True):
            if key in self._collided_hashes:
                out.append(self._collided.get(qid))
                if qid in self._collided:
                    self._collided_used.add(qid)
            elif hit:
                out.append((int(self._location[0][row]), int(self._location[1][row]), int(self._location[2][row])))
                self._used[row] = True
            else:
                out.append(None)
        return out


    def unused(self) -> list[tuple[int, int, int]]:
        """Locations of the answer lines no `locate` asked for — answers to questions the dataset
        does not have, and lines a later answer to the same question replaced — in file order;
        the scoring stage still parses them, so a broken line is an error wherever it stands."""
        unused = np.stack([column[~self._used].astype(np.int64) for column in self._location], axis=1)
        out = [tuple(r) for part in (unused, self._superseded) for r in part.tolist()]
        kept = {self._collided[q] for q in self._collided_used}
        if self._collided_hashes:  # lines of collided hashes stand in _collided, not in _location
            collided = set(self._collided.values())
            out = [r for r in out if r not in collided] + [r for r in collided if r not in kept]
        return sorted(out, key=lambda r: r[0])  # type: ignore[return-value]


def _int64(values: array[int]) -> np.ndarray:
    return np.frombuffer(values, dtype=np.int64) if len(values) else np.empty(0, dtype=np.int64)


def _int32(values: array[int]) -> np.ndarray:
    return np.frombuffer(values, dtype=np.int32) if len(values) else np.empty(0, dtype=np.int32)


def read_lines(path: Path | str, locations: Sequence[tuple[int, int, int]]) -> Iterator[tuple[int, bytes]]:
    """(line number, line) at each (offset, length, line number), in the order given."""
    with open_binary(path) as handle:
        for offset, length, lineno in locations:
            handle.seek(offset)
            yield lineno, handle.read(length)
