"""DoclingDocument ingest: read with docling-core's own model; every text item keeps page_no, bbox, charspan."""

import json

import pytest
from docling_core.types.doc import BoundingBox, CoordOrigin, DocItemLabel, DoclingDocument, ProvenanceItem, Size
from ingest_helpers import ingest_valid_dataset

from evals.errors import DataError
from evals.ingest.docling import read_docling

PAGE_H = 842.0


def prov(page, left, top, right, bottom, span):
    # docling writes PDF boxes with a bottom-left origin
    return ProvenanceItem(
        page_no=page,
        bbox=BoundingBox(l=left, t=top, r=right, b=bottom, coord_origin=CoordOrigin.BOTTOMLEFT),
        charspan=span,
    )


def make_document():
    doc = DoclingDocument(name="complaints")
    doc.add_page(page_no=1, size=Size(width=595.0, height=PAGE_H))
    doc.add_page(page_no=2, size=Size(width=595.0, height=PAGE_H))
    title = "Порядок рассмотрения обращений"
    doc.add_title(text=title, prov=prov(1, 72, 780, 400, 760, (0, len(title))))
    head = "1. Сроки"
    doc.add_heading(text=head, level=1, prov=prov(1, 72, 740, 160, 726, (0, len(head))))
    first = "Ответ направляется в течение десяти рабочих дней."
    doc.add_text(label=DocItemLabel.TEXT, text=first, prov=prov(1, 72, 700, 480, 686, (0, len(first))))
    # one paragraph running over the page break: two provenance records with their char spans
    split = "Срок продлевается руководителем. Заявитель уведомляется письменно."
    cut = split.index(" Заявитель") + 1
    item = doc.add_text(label=DocItemLabel.TEXT, text=split, prov=prov(1, 72, 120, 500, 106, (0, cut)))
    item.prov.append(prov(2, 72, 800, 420, 786, (cut, len(split))))
    items = doc.add_list_group()
    doc.add_list_item(text="Жалоба регистрируется в журнале.", prov=prov(2, 90, 760, 380, 746, (0, 32)), parent=items)
    return doc


MANIFEST = """
[[document]]
document_id = "complaints"
title = "Порядок рассмотрения обращений"

[[document.edition]]
version_id = "complaints-v1"
revision = 1
file = "complaints.json"
effective_from = "2024-01-01"
"""


def test_docling_items_keep_page_bbox_and_charspan(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    doc = make_document()
    (src / "complaints.json").write_text(doc.model_dump_json(), encoding="utf-8")
    (src / "manifest.toml").write_text(MANIFEST, encoding="utf-8")
    reg = ingest_valid_dataset(src, tmp_path / "ds")
    text = reg.text("complaints-v1")
    chunks = reg.chunks_of("complaints-v1")
    body = [t for t in doc.texts if t.label not in (DocItemLabel.TITLE, DocItemLabel.SECTION_HEADER)]
    assert [c.text for c in chunks] == [t.text for t in body]
    for chunk, item in zip(chunks, body, strict=True):
        assert text[chunk.char_start : chunk.char_end] == chunk.text
        assert chunk.heading_path == ["Порядок рассмотрения обращений", "1. Сроки"]
        # docling's provenance, verbatim: page_no, bbox (with its origin) and charspan of every record
        assert chunk.prov == [json.loads(p.model_dump_json()) for p in item.prov]
        # boxes in citeval's top-left origin: y0 = page height − docling's top, by hand
        assert [(b.page, b.x0, b.y0, b.x1, b.y1) for b in chunk.bbox] == [
            (p.page_no, p.bbox.l, PAGE_H - p.bbox.t, p.bbox.r, PAGE_H - p.bbox.b) for p in item.prov
        ]
    assert [(c.page_start, c.page_end) for c in chunks] == [(1, 1), (1, 2), (2, 2)]
    assert reg.versions["complaints-v1"].source_format == "docling"


def test_every_text_item_including_headings_is_placed_with_its_provenance(tmp_path):
    doc = make_document()
    (tmp_path / "d.json").write_text(doc.model_dump_json(), encoding="utf-8")
    parsed = read_docling(tmp_path / "d.json")
    assert [i.self_ref for i in parsed.items] == [t.self_ref for t in doc.texts]
    for placed, item in zip(parsed.items, doc.texts, strict=True):
        assert parsed.edition.text[placed.char_start : placed.char_end] == item.text
        assert [(p["page_no"], p["bbox"], tuple(p["charspan"])) for p in placed.prov] == [
            (p.page_no, p.bbox.model_dump(mode="json"), p.charspan) for p in item.prov
        ]
    assert [b.heading_level for b in parsed.edition.blocks] == [1, 2, None, None, None]


def test_a_file_that_is_not_a_docling_document_is_refused(tmp_path):
    (tmp_path / "x.json").write_text('{"schema_name": "DoclingDocument", "name": 5}', encoding="utf-8")
    with pytest.raises(DataError, match="not a DoclingDocument"):
        read_docling(tmp_path / "x.json")
    (tmp_path / "y.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(DataError, match="not a DoclingDocument"):
        read_docling(tmp_path / "y.json")
