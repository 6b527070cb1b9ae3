"""The provenance registry: documents, their editions, chunks and access rules."""

from __future__ import annotations

import bisect
import hashlib
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from evals.contract.models import Chunk, Document, Evidence, User, Version, VersionStatus
from evals.errors import DataError
from evals.store.jsonl import read_jsonl
from evals.store.reading import read_file_text
from evals.text.normalize import collapse_whitespace


def default_chunk_id(version_id: str, heading_path: Iterable[str], text: str) -> str:
    """DESIGN 2: first 16 hex of sha256(version_id \\x1f heading/path \\x1f collapsed text)."""
    payload = version_id + "\x1f" + "/".join(heading_path) + "\x1f" + collapse_whitespace(text)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def url_has_prefix(url: str, prefix: str) -> bool:
    """A link is built on a viewer_url when the prefix is followed by the end, '/', '?' or '#'."""
    base = prefix.rstrip("/")
    return url.startswith(base) and (len(url) == len(base) or url[len(base)] in "/?#")


class Registry:
    """In-memory view of registry/*.jsonl with the look-ups every stage needs."""

    def __init__(
        self,
        documents: Iterable[Document],
        versions: Iterable[Version],
        chunks: Iterable[Chunk],
        texts_dir: Path | None = None,
    ) -> None:
        self.documents: dict[str, Document] = {d.document_id: d for d in documents}
        self.versions: dict[str, Version] = {v.version_id: v for v in versions}
        self.chunks: dict[str, Chunk] = {}
        self._by_version: dict[str, list[Chunk]] = defaultdict(list)
        for chunk in chunks:
            self.chunks[chunk.chunk_id] = chunk
            self._by_version[chunk.version_id].append(chunk)
        self._span_index: dict[str, tuple[list[int], list[Chunk]]] = {}
        for version_id, items in self._by_version.items():
            spanned = sorted((c for c in items if c.char_start is not None), key=lambda c: c.char_start or 0)
            self._span_index[version_id] = ([c.char_start or 0 for c in spanned], spanned)
        self._editions: dict[str, list[Version]] = defaultdict(list)
        for version in self.versions.values():
            self._editions[version.document_id].append(version)
        for editions in self._editions.values():
            editions.sort(key=lambda v: v.revision)
        self.texts_dir = texts_dir
        self._texts: dict[str, str | None] = {}

    @classmethod
    def load(cls, dataset: Path | str) -> Registry:
        """Load DATASET/registry (or a registry folder itself); the first bad record raises DataError."""
        root = Path(dataset)
        folder = root / "registry" if (root / "registry").is_dir() else root
        if not (folder / "documents.jsonl").exists():
            raise DataError(folder / "documents.jsonl", None, "file not found (is this a dataset folder?)")
        return cls(
            (r for _, r in read_jsonl(folder / "documents.jsonl", Document)),
            (r for _, r in read_jsonl(folder / "versions.jsonl", Version)),
            (r for _, r in read_jsonl(folder / "chunks.jsonl", Chunk)),
            texts_dir=folder / "texts",
        )

    # --- editions and access ---------------------------------------------------------

    def status(self, version_id: str, t: datetime) -> VersionStatus | None:
        version = self.versions.get(version_id)
        return version.status_at(t) if version else None

    def editions(self, document_id: str) -> list[Version]:
        """A document's editions by revision."""
        return self._editions.get(document_id, [])

    def active_edition(self, document_id: str, t: datetime) -> Version | None:
        for version in self.editions(document_id):
            if version.status_at(t) is VersionStatus.active:
                return version
        return None

    def can_read(self, user: User | None, document_id: str, t: datetime) -> bool:
        """An empty ACL lets everyone read; otherwise one of the user's groups needs a window covering t."""
        document = self.documents.get(document_id)
        if document is None:
            return False
        if not document.acl:
            return True
        groups = set(user.groups) if user else set()
        return any(entry.group in groups and entry.covers(t) for entry in document.acl)

    # --- chunks ------------------------------------------------------------------------

    def chunks_of(self, version_id: str) -> list[Chunk]:
        return self._by_version.get(version_id, [])

    def chunk_at(self, version_id: str, char_start: int, char_end: int) -> Chunk | None:
        """The chunk of an edition whose span holds [char_start, char_end)."""
        starts, spanned = self._span_index.get(version_id, ([], []))
        i = bisect.bisect_right(starts, char_start) - 1
        while i >= 0:
            chunk = spanned[i]
            if chunk.char_end is not None and chunk.char_end >= char_end:
                return chunk
            if (chunk.char_end or 0) <= char_start:
                break
            i -= 1
        return None

    def resolve(self, evidence: Evidence) -> Chunk | None:
        """An evidence record's registry chunk: by chunk_id, else by version_id and char span."""
        if evidence.chunk_id is not None:
            return self.chunks.get(evidence.chunk_id)
        if evidence.version_id is not None and evidence.char_start is not None and evidence.char_end is not None:
            return self.chunk_at(evidence.version_id, evidence.char_start, evidence.char_end)
        return None

    def text(self, version_id: str) -> str | None:
        """The edition's full text from registry/texts/<version_id>.txt, if the registry has it."""
        if version_id not in self._texts:
            path = self.texts_dir / f"{version_id}.txt" if self.texts_dir else None
            # exact: a text that really holds CR LF keeps it (its sha256 and offsets count it)
            self._texts[version_id] = read_file_text(path) if path and path.is_file() else None
        return self._texts[version_id]

    # --- pages and source files ---------------------------------------------------------

    def pages_known(self, version_id: str) -> bool:
        """False when the edition's source had no page information (versions.jsonl `pages_known: false`)."""
        version = self.versions.get(version_id)
        return version is None or version.pages_known is not False

    def page_check_skip_reason(self, version_id: str | None) -> str | None:
        """Why a page-level anchor check cannot be made for this edition, or None when it can.

        A gold or cited page on an edition without page information can neither match nor
        mismatch: checks and metrics skip it with this reason instead of scoring it.
        """
        if version_id is None or self.pages_known(version_id):
            return None
        return f"edition {version_id} has no page information (pages_known: false); page anchor not checked"

    def source_pdf(self, version_id: str) -> Path | None:
        """The registry's copy of the edition's PDF (versions.jsonl `source_file`), if it holds one."""
        version = self.versions.get(version_id)
        name = getattr(version, "source_file", None) if version else None
        if not isinstance(name, str) or self.texts_dir is None:
            return None
        folder = self.texts_dir.parent.resolve()
        path = (folder / name).resolve()
        inside = path.is_relative_to(folder)  # a source_file may not point out of the registry
        return path if inside and path.suffix.lower() == ".pdf" and path.is_file() else None

    def version_for_url(self, url: str) -> Version | None:
        """The edition whose viewer_url the link is built on (longest prefix wins)."""
        best: Version | None = None
        for version in self.versions.values():
            if version.viewer_url and url_has_prefix(url, version.viewer_url):
                if best is None or len(version.viewer_url) > len(best.viewer_url or ""):
                    best = version
        return best
