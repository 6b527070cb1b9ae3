"""One way to write a file: never half of it, never outside the folder it belongs to.

- `write_text` / `write_bytes` / `writing()` write a temporary sibling, fsync it and rename it
  over the target, so a reader (or a kill) sees the old file or the new one, never a mix.
- `make_folder_with()` creates a folder already holding its first files (a run folder with its
  manifest): the files go into a staging sibling that is renamed into place in one step.
- `ScoreSet` writes the files `citeval score` produces as one set. Each file is swapped in
  atomically; the set as a whole is bracketed by `score.complete` (see below), so a kill
  between two files leaves a set that `gate`, `report` and `agree` refuse instead of mixing
  new findings with old scores.
- `crash_point(name)`: tests set CITEVAL_TEST_CRASH_AT=<name> to die at exactly that point of a
  write (os._exit, like a kill -9), to prove every window leaves the old or the new state.

Why a marker and not a staging folder for `score`: the run folder also holds the answers and
the labels that other stages append to, so it cannot be swapped as a whole, and renaming four
files one by one is four steps. `score.complete` is first rewritten as {"state": "writing"},
then the files are swapped in, then it is rewritten as {"state": "complete", answers_sha256}.
A reader that finds "writing" knows a score was interrupted; one that finds "complete" with a
different answers hash knows the answers changed after scoring (a `--resume`); a run folder
without the marker was scored before it existed (or assembled by hand) and is read as it is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from evals.errors import DataError, UsageError
from evals.store.reading import decode_text, parse_json

CRASH_ENV = "CITEVAL_TEST_CRASH_AT"
CRASH_EXIT_CODE = 137  # what a shell reports for kill -9
SCORE_MARKER = "score.complete"
STAGING_PREFIX = ".citeval-staging-"


CRASH_MODE_ENV = "CITEVAL_TEST_CRASH_MODE"
_passes: dict[str, int] = {}


class SimulatedCrash(BaseException):
    """CITEVAL_TEST_CRASH_MODE=raise: the crash as an exception no handler of ours catches, so a
    test can crash citeval in-process (what is on disk then is what a kill leaves, except the
    temporary file of the write in flight, which is removed)."""


def reset_crash_points() -> None:
    _passes.clear()


def crash_point(name: str) -> None:
    """Die here, at once and without cleanup, when CITEVAL_TEST_CRASH_AT names this point
    ("NAME" or "NAME@N" for its N-th pass in this process). Every atomic write passes the point
    "write:<file name>" just before its rename."""
    wanted = os.environ.get(CRASH_ENV)
    if not wanted:
        return
    target, _, nth = wanted.partition("@")
    if target != name:
        return
    _passes[name] = _passes.get(name, 0) + 1
    if _passes[name] == (int(nth) if nth.isdigit() else 1):
        if os.environ.get(CRASH_MODE_ENV) == "raise":
            raise SimulatedCrash(name)
        os._exit(CRASH_EXIT_CODE)


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_file_name(name: str, fallback: str = "run") -> str:
    """A name from data (a run id) made safe as one file name: no separators, no leading dot."""
    safe = _UNSAFE_NAME.sub("-", name).strip("-.")[:120]
    return safe or fallback


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not every platform opens folders; the rename itself is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _parent_of(path: Path) -> Path:
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"folder {parent} does not exist (create it first)")
    return parent


@contextlib.contextmanager
def writing(path: Path | str, mode: str = "w", *, point: str | None = None) -> Iterator[IO[Any]]:
    """A handle on a temporary sibling of path; on a clean exit it is fsynced and renamed over path.
    On an exception the temporary file is removed and path is untouched."""
    path = Path(path)
    parent = _parent_of(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    tmp = Path(tmp_name)
    try:
        binary = "b" in mode
        text_mode: dict[str, Any] = {} if binary else {"encoding": "utf-8", "newline": ""}
        with os.fdopen(fd, "wb" if binary else "w", **text_mode) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        crash_point(f"write:{path.name}")
        if point:
            crash_point(point)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(parent)


def write_bytes(path: Path | str, data: bytes, *, point: str | None = None) -> None:
    with writing(path, "wb", point=point) as handle:
        handle.write(data)


def write_text(path: Path | str, text: str, *, point: str | None = None) -> None:
    """Strict UTF-8: text holding a lone surrogate is refused before anything is written."""
    write_bytes(path, text.encode("utf-8"), point=point)


def write_lines(path: Path | str, lines: Iterable[str], *, point: str | None = None) -> int:
    count = 0
    with writing(path, "wb", point=point) as handle:
        for line in lines:
            handle.write(line.encode("utf-8"))
            count += 1
    return count


def write_json(path: Path | str, obj: Any, *, point: str | None = None) -> None:
    write_text(path, json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n", point=point)


# --- folders --------------------------------------------------------------------------


def staging_folder(parent: Path, name: str) -> Path:
    """A fresh, empty sibling folder for building `name` in; its prefix marks it as a leftover."""
    stage = parent / f"{STAGING_PREFIX}{name}-{uuid.uuid4().hex[:8]}"
    stage.mkdir()
    return stage


def remove_staging_leftovers(parent: Path, name: str) -> list[Path]:
    """Staging folders for `name` that a killed earlier attempt left in parent; removed."""
    removed = []
    if parent.is_dir():
        for leftover in parent.glob(f"{STAGING_PREFIX}{name}-*"):
            shutil.rmtree(leftover, ignore_errors=True)
            removed.append(leftover)
    return removed


def make_folder_with(
    folder: Path | str,
    files: dict[str, bytes],
    *,
    point: str | None = None,
    move_in: Mapping[str, Path] | None = None,
) -> Path:
    """Create `folder` holding `files` in one rename; a UsageError when it exists already.
    `move_in` names folders (name inside `folder` → where it is now) that move into it in the
    same rename, and move back when the folder cannot be made."""
    folder = Path(folder)
    parent = folder.parent
    parent.mkdir(parents=True, exist_ok=True)
    if folder.exists():
        raise UsageError(f"{folder} exists already")
    stage = staging_folder(parent, folder.name)
    moved: list[tuple[Path, Path]] = []
    try:
        for name, data in files.items():
            write_bytes(stage / name, data)
        for name, source in (move_in or {}).items():
            os.replace(source, stage / name)
            moved.append((stage / name, Path(source)))
        if point:
            crash_point(point)
        try:
            # os.rename onto an existing empty folder succeeds on POSIX; check once more just before
            if folder.exists():
                raise UsageError(f"{folder} exists already")
            os.rename(stage, folder)
        except OSError as exc:
            raise UsageError(f"cannot create {folder}: {exc.strerror or exc}") from None
    except BaseException:
        for inside, source in moved:
            if inside.exists():
                os.replace(inside, source)
        shutil.rmtree(stage, ignore_errors=True)
        raise
    _fsync_dir(parent)
    return folder


# --- the set of files `score` writes ---------------------------------------------------


def answers_sha256(path: Path) -> str | None:
    """The hash of the answers a reader sees: a torn last line (one that does not parse) is not
    part of them, so a kill during a later `run --resume` does not look like changed answers."""
    if not path.exists():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:  # streamed: a year of answers is more than a gigabyte
        end = handle.seek(0, 2)
        if end:
            handle.seek(end - 1)
        if end and handle.read(1) != b"\n":
            tail, start = b"", end  # the last line, read back to the newline before it
            while start > 0 and b"\n" not in tail:
                start = max(0, start - (1 << 16))
                handle.seek(start)
                tail = handle.read(end - start)
            cut = tail.rfind(b"\n") + 1
            try:
                parse_json(decode_text(tail[cut:], path, 2), path)
            except DataError:
                end = start + cut
        handle.seek(0)
        left = end
        while left > 0:
            block = handle.read(min(left, 1 << 20))
            digest.update(block)
            left -= len(block)
    return digest.hexdigest()


class ScoreSet:
    """The files one `score` writes, as one set: `begin()` before the first of them is replaced
    (the marker then says "writing"), `finish()` after the last (it then says "complete", with
    the answers' hash). A failure or a kill in between leaves "writing", which readers refuse.
    Also a context manager: `with ScoreSet(run_dir, answers): write …`."""

    def __init__(self, run_dir: Path | str, answers: Path | str) -> None:
        self.run_dir = Path(run_dir)
        self.answers = Path(answers)
        self.begun = False

    def begin(self) -> None:
        if not self.begun:
            crash_point("score:marker-writing")
            write_json(self.run_dir / SCORE_MARKER, {"state": "writing"})
            self.begun = True

    def finish(self) -> None:
        self.begin()
        crash_point("score:before-complete")
        write_json(self.run_dir / SCORE_MARKER, {"state": "complete", "answers_sha256": answers_sha256(self.answers)})
        crash_point("score:marker-complete")

    def __enter__(self) -> ScoreSet:
        self.begin()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.finish()


def score_set_problem(run_dir: Path | str, answers_name: str = "answers.jsonl", *, answers: bool = True) -> str | None:
    """Why the scored files of run_dir cannot be trusted as one set, or None when they can
    (answers=False: only whether a score was interrupted, not whether the answers changed since)."""
    marker = Path(run_dir) / SCORE_MARKER
    if not marker.exists():
        return None
    try:
        doc = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "its score.complete marker is unreadable; score the run again"
    state = doc.get("state") if isinstance(doc, dict) else None
    if state == "writing":
        return "scoring was interrupted, so its scored files may be a mix of two scorings; score the run again"
    if state != "complete":
        return f"its score.complete marker has an unknown state {state!r}; score the run again"
    if answers and doc.get("answers_sha256") != answers_sha256(Path(run_dir) / answers_name):
        return "its answers changed after it was scored (a resumed run?); score the run again"
    return None


def require_complete_score(run_dir: Path | str, *, answers: bool = True) -> None:
    """A DataError naming the marker when the run's scored files are not one complete set."""
    problem = score_set_problem(run_dir, answers=answers)
    if problem:
        raise DataError(Path(run_dir) / SCORE_MARKER, None, problem)
