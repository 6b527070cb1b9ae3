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

import hashlib
import io
import json
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

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
MAX_FILE_BYTES = 1 << 30  # one run file; a 200-question run is a few MB


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


def _safe_member(path: Path, member: tarfile.TarInfo) -> None:
    name = _member_name(member)
    if name not in (*RUN_FILES, INDEX):
        raise DataError(path, None, f"unexpected member {name!r} in the bundle (only run files, no paths)")
    if not member.isfile():
        raise DataError(path, None, f"member {name!r} is not a regular file (links and devices are refused)")
    if member.size > MAX_FILE_BYTES:
        raise DataError(path, None, f"member {name!r} is larger than {MAX_FILE_BYTES} bytes")


def _check_index(path: Path, files: dict[str, bytes]) -> None:
    if INDEX not in files:
        raise DataError(path, None, f"not a citeval bundle ({INDEX} missing)")
    try:
        index = json.loads(files[INDEX].decode("utf-8"))
        listed = index["files"]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
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
    try:
        with open_binary(path) as archive, tarfile.open(fileobj=archive, mode="r:*") as tar:
            files: dict[str, bytes] = {}
            for member in tar.getmembers():
                if member.isdir() and _member_name(member) in ("", "."):
                    continue  # the top folder entry of a bundle packed by hand with tar -C RUN .
                _safe_member(path, member)
                handle = tar.extractfile(member)
                assert handle is not None  # a regular file always has content
                name = _member_name(member)
                if name in files:
                    raise DataError(path, None, f"member {name!r} appears twice in the bundle")
                files[name] = handle.read()
    except (tarfile.TarError, EOFError, OSError) as exc:
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
