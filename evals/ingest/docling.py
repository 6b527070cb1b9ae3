"""A DoclingDocument JSON (docling's own output) as an `EditionText`, read with docling-core's model.

Users run docling themselves (it downloads layout models; citeval never does) and hand us the
JSON. Every text item of the body, in reading order, becomes a block of the edition's full text
(items separated by a blank line): a `title` is a level-1 heading, a `section_header` of level L
a level L+1 heading, every other text item (text, paragraph, list_item, caption, footnote, …) a
paragraph. Each provenance record (page_no, bbox, charspan) of an item is kept verbatim on the
chunks covering it (`prov`), and as a box for that part of the item: `charspan` counts inside
the item's text, the box is turned to citeval's top-left origin with the page's height.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.errors import DataError
from evals.ingest.chunking import Block, Box, EditionText
from evals.store.reading import read_file_bytes


@dataclass(frozen=True)
class DoclingItem:
    """One text item as placed in the edition's full text, with its provenance as docling wrote it."""

    self_ref: str
    label: str
    char_start: int
    char_end: int
    prov: list[dict[str, Any]]


@dataclass
class DoclingText:
    edition: EditionText
    items: list[DoclingItem]


def read_docling(path: Path | str) -> DoclingText:
    from docling_core.types.doc import CoordOrigin, DocItemLabel, DoclingDocument
    from docling_core.types.doc.document import SectionHeaderItem, TextItem
    from pydantic import ValidationError

    path = Path(path)
    data = read_file_bytes(path)
    try:
        document = DoclingDocument.model_validate_json(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise DataError(path, None, f"not a DoclingDocument: {first['msg']}", field=where or None) from None
    except ValueError as exc:
        raise DataError(path, None, f"not a DoclingDocument JSON file: {exc}") from None

    parts: list[str] = []
    length = 0
    blocks: list[Block] = []
    boxes: list[Box] = []
    items: list[DoclingItem] = []
    page_starts: list[tuple[int, int]] = []
    for item, _depth in document.iterate_items():
        if not isinstance(item, TextItem) or not item.text.strip():
            continue
        if parts:
            parts.append("\n\n")
            length += 2
        start = length
        parts.append(item.text)
        length += len(item.text)
        if item.label == DocItemLabel.TITLE:
            level: int | None = 1
        elif isinstance(item, SectionHeaderItem):
            level = item.level + 1
        else:
            level = None
        blocks.append(Block(start, length, level, item.text if level is not None else None))
        provs = []
        for prov in item.prov:
            raw = prov.model_dump(mode="json")
            provs.append(raw)
            bbox = prov.bbox
            page = document.pages.get(prov.page_no)
            if bbox.coord_origin != CoordOrigin.TOPLEFT:
                if page is None:
                    raise DataError(path, None, f"{item.self_ref}: page {prov.page_no} has no size in pages")
                bbox = bbox.to_top_left_origin(page.size.height)
            a, b = prov.charspan
            if b <= a:  # no span given: the box is the whole item's
                a, b = 0, len(item.text)
            boxes.append(
                Box(start + a, start + max(a, b), prov.page_no, bbox.l, bbox.t, bbox.r, bbox.b, prov=raw)
            )
            if not page_starts or page_starts[-1][1] != prov.page_no:
                page_starts.append((start + a, prov.page_no))
        items.append(DoclingItem(item.self_ref, str(item.label.value), start, length, provs))
    if not parts:
        raise DataError(path, None, "the DoclingDocument has no text items")
    edition = EditionText("".join(parts), blocks, page_starts or None, boxes)
    if page_starts and page_starts[0][0] > 0:
        edition.pages = [(0, page_starts[0][1]), *page_starts]
    return DoclingText(edition, items)
