"""`citeval data ingest`: a registry from a folder of Markdown editions and a manifest.

SOURCES/manifest.toml (or several manifest*.toml, read in name order):

    [[document]]
    document_id = "hand-hygiene"
    title = "..."
    acl = [{ group = "hr", from = "2024-01-01" }]     # empty: everyone may read
    [[document.edition]]
    version_id = "hand-hygiene-v1"
    revision = 1
    file = "hand-hygiene/v1.md"
    effective_from = "2023-06-01"                     # effective_to, revoked_at, deleted_at,
    viewer_url = "https://docs.example/d/hh/v/1"      # supersedes are optional

Pages come from form feeds (kept as line breaks) or `<!-- page N -->` lines (removed); each
paragraph (blank-line separated block) is a chunk under the path of its Markdown headings.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import DataError
from .jsonl import dump_line, validation_errors
from .models import Chunk, Document, Version
from .registry import default_chunk_id, sha256_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_PAGE_MARKER = re.compile(r"^[ \t]*<!--\s*page\s+(\d+)\s*-->[ \t]*\r?\n?", re.IGNORECASE | re.MULTILINE)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_PARAGRAPH = re.compile(r"\S(?:.|\n(?![ \t]*\n))*", re.MULTILINE)


@dataclass
class IngestResult:
    out: Path
    documents: int
    editions: int
    chunks: int


def split_pages(source: str) -> tuple[str, list[tuple[int, int]]]:
    """Remove page markers; return the clean text and (offset, page number) where each page starts."""
    pages: list[tuple[int, int]] = []
    out: list[str] = []
    length = 0
    page = 1
    pos = 0
    tokens = [(m.start(), m.end(), int(m.group(1))) for m in _PAGE_MARKER.finditer(source)]
    tokens += [(m.start(), m.end(), -1) for m in re.finditer("\f", source)]
    tokens.sort()
    for start, end, number in tokens:
        if start < pos:
            continue
        # a form feed is also a line break; a marker line disappears with its newline
        chunk = source[pos:start] + ("\n" if number < 0 else "")
        out.append(chunk)
        length += len(chunk)
        page = number if number > 0 else page + 1
        pages.append((length, page))
        pos = end
    out.append(source[pos:])
    if not pages or pages[0][0] > 0:
        pages.insert(0, (0, 1))
    # several markers at one offset: the last one wins
    dedup: dict[int, int] = {}
    for offset, number in pages:
        dedup[offset] = number
    return "".join(out), sorted(dedup.items())


def _page_at(pages: list[tuple[int, int]], offset: int) -> int:
    page = pages[0][1]
    for start, number in pages:
        if start > offset:
            break
        page = number
    return page


def chunk_markdown(version_id: str, document_id: str, text: str, pages: list[tuple[int, int]]) -> list[Chunk]:
    """One chunk per paragraph; heading lines set the heading path and are not chunks."""
    chunks: list[Chunk] = []
    path: list[tuple[int, str]] = []
    for match in _PARAGRAPH.finditer(text):
        block = match.group(0).rstrip()
        start, end = match.start(), match.start() + len(block)
        heading = _HEADING.match(block) if "\n" not in block else None
        if heading:
            level = len(heading.group(1))
            path = [(lvl, title) for lvl, title in path if lvl < level] + [(level, heading.group(2).strip())]
            continue
        heading_path = [title for _, title in path]
        chunks.append(
            Chunk(
                chunk_id=default_chunk_id(version_id, heading_path, block),
                version_id=version_id,
                document_id=document_id,
                text=block,
                heading_path=heading_path,
                page_start=_page_at(pages, start),
                page_end=_page_at(pages, max(start, end - 1)),
                char_start=start,
                char_end=end,
            )
        )
    return chunks


def _manifest_paths(sources: Path) -> list[Path]:
    paths = sorted(sources.glob("manifest*.toml"))
    if not paths:
        raise DataError(sources / "manifest.toml", None, "no manifest.toml in the sources folder")
    return paths


def _validated(model: Any, obj: dict[str, Any], path: Path, where: str) -> Any:
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        err = validation_errors(path, None, exc)[0]
        raise DataError(path, None, err.message, field=f"{where}.{err.field}") from None


def ingest(sources: Path | str, out: Path | str) -> IngestResult:
    """Build registry/{documents,versions,chunks}.jsonl and texts/ from SOURCES into OUT.

    Writes into a temporary folder first and swaps it in, so a failure leaves OUT untouched.
    """
    sources, out = Path(sources), Path(out)
    documents: list[Document] = []
    versions: list[Version] = []
    chunks: list[Chunk] = []
    texts: dict[str, str] = {}
    for manifest_path in _manifest_paths(sources):
        try:
            manifest = tomllib.loads(manifest_path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise DataError(manifest_path, getattr(exc, "lineno", None), f"invalid TOML: {exc}") from None
        for d_index, raw_doc in enumerate(manifest.get("document", [])):
            where = f"document[{d_index}]"
            editions = raw_doc.pop("edition", [])
            document = _validated(Document, {"acl": [], **raw_doc}, manifest_path, where)
            documents.append(document)
            for e_index, raw_edition in enumerate(editions):
                e_where = f"{where}.edition[{e_index}]"
                file_name = raw_edition.pop("file", None)
                if not file_name:
                    raise DataError(manifest_path, None, "required field is missing", field=f"{e_where}.file")
                source_path = sources / file_name
                if not source_path.is_file():
                    raise DataError(
                        manifest_path, None, f"edition file {file_name!r} not found", field=f"{e_where}.file"
                    )
                text, pages = split_pages(source_path.read_text(encoding="utf-8"))
                fields = {"document_id": document.document_id, **raw_edition, "content_sha256": sha256_text(text)}
                version = _validated(Version, fields, manifest_path, e_where)
                versions.append(version)
                texts[version.version_id] = text
                chunks.extend(chunk_markdown(version.version_id, document.document_id, text, pages))

    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".ingest-", dir=out.parent))
    try:
        (staging / "texts").mkdir()
        for name, records in (("documents", documents), ("versions", versions), ("chunks", chunks)):
            with open(staging / f"{name}.jsonl", "w", encoding="utf-8") as handle:
                for record in records:
                    handle.write(dump_line(record))
        for version_id, text in texts.items():
            (staging / "texts" / f"{version_id}.txt").write_text(text, encoding="utf-8")
        if out.exists():
            backup = out.with_name(out.name + ".old")
            shutil.rmtree(backup, ignore_errors=True)
            os.replace(out, backup)
            os.replace(staging, out)
            shutil.rmtree(backup, ignore_errors=True)
        else:
            os.replace(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return IngestResult(out, len(documents), len(versions), len(chunks))
