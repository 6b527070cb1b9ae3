"""`citeval data ingest`: a registry from a folder of editions (Markdown, PDF, DoclingDocument JSON).

SOURCES/manifest.toml (or several manifest*.toml, read in name order):

    [[document]]
    document_id = "hand-hygiene"
    title = "..."
    acl = [{ group = "hr", from = "2024-01-01" }]     # empty: everyone may read
    [[document.edition]]
    version_id = "hand-hygiene-v1"
    revision = 1
    file = "hand-hygiene/v1.md"                       # .md/.txt, .pdf, or .json (DoclingDocument)
    effective_from = "2023-06-01"                     # effective_to, revoked_at, deleted_at,
    viewer_url = "https://docs.example/d/hh/v/1"      # supersedes are optional
    # format = "markdown" | "pdf" | "docling"        (default: from the file's suffix)
    # pdf = "hand-hygiene/v1.pdf"                     (a DoclingDocument's PDF, kept for page images)

Markdown: pages come from form feeds (kept as line breaks) or `<!-- page N -->` lines (removed);
each paragraph (blank-line separated block) is a chunk under the path of its Markdown headings.
PDF (evals.ingest.pdf) and DoclingDocument (evals.ingest.docling) keep pages and boxes per chunk,
and the registry keeps the edition's PDF under files/<version_id>.pdf. Chunking, legal structure
and ids are the same for every format (evals.ingest.chunking). A Markdown edition without any page
marker is recorded with `pages_known: false` and chunks without pages.

Every non-space character of an edition's text must end up in a chunk or in a heading a chunk
lies under (`evals.ingest.chunking.text_outside`); an edition that would lose text is refused
(DataError: how many characters, where the first span starts) rather than ingested short.
Nothing is written unless the whole registry validates; the new registry then replaces the old
one in a single rename, so readers never see a half-written or missing registry.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.contract.models import Chunk, Document, Version
from evals.data.registry import sha256_text
from evals.errors import DataError
from evals.ingest.chunking import Block, EditionText, chunk_edition, text_outside
from evals.store.atomic import staged_folder, write_text_atomic
from evals.store.jsonl import validation_errors, write_jsonl_atomic
from evals.store.reading import TomlDocument, read_file_text, read_toml_document

SAFE_ID = re.compile(r"[A-Za-z0-9_.-]{1,200}")  # an id that becomes a file name


_PAGE_MARKER = re.compile(r"^[ \t]*<!--\s*page\s+(\d+)\s*-->[ \t]*\r?\n?", re.IGNORECASE | re.MULTILINE)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_PARAGRAPH = re.compile(r"\S(?:.|\n(?![ \t]*\n))*", re.MULTILINE)
FORMATS = ("markdown", "pdf", "docling")


@dataclass
class IngestResult:
    out: Path
    documents: int
    editions: int
    chunks: int
    # editions recorded with pages_known: false (no page information in their source)
    without_pages: list[str] = field(default_factory=list)

    def warnings(self) -> list[str]:
        return [f"{version_id}: no page information (pages_known: false)" for version_id in self.without_pages]

    def to_text(self) -> str:
        return f"{self.out}: {self.documents} documents, {self.editions} editions, {self.chunks} chunks\n"

    def to_json(self) -> dict[str, Any]:
        return {
            "out": str(self.out), "documents": self.documents, "editions": self.editions, "chunks": self.chunks,
            "without_pages": list(self.without_pages),
        }


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


def read_markdown(source: str) -> EditionText:
    """A Markdown edition: page markers removed, paragraphs as blocks, single-line `#` headings.

    Without a page marker or form feed the edition has no page information (pages None), rather
    than every chunk claiming page 1.
    """
    has_pages = bool(_PAGE_MARKER.search(source)) or "\f" in source
    text, pages = split_pages(source)
    blocks: list[Block] = []
    for match in _PARAGRAPH.finditer(text):
        block = match.group(0).rstrip()
        start, end = match.start(), match.start() + len(block)
        heading = _HEADING.match(block) if "\n" not in block else None
        if heading:
            blocks.append(Block(start, end, len(heading.group(1)), heading.group(2)))
        else:
            blocks.append(Block(start, end))
    return EditionText(text, blocks, pages if has_pages else None)


_EDITION_SUFFIXES = (".md", ".markdown", ".pdf", ".json")
_TEMPLATE_FILES = 20  # a template names at most this many editions; the rest follow the same pattern


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "document"


def manifest_template(sources: Path) -> str:
    """A manifest.toml for the edition files in `sources`, for a team to complete: one document per
    file (or per folder of v1.md, v2.md …), titles from a Markdown file's first heading; the dates,
    which only the team knows, left as YYYY-MM-DD."""
    files = sorted(p for p in sources.rglob("*") if p.is_file() and p.suffix.lower() in _EDITION_SUFFIXES)
    parts = ["# one [[document]] per document, one [[document.edition]] per edition; fill in the dates"]
    for path in files[:_TEMPLATE_FILES]:
        relative = path.relative_to(sources).as_posix()
        named_by_folder = re.fullmatch(r"v\d+", path.stem) is not None and path.parent != sources
        document_id = _slug(path.parent.name if named_by_folder else path.stem)
        title = path.parent.name if named_by_folder else path.stem
        if path.suffix.lower() in (".md", ".markdown"):
            heading = re.search(r"^#\s+(.+)$", read_file_text(path), re.MULTILINE)
            title = heading.group(1).strip() if heading else title
        revision = int(path.stem[1:]) if named_by_folder else 1
        parts.append(
            f'[[document]]\ndocument_id = "{document_id}"\ntitle = {_toml_string(title)}\nacl = []\n\n'
            f'[[document.edition]]\nversion_id = "{document_id}-v{revision}"\nrevision = {revision}\n'
            f'file = {_toml_string(relative)}\neffective_from = "YYYY-MM-DD"'
        )
    if len(files) > _TEMPLATE_FILES:
        parts.append(f"# … and {len(files) - _TEMPLATE_FILES} more edition file(s)")
    return "\n\n".join(parts) + "\n"


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _manifest_paths(sources: Path) -> list[Path]:
    paths = sorted(sources.glob("manifest*.toml"))
    if not paths:
        raise DataError(
            sources / "manifest.toml", None,
            "no manifest.toml in the sources folder; a template for the edition files found there "
            f"(save it as {sources / 'manifest.toml'} and fill in the dates):\n\n" + manifest_template(sources),
        )
    return paths


def _validated(model: Any, obj: dict[str, Any], path: Path, where: str) -> Any:
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        err = validation_errors(path, None, exc)[0]
        raise DataError(path, None, err.message, field=f"{where}.{err.field}") from None


def edition_format(file_name: str, declared: str | None) -> str:
    if declared is not None:
        return declared
    suffix = Path(file_name).suffix.lower()
    return {".pdf": "pdf", ".json": "docling"}.get(suffix, "markdown")


def read_edition(path: Path, fmt: str) -> EditionText:
    """The edition's full text, blocks, pages and boxes, whatever its format."""
    if fmt == "pdf":
        from evals.ingest.pdf import read_pdf

        return read_pdf(path).edition
    if fmt == "docling":
        from evals.ingest.docling import read_docling

        return read_docling(path).edition
    try:
        source = read_file_text(path)  # strict UTF-8 naming the line; line ends kept as written
    except DataError as exc:
        raise DataError(path, exc.line, f"{exc.message}; PDF editions need a .pdf suffix") from None
    return read_markdown(source)


