"""A portable run bundle (`citeval bundle RUN --out run.tar.gz`) and reading one back.

CI keeps main's last scored run as an artifact and gates a pull request against it
(`citeval gate RUN --baseline run.tar.gz`). The bundle holds the run's artifacts (manifest,
answers, findings, judgments, per-question rows, scores, agreement when present) and an
index with each file's sha256 — nothing else from the run folder, and no secret: URL
credentials, secret-looking query parameters and the values of secret-looking environment
variables are replaced by the one marker of evals.store.secrets in every file.

Reading a bundle never calls `extractall`: each member must be a regular file named as one of
the bundle's files (no path, no link, no device), within a size limit, and match the index.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import lzma
import os
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, cast

from evals._version import __version__
from evals.errors import DataError
from evals.store.atomic import refuse_link, system_errors, write_bytes_atomic, writing
from evals.store.reading import decode_text, open_binary, parse_json, read_file_bytes
from evals.store.runfolder import (
    AGREEMENT,
    ANSWERS,
    FINDINGS,
    JUDGMENTS,
    MANIFEST,
    PER_QUESTION,
    SCORE_MARKER,
    SCORES,
    generation,
    recorded_run_id,
    require_complete_score,
    require_same_generation,
)
from evals.store.secrets import environment_secrets, scrub_counted

BUNDLE_FORMAT = 1
INDEX = "citeval-bundle.json"
RUN_FILES = (MANIFEST, ANSWERS, FINDINGS, JUDGMENTS, PER_QUESTION, SCORES, AGREEMENT, SCORE_MARKER)
REQUIRED = (MANIFEST, PER_QUESTION, SCORES)
# Read-back bounds, counted on the decompressed stream as it is read (a member's header may lie,
# and tarfile itself reads pax headers whole): a 200-question run is a few MB, a 100,000-answer
# run some hundreds. CITEVAL_BUNDLE_MAX_BYTES raises the total for bigger runs.
MAX_BUNDLE_BYTES = 1 << 30  # all members together, uncompressed
MAX_FILE_BYTES = 1 << 30  # one member
MAX_RATIO = 200  # uncompressed / compressed: JSON lines compress 5–30×, a bomb 1,000× and more
RATIO_FLOOR = 16 << 20  # below this much uncompressed, any ratio is fine (a tiny bundle of zeros)
BUNDLE_MAX_ENV = "CITEVAL_BUNDLE_MAX_BYTES"


@dataclass
class BundleResult:
    path: Path
    run_id: str | None
    files: list[str] = field(default_factory=list)
    redactions: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "run_id": self.run_id, "files": list(self.files), "redactions": self.redactions}

    def to_text(self) -> str:
        redacted = f"; {self.redactions} secret(s) redacted" if self.redactions else ""
        return f"{self.path}: run {self.run_id}, {len(self.files)} file(s) ({', '.join(self.files)}){redacted}\n"


def _bundled_marker(marker: bytes, answers: bytes | None, path: Path) -> bytes:
    """The score marker as the bundle carries it: complete, its hash over the answers packed."""
    doc = parse_json(decode_text(marker, path), path)
    if not isinstance(doc, dict):
        raise DataError(path, None, "unreadable marker; score the run again")
    doc.pop("answers_bytes", None)
    doc["answers_sha256"] = hashlib.sha256(answers).hexdigest() if answers is not None else None
    if answers is not None:
        doc["answers_bytes"] = len(answers)
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _scored_answers(data: bytes, marker: bytes | None, path: Path) -> bytes:
    """The answers a scoring read: the first answers_bytes bytes its marker records, when they are
    still what it hashed (answers a later `--resume` added are not packed); else all of them."""
    doc = parse_json(decode_text(marker, path), path) if marker is not None else None
    scored = doc.get("answers_bytes") if isinstance(doc, dict) else None
    if not isinstance(scored, int) or isinstance(scored, bool) or not 0 <= scored <= len(data):
        return data
    same = hashlib.sha256(data[:scored]).hexdigest() == doc.get("answers_sha256")  # type: ignore[union-attr]
    return data[:scored] if same else data


def _read_run_files(run_dir: Path, marker: bytes | None, result: BundleResult) -> dict[str, bytes]:
    """Each run file there is, scrubbed of secrets; links and special files refused (nothing is
    packed through a link: a link to ~/.aws/credentials must not end up in an artifact)."""
    secrets = environment_secrets()
    payload: dict[str, bytes] = {}
    for name in RUN_FILES:
        path = run_dir / name
        refuse_link(path)
        if name == SCORE_MARKER or not path.is_file():
            continue
        data = read_file_bytes(path)
        if name == ANSWERS:
            data = _scored_answers(data, marker, run_dir / SCORE_MARKER)
        text, n = scrub_counted(decode_text(data, path), secrets, urls=True)  # strict UTF-8 naming the line
        payload[name] = text.encode("utf-8")
        result.redactions += n
        result.files.append(name)
    if marker is not None:
        payload[SCORE_MARKER] = _bundled_marker(marker, payload.get(ANSWERS), run_dir / SCORE_MARKER)
        result.files.append(SCORE_MARKER)
    return payload


def write_bundle(run_dir: Path | str, out: Path | str) -> BundleResult:
    """Pack a scored run folder into a .tar.gz bundle (written whole or not at all). The files
    packed are one scoring's (the marker read before and after them is the same), with the
    marker, so `gate --baseline` can check the set."""
    run_dir, out = Path(run_dir), Path(out)
    if not run_dir.is_dir():
        raise DataError(run_dir, None, "run folder not found")
    for name in REQUIRED:
        if not (run_dir / name).is_file():
            hint = " (score the run first: citeval score RUN)" if name != MANIFEST else ""
            raise DataError(run_dir / name, None, f"file not found{hint}")
    before = generation(run_dir)
    require_complete_score(run_dir, answers=False)  # never a bundle of a score killed halfway (ScoreSet)
    result = BundleResult(path=out, run_id=recorded_run_id(run_dir))
    payload = _read_run_files(run_dir, before, result)
    require_same_generation(run_dir, before)  # not the files of two scorings
    index = {
        "format": BUNDLE_FORMAT,
        "run_id": result.run_id,
        "created_at": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "citeval_version": __version__,
        "files": {name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
                  for name, data in payload.items()},
    }
    payload[INDEX] = json.dumps(index, ensure_ascii=False, indent=2).encode("utf-8")
    with system_errors(out):
        out.parent.mkdir(parents=True, exist_ok=True)
        with writing(out, "wb") as handle, tarfile.open(fileobj=handle, mode="w:gz") as tar:
            for name, data in payload.items():
                info = tarfile.TarInfo(name)
                info.size, info.mode, info.mtime = len(data), 0o644, int(datetime.now(timezone.utc).timestamp())
                tar.addfile(info, io.BytesIO(data))
    return result


def _member_name(member: tarfile.TarInfo) -> str:
    """A member's bundle name: `tar -C RUN .` writes "./manifest.json" for "manifest.json"."""
    name = member.name
    while name.startswith("./"):
        name = name[2:]
    return name


