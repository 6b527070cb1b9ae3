"""One writer per folder: an advisory lock (`fcntl.flock`) on a lock file inside the folder.

Every command that writes a run folder (`run`, `run --resume`, `score`, `label push`/`pull`,
`agree` writing agreement.json or adjudicated labels, `probe`, `eval`) holds the run folder's
lock while it writes. The lock file holds who has it — pid, command, since when — so a second
writer can say whom it waits for. It refuses at once (FolderBusy, exit 2, naming the holder), or
waits up to `waiting_for_lock(seconds)` (the commands' `--wait SECONDS`).

The kernel releases a flock when its holder dies (a kill -9 too), so a lock file naming a pid
that no longer runs is stale: it is taken over, with a note (logger "citeval.notes"). A holder's
forked children share its lock: while they run (score's workers), the lock stays held.

Inside one process the lock is re-entrant (`eval` runs, then scores, the same folder). Readers
take no lock: they read one consistent generation through the score marker (ScoreSet).
"""

from __future__ import annotations

import contextlib
import contextvars
import fcntl
import json
import logging
import math
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evals.errors import DataError, FolderBusy, UsageError
from evals.store.atomic import open_lock_file, os_failure
from evals.text.escape import one_line

__all__ = ["LOCK_FILE", "MAX_WAIT_S", "FolderBusy", "check_wait", "folder_lock", "waiting_for_lock"]

LOCK_FILE = ".citeval.lock"
MAX_WAIT_S = 7 * 24 * 3600.0  # --wait longer than a week is a typo
_POLL_S = 0.1
NOTES = logging.getLogger("citeval.notes")

_WAIT: contextvars.ContextVar[float] = contextvars.ContextVar("citeval_lock_wait", default=0.0)
_GUARD = threading.Lock()


@dataclass
class _Held:
    fd: int
    pid: int
    depth: int


_HELD: dict[str, _Held] = {}


def check_wait(seconds: float) -> float:
    """A --wait value: finite, 0 or more, at most a week; a UsageError otherwise."""
    if not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or not 0 <= seconds <= MAX_WAIT_S:
        raise UsageError(f"--wait must be a number of seconds from 0 to {MAX_WAIT_S:g} (got {seconds!r})")
    return float(seconds)


@contextlib.contextmanager
def waiting_for_lock(seconds: float) -> Iterator[None]:
    """Inside the block, a writer whose folder is locked waits up to `seconds` for it (0: refuse at once)."""
    token = _WAIT.set(check_wait(seconds))
    try:
        yield
    finally:
        _WAIT.reset(token)


def _read_holder(fd: int) -> dict[str, Any] | None:
    try:
        data = os.pread(fd, 4096, 0)
        doc = json.loads(data.decode("utf-8")) if data.strip() else None
    except (OSError, ValueError, RecursionError):  # a hand-made or damaged lock file names no holder
        return None
    if not isinstance(doc, dict) or type(doc.get("pid")) is not int:
        return None
    # a pid the system could not have (0 and -1 would signal a group or every process; a huge one
    # overflows os.kill) names no holder either
    return doc if 1 <= doc["pid"] <= PID_MAX else None


PID_MAX = 1 << 22  # Linux's largest pid_max


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process
    return True


def _shown(value: Any) -> str:
    """A lock file's text as said on a terminal: one line, control characters escaped, short."""
    return one_line(str(value))[:200] if value else ""


def _describe(doc: dict[str, Any] | None) -> str:
    if doc is None:
        return "another citeval process (it has not said which yet)"
    who = f"pid {doc['pid']} (`{_shown(doc.get('command')) or 'citeval'}`, since {_shown(doc.get('since')) or '?'})"
    if not _alive(doc["pid"]):
        who += ", which has ended: processes it started (score's workers) still hold the lock"
    return who


def _busy(folder: Path, fd: int, waited: float) -> FolderBusy:
    who = _describe(_read_holder(fd))
    after = f" after waiting {waited:g} s" if waited else ""
    return FolderBusy(
        f"{folder}: another citeval is writing this folder{after}: {who}; wait for it to end, or pass --wait SECONDS"
    )


def _take(folder: Path, fd: int, wait: float) -> None:
    """flock the fd, polling up to `wait` seconds; FolderBusy when it stays held."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _busy(folder, fd, wait) from None
            time.sleep(min(_POLL_S, left))
        except OSError as exc:  # a file system without locks (some network mounts)
            raise os_failure(folder / LOCK_FILE, exc, "lock") from None


def _claim(folder: Path, fd: int, command: str) -> None:
    """Write who holds the lock now, after a note when a dead holder's record was still there."""
    stale = _read_holder(fd)
    if stale is not None and stale["pid"] != os.getpid() and not _alive(stale["pid"]):
        NOTES.warning(
            "%s: took over the lock of pid %s (`%s`, since %s), which ended without releasing it",
            folder, stale["pid"], _shown(stale.get("command")) or "citeval", _shown(stale.get("since")) or "?",
        )
    since = datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    record = json.dumps({"pid": os.getpid(), "command": command, "since": since}) + "\n"
    with contextlib.suppress(OSError):  # a full disk: the flock holds all the same, only unnamed
        os.ftruncate(fd, 0)
        os.pwrite(fd, record.encode("utf-8"), 0)


@contextlib.contextmanager
def folder_lock(folder: Path | str, command: str) -> Iterator[None]:
    """Hold the folder's write lock for the block (re-entrant within this process). FolderBusy
    (exit 2) names the holder when another process keeps it past the wait; a StoreError when the
    lock file cannot be made (a read-only folder, a link in its place)."""
    folder = Path(folder)
    key = os.path.realpath(folder)
    with _GUARD:
        held = _HELD.get(key)
        if held is not None and held.pid == os.getpid():
            held.depth += 1
        else:
            held = None
    if held is not None:
        try:
            yield
        finally:
            held.depth -= 1
        return
    if not folder.is_dir():
        raise DataError(folder, None, "folder not found")
    fd = open_lock_file(folder / LOCK_FILE)
    try:
        _take(folder, fd, _WAIT.get())
        _claim(folder, fd, command)
    except BaseException:
        os.close(fd)
        raise
    mine = _Held(fd, os.getpid(), 1)
    with _GUARD:
        _HELD[key] = mine
    try:
        yield
    finally:
        with _GUARD:
            mine.depth -= 1
            if mine.depth <= 0:
                _HELD.pop(key, None)
        if mine.depth <= 0:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)  # a clean release leaves no holder behind
            os.close(fd)  # closing the last descriptor releases the flock