@dataclass
class _Edition:
    version: Version
    text: str
    chunks: list[Chunk]
    files: dict[str, Path]  # registry-relative name → source file to copy


def _read_manifests(sources: Path) -> tuple[list[Document], list[_Edition]]:
    documents: list[Document] = []
    editions: list[_Edition] = []
    first: dict[tuple[str, str], str] = {}  # (field, id) → where it was first given, file:line
    for manifest_path in _manifest_paths(sources):
        manifest_doc = read_toml_document(manifest_path)
        manifest = manifest_doc.data
        raw_documents = manifest.get("document", [])
        if not isinstance(raw_documents, list) or not all(isinstance(d, dict) for d in raw_documents):
            raise DataError(manifest_path, None, "must be a list of [[document]] tables", field="document")
        for d_index, raw_doc in enumerate(raw_documents):
            where = f"document[{d_index}]"
            raw_editions = raw_doc.pop("edition", [])
            if not isinstance(raw_editions, list) or not all(isinstance(e, dict) for e in raw_editions):
                raise DataError(manifest_path, None, "must be a list of [[document.edition]] tables",
                                field=f"{where}.edition")
            document = _validated(Document, {"acl": [], **raw_doc}, manifest_path, where)
            _once(first, "document_id", document.document_id, manifest_doc, _table_line(manifest_doc, d_index, None))
            documents.append(document)
            for e_index, raw_edition in enumerate(raw_editions):
                e_where = f"{where}.edition[{e_index}]"
                edition = _read_edition(sources, manifest_path, e_where, document, raw_edition)
                _once(first, "version_id", edition.version.version_id, manifest_doc,
                      _table_line(manifest_doc, d_index, e_index))
                editions.append(edition)
    return documents, editions


