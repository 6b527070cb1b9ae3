"""One way to write a file: never half of it, never outside the folder it belongs to.

- `write_text_atomic` / `write_bytes_atomic` / `writing()` write a temporary sibling, fsync it
  and rename it over the target, so a reader (or a kill) sees the old file or the new one,
  never a mix.
- `LineAppender` / `append_once` add whole lines to a file that grows (answers.jsonl, the judge
  cache); `repair_last_line` cuts or ends the line a kill left half-written.
- `staged_folder()` / `swap_in()`: the one way to replace a folder. It is filled in a staging
  sibling and swapped in in one step (an atomic exchange where the system has one), so a
  reader sees the old folder or the new one; staging folders a killed attempt left are removed.
  `make_folder_with()` creates a folder already holding its first files (a run folder with its
  manifest) that way.
- `crash_point(name)`: tests set CITEVAL_TEST_CRASH_AT=<name> to die at exactly that point of a
  write (os._exit, like a kill -9), to prove every window leaves the old or the new state.

The set of files `score` writes into a run folder, bracketed by its score.complete marker, is
`evals.store.runfolder.ScoreSet`.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, Literal

from evals.errors import StoreError, UsageError
from evals.store.reading import unended_last_line

CRASH_ENV = "CITEVAL_TEST_CRASH_AT"
CRASH_EXIT_CODE = 137  # what a shell reports for kill -9
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


# --- when the system says no ----------------------------------------------------------

_WHAT_TO_DO = {
    errno.ENOSPC: "no space (or no free inode) left on its file system: free some there (df -h; df -i) and run again",
    errno.EDQUOT: "disk quota exceeded: free some of your quota there and run again",
    errno.EFBIG: "file larger than this file system or the process's file-size limit allows (ulimit -f)",
    errno.EROFS: "read-only file system: write somewhere writable, or make it writable, and run again",
    errno.EACCES: "permission denied: make it writable for this user, or write somewhere else",
    errno.EPERM: "operation not permitted: make it writable for this user, or write somewhere else",
    errno.ENAMETOOLONG: "file name too long for its file system: choose a shorter name (--run-id, --out)",
    errno.ELOOP: "is a symbolic link: citeval neither writes nor packs through links; remove the link",
    errno.EMLINK: "too many links in its folder: free some entries there",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.ENOENT: "its folder does not exist (create it first)",
    errno.EISDIR: "is a folder, not a file",
    errno.EIO: "input/output error on its device: check the disk",
}


_NOT_REGULAR = "is not a regular file (a folder, FIFO or device): citeval writes and packs only regular files"


def os_failure(path: Path | str, exc: OSError, doing: str = "write", *, exit_code: int = 2,
               own_name: bool = False) -> StoreError:
    """An OSError of the system (disk full, read-only, no inode, a name too long …) as a StoreError:
    one line naming the path and what to free or change — an outcome, never a traceback.
    own_name: name `path` even where the error names another file (a temporary sibling)."""
    named = exc.filename if isinstance(exc.filename, (str, bytes, os.PathLike)) and exc.filename else path
    if own_name:
        named = path
    what = _WHAT_TO_DO.get(exc.errno or 0) or (exc.strerror or str(exc) or type(exc).__name__)
    return StoreError(os.fsdecode(named), f"cannot {doing}: {what}", exit_code=exit_code)


@contextlib.contextmanager
def system_errors(path: Path | str, doing: str = "write") -> Iterator[None]:
    """Around a write: an OSError becomes a StoreError naming path (see os_failure)."""
    try:
        yield
    except StoreError:
        raise
    except OSError as exc:
        raise os_failure(path, exc, doing) from None


def refuse_link(path: Path | str) -> None:
    """The check before writing or packing path: a symbolic link there, or anything that is not a
    regular file (a FIFO, a device, a folder), is a StoreError; nothing there is fine."""
    path = Path(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise os_failure(path, exc) from None
    if stat.S_ISLNK(info.st_mode):
        raise StoreError(path, "is a symbolic link: citeval neither writes nor packs through links; remove the link")
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(path, _NOT_REGULAR)


def open_regular(path: Path | str, flags: int, mode: int = 0o644) -> int:
    """A file descriptor on a regular file at path, never through a symbolic link (O_NOFOLLOW)
    and never on a FIFO or device (O_NONBLOCK while opening, then checked); a StoreError otherwise."""
    path = Path(path)
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StoreError(path, _WHAT_TO_DO[errno.ELOOP]) from None
        raise os_failure(path, exc) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StoreError(path, _NOT_REGULAR)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_lock_file(path: Path | str) -> int:
    """The lock file of a folder (evals.store.lock), opened for reading and writing, created when
    missing, never through a link."""
    return open_regular(path, os.O_RDWR | os.O_CREAT)


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


_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    """The process's umask, read without changing it where the system tells (Linux 4.7+)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _UMASK_LOCK:  # elsewhere: set and restore it at once (the only portable way to read it)
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