def _max_bundle_bytes() -> int:
    value = os.environ.get(BUNDLE_MAX_ENV, "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else MAX_BUNDLE_BYTES


class _Inflated(Exception):
    """The decompressed stream passed a bound; the message says which."""


class _BoundedStream(io.RawIOBase):
    """The decompressed tar stream, refused (_Inflated) once it passes the total bound or
    inflates more than MAX_RATIO times the compressed bytes read so far."""

    def __init__(self, inner: IO[bytes], compressed: IO[bytes], limit: int) -> None:
        self._inner, self._compressed, self._limit, self.read_bytes = inner, compressed, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._inner.read(len(buffer))
        self.read_bytes += len(data)
        if self.read_bytes > self._limit:
            raise _Inflated(f"more than {self._limit} bytes uncompressed (set {BUNDLE_MAX_ENV} to allow more)")
        packed = max(1, self._compressed.tell())
        if self.read_bytes > RATIO_FLOOR and self.read_bytes > MAX_RATIO * packed:
            raise _Inflated(f"{self.read_bytes} bytes from {packed} compressed: inflates over {MAX_RATIO}× "
                            "(a decompression bomb, not a run)")
        buffer[: len(data)] = data
        return len(data)


def _decompressed(archive: IO[bytes]) -> IO[bytes]:
    """The tar stream of a .tar.gz (or .tar.bz2, .tar.xz, plain .tar), by its first bytes."""
    magic = archive.read(6)
    archive.seek(0)
    if magic.startswith(b"\x1f\x8b"):
        return cast(IO[bytes], gzip.GzipFile(fileobj=archive, mode="rb"))
    if magic.startswith(b"BZh"):
        return cast(IO[bytes], bz2.BZ2File(archive))
    if magic.startswith(b"\xfd7zXZ"):
        return cast(IO[bytes], lzma.LZMAFile(archive))
    return archive


def _safe_member(path: Path, member: tarfile.TarInfo, limit: int) -> None:
    name = _member_name(member)
    if name not in (*RUN_FILES, INDEX):
        raise DataError(path, None, f"unexpected member {name!r} in the bundle (only run files, no paths)")
    if not member.isfile() or member.issparse():
        raise DataError(path, None, f"member {name!r} is not a regular file (links and devices are refused)")
    if member.size > min(MAX_FILE_BYTES, limit):
        raise DataError(path, None, f"member {name!r} is larger than {min(MAX_FILE_BYTES, limit)} bytes "
                                    f"(set {BUNDLE_MAX_ENV} to allow more)")


def _check_index(path: Path, files: dict[str, bytes]) -> None:
    if INDEX not in files:
        raise DataError(path, None, f"not a citeval bundle ({INDEX} missing)")
    try:  # the reading limits (depth, digits, duplicate keys) hold for the index too
        index = parse_json(decode_text(files[INDEX], f"{path}:{INDEX}"), f"{path}:{INDEX}")
        listed = index["files"]
    except (DataError, KeyError, TypeError):
        raise DataError(path, None, f"{INDEX} is not a bundle index") from None
    if not isinstance(index.get("format"), int) or index["format"] > BUNDLE_FORMAT:
        raise DataError(path, None, f"bundle format {index.get('format')!r} is not one this citeval reads; upgrade")
    for name, data in files.items():
        if name == INDEX:
            continue
        entry = listed.get(name) if isinstance(listed, dict) else None
        if not isinstance(entry, dict) or entry.get("sha256") != hashlib.sha256(data).hexdigest():
            raise DataError(path, None, f"member {name!r} does not match the bundle index (damaged or altered)")
    missing = [name for name in REQUIRED if name not in files]
    if missing:
        raise DataError(path, None, f"bundle lacks {', '.join(missing)}")


def read_bundle(path: Path | str, dest: Path | str) -> Path:
    """Unpack a bundle's checked files into `dest` (a folder that exists); return it."""
    path, dest = Path(path), Path(dest)
    limit = _max_bundle_bytes()
    files: dict[str, bytes] = {}
    try:
        with open_binary(path) as archive, _decompressed(archive) as plain:
            stream = io.BufferedReader(_BoundedStream(plain, archive, limit))
            # stream mode: members are read in order as they come, nothing seeks or scans ahead
            with tarfile.open(fileobj=stream, mode="r|") as tar:
                total = 0
                for member in tar:
                    if member.isdir() and _member_name(member) in ("", "."):
                        continue  # the top folder entry of a bundle packed by hand with tar -C RUN .
                    _safe_member(path, member, limit)
                    name = _member_name(member)
                    if name in files:
                        raise DataError(path, None, f"member {name!r} appears twice in the bundle")
                    total += member.size
                    if total > limit:
                        raise _Inflated(f"members of more than {limit} bytes together (set {BUNDLE_MAX_ENV} "
                                        "to allow more)")
                    handle = tar.extractfile(member)
                    assert handle is not None  # a regular file always has content
                    files[name] = handle.read()
    except _Inflated as exc:
        raise DataError(path, None, f"bundle refused: {exc}") from None
    except (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
        raise DataError(path, None, f"not a readable .tar.gz bundle: {exc}") from None
    _check_index(path, files)
    for name, data in files.items():
        write_bytes_atomic(dest / name, data)
    return dest


@contextmanager
def open_run(path: Path | str) -> Iterator[Path]:
    """A run folder as is, or a bundle unpacked into a temporary folder for the `with` block."""
    path = Path(path)
    if path.is_dir():
        yield path
        return
    if not path.is_file():
        raise DataError(path, None, "baseline not found (a run folder or a bundle from citeval bundle)")
    with tempfile.TemporaryDirectory(prefix="citeval-bundle-") as tmp:
        yield read_bundle(path, tmp)