def _table_line(manifest: TomlDocument, d_index: int, e_index: int | None) -> int | None:
    """The line of the document's `document_id` (e_index None) or of its edition's `version_id`:
    the n-th [[document]] table, and the n-th [[document.edition]] inside it."""
    key = "document_id" if e_index is None else "version_id"
    documents = editions = -1
    for lineno, line in enumerate(manifest.text.splitlines(), 1):
        header = line.strip().replace(" ", "")
        if header.startswith("[[document]]"):
            documents, editions = documents + 1, -1
        elif header.startswith("[[document.edition]]"):
            editions += 1
        elif header.startswith("["):
            continue
        elif documents == d_index and (editions == -1 if e_index is None else editions == e_index) and (
            line.strip().startswith(key) and line.strip()[len(key):].lstrip().startswith("=")
        ):
            return lineno
    return None


def _once(first: dict[tuple[str, str], str], field: str, value: str, manifest: TomlDocument,
          line: int | None) -> None:
    """An id given twice across the manifests is an error at the second place, naming the first —
    the manifest's lines, not the registry files it would become."""
    here = f"{manifest.path}:{line}" if line is not None else str(manifest.path)
    earlier = first.setdefault((field, value), here)
    if earlier != here:
        whose = "each edition" if field == "version_id" else "each document"
        raise DataError(manifest.path, line, f"{field} {value!r} is given twice (first at {earlier}); "
                                             f"{whose} needs its own", field=field)


def _source_file(sources: Path, manifest_path: Path, name: Any, field_name: str) -> Path:
    if not isinstance(name, str) or not name:
        raise DataError(manifest_path, None, "required field is missing", field=field_name)
    # a manifest reads only what SOURCES holds: no absolute path or ".." out of it (checked on the
    # names, so a link the folder's owner put inside SOURCES is theirs to make)
    root = Path(os.path.abspath(sources))
    path = Path(os.path.normpath(root / name))
    if not path.is_relative_to(root):
        raise DataError(manifest_path, None, f"edition file {name!r} is outside the sources folder {sources}",
                        field=field_name)
    if not path.is_file():
        raise DataError(manifest_path, None, f"edition file {name!r} not found", field=field_name)
    return path