@contextlib.contextmanager
def writing(path: Path | str, mode: str = "w", *, point: str | None = None) -> Iterator[IO[Any]]:
    """A handle on a temporary sibling of path; on a clean exit it is fsynced and renamed over path.
    On an exception the temporary file is removed and path is untouched; an OSError of the system
    (disk full, read-only, a name too long) comes out as a StoreError naming path."""
    path = Path(path)
    parent = _parent_of(path)
    # the rename would replace a link or a device at path (`--out /dev/stdout`, `/dev/full`) with
    # a regular file: refused, like every write through a link or into a special file
    refuse_link(path)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}."[:200], suffix=".tmp", dir=parent)
    except OSError as exc:
        raise os_failure(path, exc, own_name=True) from None
    tmp = Path(tmp_name)
    try:
        # mkstemp makes the file 0600 whatever the umask; the file renamed into place gets the
        # mode any other new file would (0644 under umask 022: a published report can be read)
        os.fchmod(fd, 0o666 & ~_umask())
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
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError) and not isinstance(exc, StoreError):
            raise os_failure(path, exc, own_name=exc.filename in (tmp_name, str(tmp))) from None
        raise
    _fsync_dir(parent)


def write_bytes_atomic(path: Path | str, data: bytes, *, point: str | None = None) -> None:
    with writing(path, "wb", point=point) as handle:
        handle.write(data)


def write_text_atomic(path: Path | str, text: str, *, point: str | None = None) -> None:
    """Strict UTF-8: text holding a lone surrogate is refused before anything is written."""
    write_bytes_atomic(path, text.encode("utf-8"), point=point)


def write_lines(path: Path | str, lines: Iterable[str], *, point: str | None = None) -> int:
    count = 0
    with writing(path, "wb", point=point) as handle:
        for line in lines:
            handle.write(line.encode("utf-8"))
            count += 1
    return count