def _read_edition(
    sources: Path, manifest_path: Path, where: str, document: Document, raw: dict[str, Any]
) -> _Edition:
    raw = dict(raw)
    file_name = raw.pop("file", None)
    source_path = _source_file(sources, manifest_path, file_name, f"{where}.file")
    declared = raw.pop("format", None)
    if declared is not None and declared not in FORMATS:
        expected = ", ".join(FORMATS)
        raise DataError(manifest_path, None, f"unknown format {declared!r} (expected {expected})", f"{where}.format")
    fmt = edition_format(str(file_name), declared)
    pdf_name = raw.pop("pdf", None)
    pdf_path = source_path if fmt == "pdf" else None
    if pdf_name is not None:
        pdf_path = _source_file(sources, manifest_path, pdf_name, f"{where}.pdf")
    edition = read_edition(source_path, fmt)
    fields: dict[str, Any] = {"document_id": document.document_id, **raw, "content_sha256": sha256_text(edition.text)}
    if not edition.pages_known:
        fields["pages_known"] = False
    if fmt != "markdown":
        fields["source_format"] = fmt
    version_id = raw.get("version_id")
    if isinstance(version_id, str) and (not SAFE_ID.fullmatch(version_id) or version_id in (".", "..")):
        # it names texts/<version_id>.txt and files/<version_id>.pdf: it must stay a plain file name
        raise DataError(manifest_path, None, f"{version_id!r} may hold only letters, digits, '.', '_' and '-'",
                        field=f"{where}.version_id")
    files: dict[str, Path] = {}
    if pdf_path is not None and isinstance(version_id, str):
        fields["source_file"] = f"files/{version_id}.pdf"
        files[fields["source_file"]] = pdf_path
    version = _validated(Version, fields, manifest_path, where)
    chunks = chunk_edition(version.version_id, document.document_id, edition)
    lost = text_outside(edition, chunks)
    if lost:
        raise DataError(source_path, None, _lost_message(edition, lost))
    return _Edition(version, edition.text, chunks, files)


def _lost_message(edition: EditionText, lost: list[tuple[int, int]]) -> str:
    """What refusing an edition whose text would be in no chunk says: how much, and where it starts."""
    count = sum(len("".join(edition.text[a:b].split())) for a, b in lost)
    start, end = lost[0]
    snippet = " ".join(edition.text[start:end].split())
    snippet = snippet if len(snippet) <= 80 else snippet[:79] + "…"
    page = ""
    if edition.pages:
        page = f", page {max((p for o, p in edition.pages if o <= start), default=edition.pages[0][1])}"
    return (f"{count} non-space characters of the text would be in no chunk and no heading a chunk is under "
            f"({len(lost)} spans; the first at character {start}{page}: {snippet!r}); ingest refuses to lose "
            "text: report the file with this message")


def ingest(sources: Path | str, out: Path | str) -> IngestResult:
    """Build registry/{documents,versions,chunks}.jsonl, texts/ and files/ from SOURCES into OUT.

    The registry is written to a staging folder next to OUT and validated there; any problem
    raises (DatasetInvalid, naming the records) and leaves OUT untouched. A valid registry
    replaces OUT in one atomic exchange where the system has one (Linux renameat2).
    """
    from evals.data.validate import DatasetNotValid, validate_registry

    sources, out = Path(sources), Path(out)
    documents, editions = _read_manifests(sources)
    with staged_folder(out, existing="replace", point="ingest:staged") as staging:
        (staging / "texts").mkdir()
        records: dict[str, list[Any]] = {
            "documents": documents,
            "versions": [e.version for e in editions],
            "chunks": [c for e in editions for c in e.chunks],
        }
        for name, items in records.items():
            write_jsonl_atomic(staging / f"{name}.jsonl", items)
        for edition in editions:
            write_text_atomic(staging / "texts" / f"{edition.version.version_id}.txt", edition.text)
            for name, source in edition.files.items():
                (staging / name).parent.mkdir(exist_ok=True)
                shutil.copyfile(source, staging / name)
        problems = validate_registry(staging).problems
        if problems:  # name the registry being built, not the staging folder
            problems = [DataError(p.path.replace(str(staging), str(out)), p.line, p.message, p.field) for p in problems]
            raise DatasetNotValid(problems, what=f"ingest refused to write {out}")
    return IngestResult(
        out,
        len(documents),
        len(editions),
        len(records["chunks"]),
        [e.version.version_id for e in editions if e.version.pages_known is False],
    )