def write_json(path: Path | str, obj: Any, *, point: str | None = None) -> None:
    write_text_atomic(path, json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n", point=point)


def open_staged_text(path: Path | str) -> IO[str]:
    """A UTF-8 handle ("\\n" kept) on a new file in a staging folder, for output streamed over a
    long time and swapped in later as a whole (ScoreSet) — never on the file readers use."""
    fd = open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    return os.fdopen(fd, "w", encoding="utf-8")


def write_crash_log(folder: Path | str, text: str) -> Path:
    """citeval-error-<time>-<pid>.log in folder holding text (a traceback: what cannot be encoded
    is replaced, never refused); an OSError when the folder cannot take it, so the caller can
    say that no log was written."""
    path = Path(folder) / f"citeval-error-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "wb") as handle:  # a new file only: a link planted in /tmp is not followed
        handle.write(text.encode("utf-8", "replace"))
    return path


# --- files that grow a line at a time -------------------------------------------------


class LineAppender:
    """Appends whole lines to a file (created when missing), each `write` on disk before it
    returns (with fsync), so a kill loses at most the lines in flight. Never through a link or
    into a FIFO. A write the system refuses (disk full …) is cut back off, so the file holds
    whole lines or nothing of it, and comes out as a StoreError naming the file."""

    def __init__(self, path: Path | str, fsync: bool = True) -> None:
        self.path = Path(path)
        self._fsync = fsync
        self._fd = open_regular(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        self._synced = self._size()  # what is on disk for sure: a failed write or fsync goes back here

    def _size(self) -> int:
        return os.fstat(self._fd).st_size

    def write(self, text: str, *, sync: bool | None = None) -> None:
        """Append text (whole lines); sync=False leaves the fsync to a later `sync()` (the runner
        syncs off its event loop)."""
        _write_whole(self._fd, self.path, text.encode("utf-8"))
        if self._fsync if sync is None else sync:
            self.sync()

    def sync(self) -> None:
        try:
            os.fsync(self._fd)
        except OSError as exc:
            _cut_back(self._fd, self._synced)
            raise os_failure(self.path, exc) from None
        self._synced = self._size()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> LineAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _cut_back(fd: int, size: int) -> None:
    with contextlib.suppress(OSError):
        os.ftruncate(fd, size)


def _write_whole(fd: int, path: Path, data: bytes) -> None:
    """data appended on fd whole, or not at all: what a refused write left is cut off again."""
    size = os.fstat(fd).st_size
    try:
        crash_point(f"append:{path.name}")
        written = os.write(fd, data)  # one write: a regular file takes it whole
        while written < len(data):  # this is for the odd filesystem
            written += os.write(fd, data[written:])
    except OSError as exc:
        _cut_back(fd, size)
        raise os_failure(path, exc) from None


def append_once(path: Path | str, data: bytes, *, on_own_line: bool = False) -> None:
    """Append data (whole lines) to path in one write, fsynced: lines of concurrent writers never
    interleave. on_own_line: when the file's last line lacks its newline (a kill's torn line), a
    newline goes first, so data does not continue that line. Never through a link; whole or not
    at all (a StoreError when the system refuses it)."""
    path = Path(path)
    with system_errors(path):
        path.parent.mkdir(parents=True, exist_ok=True)
    fd = open_regular(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    try:
        if on_own_line:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data
        before = os.fstat(fd).st_size
        _write_whole(fd, path, data)
        try:
            os.fsync(fd)
        except OSError as exc:
            _cut_back(fd, before)
            raise os_failure(path, exc) from None
    finally:
        os.close(fd)


def repair_last_line(path: Path | str, torn: Callable[[bytes], bool]) -> None:
    """A last line without its newline (a kill's) is cut off when `torn(line)`, else given its
    newline, so the next appended line starts a line of its own. A file that ends with a newline,
    or does not exist, is left as it is; a link is refused (StoreError), never repaired through."""
    path = Path(path)
    if not os.path.lexists(path):
        return
    fd = open_regular(path, os.O_RDWR)
    try:
        start, tail = unended_last_line(path)
        if not tail:
            return
        with system_errors(path):
            if torn(tail):
                os.ftruncate(fd, start)
            else:
                os.pwrite(fd, b"\n", os.fstat(fd).st_size)
            os.fsync(fd)
    finally:
        os.close(fd)


def end_with_newline(path: Path | str) -> None:
    """A last line without its newline gets one (it would swallow the first appended record)."""
    repair_last_line(path, lambda _line: False)


# --- folders --------------------------------------------------------------------------


Existing = Literal["refuse", "replace", "merge"]


def staging_folder(parent: Path, name: str) -> Path:
    """A fresh, empty sibling folder for building `name` in; its prefix marks it as a leftover."""
    stage = parent / f"{STAGING_PREFIX}{name}-{uuid.uuid4().hex[:8]}"
    with system_errors(stage, "create a folder"):
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


_RENAME_EXCHANGE = 2  # renameat2's flag (Linux 3.15+)


def _exchange(stage: Path, target: Path) -> bool:
    """Swap two folders in one step where the system can (Linux renameat2); False where not."""
    if not sys.platform.startswith("linux"):
        return False
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd = -100
    return bool(renameat2(at_fdcwd, os.fsencode(stage), at_fdcwd, os.fsencode(target), _RENAME_EXCHANGE) == 0)


def swap_in(stage: Path | str, target: Path | str, *, existing: Existing = "replace") -> None:
    """Put the filled folder `stage` at `target` (on the same file system; a sibling is best).
    When target does not exist that is one rename. When it does, `existing` says what happens:

    - "refuse": a UsageError (checked once more just before the rename: renaming onto an
      empty folder succeeds on POSIX);
    - "replace": the two folders are exchanged in one step where the system can (stage then
      holds the old folder, for the caller to remove), else the old folder is renamed aside,
      the new one renamed in and the old one removed;
    - "merge": each file of stage is moved over the same-named file of target, and the other
      files of target are kept.
    """
    stage, target = Path(stage), Path(target)
    if existing == "refuse" or not target.exists():
        if target.exists():
            raise UsageError(f"{target} exists already")
        with system_errors(target, "create it"):
            os.rename(stage, target)
    elif existing == "merge":
        with system_errors(target):
            for source in sorted(p for p in stage.rglob("*") if p.is_file()):
                moved = target / source.relative_to(stage)
                moved.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(source), moved)
    elif not _exchange(stage, target):
        backup = target.with_name(target.name + ".old")
        shutil.rmtree(backup, ignore_errors=True)
        with system_errors(target):
            os.replace(target, backup)
            os.replace(stage, target)
        shutil.rmtree(backup, ignore_errors=True)
    _fsync_dir(target.parent)


@contextlib.contextmanager
def staged_folder(
    target: Path | str,
    *,
    existing: Existing = "replace",
    point: str | None = None,
    on_failure: Callable[[], None] | None = None,
) -> Iterator[Path]:
    """A fresh staging sibling of target to fill in the `with` block; on a clean exit it is swapped
    in (`swap_in`, with `existing`), after the crash point `point`; on an exception target is left
    untouched and `on_failure` runs (to take back what was moved into the stage). The staging
    folder, and any a killed earlier attempt left, is removed either way."""
    target = Path(target)
    parent = target.parent
    with system_errors(parent, "create a folder"):
        parent.mkdir(parents=True, exist_ok=True)
    remove_staging_leftovers(parent, target.name)
    stage = staging_folder(parent, target.name)
    try:
        yield stage
        if point:
            crash_point(point)
        swap_in(stage, target, existing=existing)
    except BaseException as exc:
        if on_failure is not None:
            on_failure()
        if isinstance(exc, OSError) and not isinstance(exc, StoreError):
            raise os_failure(target, exc) from None
        raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)


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
    if folder.exists():
        raise UsageError(f"{folder} exists already")
    moved: list[tuple[Path, Path]] = []

    def move_back() -> None:
        for inside, source in moved:
            if inside.exists():
                os.replace(inside, source)

    with staged_folder(folder, existing="refuse", point=point, on_failure=move_back) as stage:
        for name, data in files.items():
            write_bytes_atomic(stage / name, data)
        for name, source in (move_in or {}).items():
            os.replace(source, stage / name)
            moved.append((stage / name, Path(source)))
    return folder
